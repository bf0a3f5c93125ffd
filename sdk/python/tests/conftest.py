"""Fixtures of the Python SDK's tests: the conformance server (env MANETTE_CONFORMANCE_URL),
clients closed after each test, unique players, and a recorder of realtime events."""
from __future__ import annotations

import json
import os
import secrets
import sys
import threading
import time
import urllib.request
from typing import Any, Callable, Dict, List, Optional

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import manette  # noqa: E402


class Control:
    """The conformance server's control API."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.config = self.get("/config")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def post(self, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        data = json.dumps(body or {}).encode()
        req = urllib.request.Request(self.url + path, data=data, method="POST", headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())


@pytest.fixture(scope="session")
def control() -> Control:
    url = os.environ.get("MANETTE_CONFORMANCE_URL")
    if not url:
        pytest.skip("MANETTE_CONFORMANCE_URL is not set (start test/conformance/server.ts)")
    return Control(url)


class Recorder:
    """Records a subscription's callbacks; waits on them."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.actions: List[Dict[str, Any]] = []
        self.etats: List[Dict[str, Any]] = []
        self.errors: List[manette.ManetteError] = []
        self.cv = threading.Condition()

    def on_action(self, e: Dict[str, Any]) -> None:
        with self.cv:
            self.actions.append(e)
            self.cv.notify_all()

    def on_etat(self, p: Dict[str, Any]) -> None:
        with self.cv:
            self.etats.append(p)
            self.cv.notify_all()

    def on_error(self, e: manette.ManetteError) -> None:
        with self.cv:
            self.errors.append(e)
            self.cv.notify_all()

    @property
    def latest(self) -> Optional[Dict[str, Any]]:
        with self.cv:
            return self.etats[-1] if self.etats else None

    def wait(self, pred: Callable[["Recorder"], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self.cv:
            while not pred(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: {what} not seen within {timeout} s (last state: {self.latest and {k: self.latest.get(k) for k in ('numero_tour', 'statut', 'tour_joueur')}})")
                self.cv.wait(left)

    def wait_turn(self, numero_tour: int, timeout: float = 20.0) -> Dict[str, Any]:
        self.wait(lambda r: r.latest is not None and r.latest["numero_tour"] >= numero_tour, timeout, f"turn {numero_tour}")
        return self.latest  # type: ignore[return-value]

    def wait_final(self, timeout: float = 20.0) -> Dict[str, Any]:
        self.wait(lambda r: r.latest is not None and r.latest["statut"] != "en_cours", timeout, "the end of the match")
        return self.latest  # type: ignore[return-value]


class World:
    """Makes clients (closed at the end of the test) and unique players."""

    def __init__(self, control: Control) -> None:
        self.control = control
        self.base_url = control.config["baseUrl"]
        self.keys = control.config["keys"]
        self.clients: List[manette.Client] = []

    def client(self, key: str = "default", lang: str = "fr", storage: Any = None, callbacks: str = "thread") -> manette.Client:
        c = manette.Client(self.base_url, self.keys[key], lang=lang, storage=storage, callbacks=callbacks)
        self.clients.append(c)
        return c

    @staticmethod
    def pseudo(prefix: str = "py") -> str:
        return f"{prefix}_{secrets.token_hex(5)}"

    def identity_token(self, sub: str) -> str:
        """A fresh identity token of the conformance server's provider (``tokenProvider``) for ``sub``."""
        return self.control.post("/identity-token", {"sub": sub})["jeton"]

    @staticmethod
    def discord_user_id() -> str:
        """A new Discord user id (a snowflake: digits)."""
        return str(10 ** 17 + secrets.randbelow(9 * 10 ** 17))

    def discord_code(self, user_id: str, code_challenge: Optional[str] = None, redirect_uri: Optional[str] = None) -> str:
        """What Discord gives when the user ``user_id`` approves the game's application (its stand-in)."""
        body: Dict[str, Any] = {"user_id": user_id, "username": f"u{user_id}"}
        if code_challenge is not None:
            body["code_challenge"] = code_challenge
        if redirect_uri is not None:
            body["redirect_uri"] = redirect_uri
        return self.control.post("/discord-code", body)["code"]

    def player(self, key: str = "default", lang: str = "fr", storage: Any = None) -> manette.Client:
        c = self.client(key, lang, storage)
        p = self.pseudo()
        c.auth.register(p, f"{p}@example.test", "mot-de-passe-1")
        return c

    def matched(self, mode: str = "1v1", key: str = "default"):
        """Two registered players matched in ``mode``: (x, o, partie_id), X playing first."""
        a, b = self.player(key), self.player(key)
        first = a.matchmaking.join(mode)
        assert first["status"] == "waiting", first
        second = b.matchmaking.join(mode)
        assert second["status"] == "matched", second
        pid = second["partie_id"]
        x_id = second["participants"][0]["joueur_id"]
        x, o = (a, b) if a.auth.player["id"] == x_id else (b, a)
        return x, o, pid

    def close(self) -> None:
        for c in self.clients:
            c.close()


@pytest.fixture
def world(control: Control):
    w = World(control)
    yield w
    w.close()
