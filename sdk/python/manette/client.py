"""Client: the SDK's whole surface (mirrors the browser SDK's createClient, sdk/src/client.ts)."""
from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import threading
import time
import urllib.parse
from typing import Any, Callable, Dict, List, Optional, Set, Union

from ._runtime import Dispatcher, Scheduler, Timer, Workers
from .errors import ManetteError
from .http import Transport, api_base, random_id
from .realtime import ChannelHandle, RealtimeHub, parse_time
from .storage import MemoryStorage, Session, Storage

log = logging.getLogger("manette")

#: How long the ``etat`` of the client's own accepted action may take before the state is re-read.
OWN_ETAT_WAIT_S = 2.0
#: Re-read the state after this long without any event while the match is on.
DEFAULT_POLL_S = 15.0
MIN_POLL_S = 0.5
#: Waits before the retries of a purchase (or a use) left without a usable answer.
ECONOMY_RETRY_S = [0.3, 1.0, 3.0]

Json = Dict[str, Any]


def _without_ok(body: Json) -> Json:
    return {k: v for k, v in body.items() if k != "ok"}


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _steam_hex(ticket: Union[str, bytes, bytearray]) -> str:
    """A Steam ticket as the API takes it: its bytes hex-encoded (a string is sent as given)."""
    return bytes(ticket).hex() if isinstance(ticket, (bytes, bytearray)) else ticket


def _discord_body(code: str, code_verifier: Optional[str], redirect_uri: Optional[str]) -> Json:
    body: Json = {"code": code}
    if code_verifier is not None:
        body["code_verifier"] = code_verifier
    if redirect_uri is not None:
        body["redirect_uri"] = redirect_uri
    return body


def create_pkce_pair() -> Dict[str, str]:
    """A PKCE pair (RFC 7636, S256) for an OAuth2 authorization such as Discord's:
    ``{"code_verifier", "code_challenge"}``. Send ``code_challenge`` with
    ``code_challenge_method=S256`` in the authorization URL, keep ``code_verifier`` for
    ``auth.login_with_discord``."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(48)).rstrip(b"=").decode("ascii")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")
    return {"code_verifier": verifier, "code_challenge": challenge}


class Client:
    """A client of one game.

    ``Client(base_url, api_key, lang="fr", storage=None, callbacks="thread")``

    - ``base_url``: the server (``http://localhost:3000``) or the API base (``.../api/public/v1``).
    - ``lang``: ``"fr"`` or ``"en"``, sent as ``Accept-Language`` (the language of ``message``).
    - ``storage``: where the session is kept: ``MemoryStorage()`` (default) or
      ``FileStorage(path)`` to survive restarts.
    - ``callbacks``: ``"thread"`` (default): realtime callbacks run on the SDK's callback
      thread; ``"poll"``: they are queued until the game calls ``client.poll()``.
    """

    def __init__(self, base_url: str, api_key: str, lang: str = "fr", storage: Optional[Storage] = None,
                 callbacks: str = "thread", timeout_s: float = 30.0) -> None:
        if not isinstance(api_key, str) or not api_key:
            raise TypeError("Client: api_key is required")
        self.lang = "en" if lang == "en" else "fr"
        self.base_url = api_base(base_url)
        self.api_key = api_key
        self._t = Transport(self.base_url, api_key, self.lang, timeout_s)
        self._session = Session(api_key, storage if storage is not None else MemoryStorage())
        self._dispatcher = Dispatcher(callbacks)
        self._scheduler = Scheduler()
        self._workers = Workers()
        self._hub = RealtimeHub(lambda: self.realtime.config(), self.lang, self._scheduler, self._workers)
        self._accepted: Dict[str, Set[Callable[[Json, Json], None]]] = {}
        self._accepted_lock = threading.Lock()
        self.auth = Auth(self)
        self.files = Files(self)
        self.shop = Shop(self)
        self.economy = Economy(self)
        self.matchmaking = Matchmaking(self)
        self.realtime = Realtime(self)

    # -- plumbing ------------------------------------------------------------------------
    def _call(self, method: str, path: str, body: Any = None, query: Optional[Dict[str, Any]] = None,
              token: Union[str, None, bool] = True, idempotency_key: Optional[str] = None) -> Json:
        """A call with the session token (``token=None``: without); ``invalid_token`` ends the session."""
        used = self._session.token if token is True else token
        try:
            return self._t.request(method, path, body=body, query=query, token=used or None, idempotency_key=idempotency_key)
        except ManetteError as e:
            if e.error == "invalid_token" and used and self._session.token == used:
                self._session.clear()
            raise

    def _retried(self, method: str, path: str, body: Any, idempotency_key: Optional[str] = None) -> Json:
        """A POST that must not happen twice: one Idempotency-Key, the same on every retry."""
        key = idempotency_key or random_id()
        attempt = 0
        while True:
            try:
                return self._call(method, path, body=body, idempotency_key=key)
            except ManetteError as e:
                again = e.error == "network_error" or e.status in (429, 502, 503, 504)
                if not again or attempt >= len(ECONOMY_RETRY_S):
                    raise
                time.sleep(ECONOMY_RETRY_S[attempt])
                attempt += 1

    # -- surface -------------------------------------------------------------------------
    def table(self, nom: str) -> "Table":
        return Table(self, nom)

    def leaderboards(self) -> List[Json]:
        """The game's leaderboards (GET /leaderboards)."""
        return self._call("GET", "/leaderboards")["data"]

    def leaderboard(self, id: str) -> "Leaderboard":
        return Leaderboard(self, id)

    def panel(self) -> Json:
        return self._call("GET", "/panel", token=None)["data"]

    def match(self, partie_id: str) -> "Match":
        return Match(self, partie_id)

    def live_matches(self, mode_jeu: Optional[str] = None, limit: Optional[int] = None) -> List[Json]:
        """The matches in progress this player may watch (GET /match/live)."""
        return self._call("GET", "/match/live", query={"mode_jeu": mode_jeu, "limit": limit})["parties"]

    def poll(self, max_events: Optional[int] = None) -> int:
        """Runs the realtime callbacks queued so far (``callbacks="poll"``), on the calling
        thread; returns how many ran. With ``callbacks="thread"`` it does nothing."""
        return self._dispatcher.poll(max_events)

    def close(self) -> None:
        """Leaves every channel, closes the socket and stops the SDK's threads."""
        self._hub.close()
        self._scheduler.close()
        self._workers.close()
        self._dispatcher.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Auth:
    def __init__(self, c: Client) -> None:
        self._c = c

    @property
    def player(self) -> Optional[Json]:
        """The signed-in player (``joueur``), or None."""
        return self._c._session.player

    @property
    def token(self) -> Optional[str]:
        """The session token (for calls the SDK does not wrap); None when logged out."""
        return self._c._session.token

    def on_change(self, cb: Callable[[Optional[Json]], None]) -> Callable[[], None]:
        """Called (on the thread that changed it) with the player, or None on logout. Returns the remover."""
        return self._c._session.on_change(cb)

    def _signed_in(self, body: Json) -> Json:
        joueur = body["data"]["joueur"]
        self._c._session.set(body["token"], joueur)
        return joueur

    def register(self, pseudo: str, email: str, password: str, pays: Optional[str] = None) -> Json:
        body: Json = {"pseudo": pseudo, "email": email, "password": password}
        if pays is not None:
            body["pays"] = pays
        return self._signed_in(self._c._call("POST", "/players/register", body=body, token=None))

    def login(self, identifiant: Optional[str] = None, password: str = "", email: Optional[str] = None) -> Json:
        """Logs in with a pseudo or e-mail (``identifiant``), or ``email=``."""
        body: Json = {"password": password}
        if identifiant is not None:
            body["identifiant"] = identifiant
        if email is not None:
            body["email"] = email
        return self._signed_in(self._c._call("POST", "/players/login", body=body, token=None))

    def login_with_google(self, id_token: str) -> Json:
        return self._signed_in(self._c._call("POST", "/players/google", body={"id_token": id_token}, token=None))

    def login_with_token(self, fournisseur: str, jeton: str) -> Json:
        """Logs in with an identity token (POST /players/login/jeton): ``fournisseur`` is a
        provider of the game file's ``connexions``, ``jeton`` its signed token (each token
        signs in once). ``fournisseur="steam"`` sends ``jeton`` as a Steam ticket to
        POST /players/login/steam. Session kept."""
        if fournisseur == "steam":
            return self.login_with_steam(jeton)
        return self._signed_in(self._c._call("POST", "/players/login/jeton", body={"fournisseur": fournisseur, "jeton": jeton}, token=None))

    def login_with_steam(self, ticket: Union[str, bytes, bytearray]) -> Json:
        """Logs in with a Steam ticket (POST /players/login/steam): the hex of the ticket's
        bytes (``GetAuthTicketForWebApi`` or ``GetAuthSessionTicket``), or the bytes
        themselves (hex-encoded here). Each ticket signs in once. Session kept."""
        return self._signed_in(self._c._call("POST", "/players/login/steam", body={"ticket": _steam_hex(ticket)}, token=None))

    def login_with_discord(self, code: str, code_verifier: Optional[str] = None, redirect_uri: Optional[str] = None) -> Json:
        """Logs in with a Discord OAuth2 authorization code (POST /players/login/discord), with
        the PKCE verifier and redirect URI of its authorization (``create_pkce_pair()`` makes
        the pair), or the code alone from a Discord Activity. Session kept."""
        return self._signed_in(self._c._call("POST", "/players/login/discord", body=_discord_body(code, code_verifier, redirect_uri), token=None))

    def guest(self, appareil_id: Union[str, None, bool] = None) -> Json:
        """Plays without an account (POST /players/invite). By default the SDK sends this
        device's ``appareil_id`` (made on the first call, kept in ``storage``), so the same
        guest comes back; a string sends the game's own id; ``False`` sends none."""
        dev = self._c._session.device_id() if appareil_id is None or appareil_id is True else appareil_id
        body: Json = {} if dev is False else {"appareil_id": dev}
        return self._signed_in(self._c._call("POST", "/players/invite", body=body, token=None))

    def link(self, email: Optional[str] = None, password: Optional[str] = None, pseudo: Optional[str] = None,
             id_token: Optional[str] = None, fournisseur: Optional[str] = None, jeton: Optional[str] = None,
             code: Optional[str] = None, code_verifier: Optional[str] = None, redirect_uri: Optional[str] = None) -> Json:
        """Turns the signed-in guest into a full account (POST /players/lier), keeping its id:
        with ``email``/``password`` (``pseudo`` optional), a Google ``id_token``, an identity
        token (``fournisseur``, ``jeton``; a Steam ticket is ``fournisseur="steam"``,
        ``jeton=<hex ticket>``), or a Discord ``code`` (``code_verifier``, ``redirect_uri``)."""
        if id_token is not None:
            body: Json = {"id_token": id_token}
        elif code is not None:
            body = {"fournisseur": "discord", **_discord_body(code, code_verifier, redirect_uri)}
        elif jeton is not None:
            if not fournisseur:
                raise TypeError("link: jeton needs its fournisseur")
            body = {"fournisseur": fournisseur, "jeton": _steam_hex(jeton) if fournisseur == "steam" else jeton}
        else:
            body = {"email": email, "password": password}
            if pseudo is not None:
                body["pseudo"] = pseudo
        joueur = self._c._call("POST", "/players/lier", body=body)["data"]["joueur"]
        self._c._session.forget_device()
        self._c._session.set_player(joueur)
        return joueur

    def restore(self) -> Optional[Json]:
        """The kept session's player (GET /players/me), or None (none kept, or no longer valid)."""
        self._c._session.reload()
        if not self._c._session.token:
            return None
        try:
            joueur = self._c._call("GET", "/players/me")["data"]["joueur"]
        except ManetteError as e:
            if e.error in ("invalid_token", "missing_player"):
                return None
            raise
        self._c._session.set_player(joueur)
        return joueur

    def ratings(self) -> Json:
        body = self._c._call("GET", "/players/me")
        self._c._session.set_player(body["data"]["joueur"])
        return body["data"]["elo"]

    def logout(self) -> None:
        """Ends the session on the server and forgets it here (also when the server cannot be told)."""
        if not self._c._session.token:
            return
        try:
            self._c._call("POST", "/players/logout")
        except ManetteError as e:
            self._c._session.clear()
            if e.error in ("invalid_token", "network_error"):
                return
            raise
        self._c._session.clear()

    def request_reset(self, email: str) -> None:
        self._c._call("POST", "/players/mot-de-passe/oubli", body={"email": email}, token=None)

    def reset(self, email: str, code: str, password: str) -> None:
        self._c._call("POST", "/players/mot-de-passe/reinitialiser", body={"email": email, "code": code, "password": password}, token=None)
        mine = (self.player or {}).get("email")
        if isinstance(mine, str) and mine.strip().lower() == email.strip().lower():
            self._c._session.clear()

    def export_data(self) -> Json:
        return self._c._call("GET", "/players/me/export")["data"]

    def delete_account(self, password: Optional[str] = None, id_token: Optional[str] = None) -> None:
        body: Json = {"password": password} if password is not None else {"id_token": id_token} if id_token is not None else {}
        attempt = 0
        while True:
            try:
                self._c._call("POST", "/players/me/supprimer", body=body)
                break
            except ManetteError as e:
                again = e.error == "network_error" or e.status in (502, 503, 504)
                if not again or attempt >= len(ECONOMY_RETRY_S):
                    raise
                time.sleep(ECONOMY_RETRY_S[attempt])
                attempt += 1
        self._c._session.forget_device()
        self._c._session.clear()


class Table:
    def __init__(self, c: Client, nom: str) -> None:
        self._c = c
        self.nom = nom

    def _path(self, id: Optional[str] = None) -> str:
        return f"/tables/{_q(self.nom)}" + ("" if id is None else f"/{_q(str(id))}")

    def list(self, limit: Optional[int] = None, offset: Optional[int] = None, order_by: Optional[str] = None,
             order_dir: Optional[str] = None, where: Optional[Dict[str, Any]] = None) -> List[Json]:
        query: Dict[str, Any] = {"limit": limit, "offset": offset, "order_by": order_by, "order_dir": order_dir}
        query.update(where or {})
        return self._c._call("GET", self._path(), query=query)["data"]

    def get(self, id: str) -> Json:
        return self._c._call("GET", self._path(id))["data"]

    def insert(self, donnees: Json, idempotency_key: Optional[str] = None) -> Json:
        """Inserts a row (one Idempotency-Key, reused on the SDK's retries)."""
        return self._c._retried("POST", self._path(), {"donnees": donnees}, idempotency_key)["data"]

    def update(self, id: str, donnees: Json) -> Json:
        return self._c._call("PATCH", self._path(id), body={"donnees": donnees})["data"]

    def remove(self, id: str) -> Json:
        return self._c._call("DELETE", self._path(id))["data"]


class Files:
    def __init__(self, c: Client) -> None:
        self._c = c

    def upload(self, nom: str, contenu: str, mime_type: str = "text/plain", ecraser: bool = False) -> Json:
        body: Json = {"nom": nom, "contenu": contenu, "mime_type": mime_type}
        if ecraser:
            body["ecraser"] = True
        return self._c._call("POST", "/storage/upload", body=body)["data"]["fichier"]

    def list(self) -> List[Json]:
        return self._c._call("GET", "/storage/files")["data"]

    def get(self, nom: str) -> Json:
        """``{"fichier": {...}, "contenu": "..."}``"""
        return self._c._call("GET", f"/storage/files/{_q(nom)}")["data"]

    def remove(self, nom: str) -> Json:
        return self._c._call("DELETE", f"/storage/files/{_q(nom)}")["data"]["fichier"]


class Leaderboard:
    def __init__(self, c: Client, id: str) -> None:
        self._c = c
        self.id = id
        self._path = f"/leaderboards/{_q(id)}"

    def submit(self, valeur: float) -> Json:
        """``{"valeur", "rang", "ameliore"}``"""
        return self._c._call("POST", f"{self._path}/submit", body={"valeur": valeur})["data"]

    def scores(self, limit: Optional[int] = None, offset: Optional[int] = None, autour: Optional[str] = None) -> List[Json]:
        return self._c._call("GET", f"{self._path}/scores", query={"limit": limit, "offset": offset, "autour": autour})["data"]


class Shop:
    def __init__(self, c: Client) -> None:
        self._c = c

    def articles(self) -> List[Json]:
        return self._c._call("GET", "/shop/articles")["data"]


class Economy:
    def __init__(self, c: Client) -> None:
        self._c = c

    def wallet(self) -> List[Json]:
        """Every currency of the game with the player's balance (GET /economie/portefeuille)."""
        return self._c._call("GET", "/economie/portefeuille")["data"]

    def inventory(self) -> List[Json]:
        """The objects the player holds (GET /economie/inventaire)."""
        return self._c._call("GET", "/economie/inventaire")["data"]

    def buy(self, code: str, quantite: Optional[int] = None, idempotency_key: Optional[str] = None) -> Json:
        """Buys ``quantite`` (default 1) of the article ``code`` (POST /shop/acheter):
        ``{"achat", "portefeuille", "inventaire"}``. One Idempotency-Key per call (made by the
        SDK unless given), sent again on the SDK's own retries, so a lost answer never buys twice."""
        body: Json = {"code": code}
        if quantite is not None:
            body["quantite"] = quantite
        return self._c._retried("POST", "/shop/acheter", body, idempotency_key)["data"]

    def use(self, objet: str, quantite: int = 1, idempotency_key: Optional[str] = None) -> List[Json]:
        """Consumes objects (POST /economie/utiliser): the new inventory."""
        return self._c._retried("POST", "/economie/utiliser", {"objet": objet, "quantite": quantite}, idempotency_key)["data"]["inventaire"]

    def history(self, limit: Optional[int] = None, avant: Optional[int] = None) -> Json:
        return self._c._call("GET", "/economie/historique", query={"limit": limit, "avant": avant})["data"]


class Matchmaking:
    def __init__(self, c: Client) -> None:
        self._c = c

    def join(self, mode_jeu: str, elo_actuel: float = 1000) -> Json:
        """``{"status": "waiting", ...}`` or ``{"status": "matched", "partie_id", "participants", ...}``"""
        return _without_ok(self._c._call("POST", "/matchmaking/join", body={"mode_jeu": mode_jeu, "elo_actuel": elo_actuel}))

    def status(self) -> Json:
        return _without_ok(self._c._call("GET", "/matchmaking/status"))

    def leave(self) -> Json:
        return _without_ok(self._c._call("POST", "/matchmaking/leave"))

    def wait_for_match(self, poll_s: float = 2.0, timeout_s: Optional[float] = None) -> Json:
        """Blocks until the status is ``matched``: the player channel's ``matched`` event, with
        polling (every ``poll_s``, also the queue's heartbeat) as the fallback. Raises
        ManetteError ``not_queued`` when the player is not in a queue, ``timeout`` after ``timeout_s``."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        s = self.status()
        if s.get("status") == "matched":
            return s
        heard: List[Json] = []
        woken = threading.Event()

        def matched(payload: Any) -> None:
            if isinstance(payload, dict) and isinstance(payload.get("partie_id"), str):
                heard.append({**payload, "status": "matched"})
                woken.set()
        channel: Optional[ChannelHandle] = None
        me = (self._c.auth.player or {}).get("id")
        if me:
            try:
                channel = self._c._hub.join(lambda cfg: f"manette_joueur_{me}", {"matched": matched}, lambda: None, None, True)
            except ManetteError:
                channel = None  # Realtime unavailable: polling alone
        try:
            while True:
                if s.get("status") == "idle":
                    en = self._c.lang == "en"
                    raise ManetteError("not_queued", 0, "Not in the matchmaking queue." if en else "Pas dans la file d’attente.")
                wait = max(0.2, poll_s)
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise ManetteError("timeout", 0, "No match yet." if self._c.lang == "en" else "Pas encore de partie.")
                    wait = min(wait, left)
                if woken.wait(wait):
                    return {k: v for k, v in heard[0].items() if k not in ("ok", "id")}
                s = self.status()
                if s.get("status") == "matched":
                    return s
        finally:
            if channel is not None:
                channel.stop()


class Realtime:
    def __init__(self, c: Client) -> None:
        self._c = c

    @property
    def renewals(self) -> int:
        """How many times the realtime token was renewed on the open socket."""
        return self._c._hub.renewals

    def subscribe_player(self, events: Dict[str, Callable[[Json], None]], on_joined: Optional[Callable[[], None]] = None,
                         on_error: Optional[Callable[[ManetteError], None]] = None) -> "PlayerChannel":
        """Joins the signed-in player's own channel ``manette_joueur_<id>`` (events ``matched``,
        and the others' ``etat`` in ``etat_aux_autres``); ``events`` maps an event name to its
        callback (run like the match callbacks: SDK thread or ``poll()``). Returns once joined."""
        me = (self._c.auth.player or {}).get("id")
        if not me:
            en = self._c.lang == "en"
            raise ManetteError("missing_player", 0, "You need to be logged in." if en else "Vous devez être connecté.")
        d = self._c._dispatcher
        wrapped = {name: (lambda fn: (lambda payload: d.emit(fn, payload)))(fn) for name, fn in events.items()}
        handle = self._c._hub.join(lambda cfg: f"manette_joueur_{me}", wrapped,
                                   (lambda: d.emit(on_joined)) if on_joined else (lambda: None),
                                   (lambda e: d.emit(on_error, e)) if on_error else None, True)
        return PlayerChannel(handle)

    def config(self) -> Json:
        """``{url, key, channel_prefix, private, token, token_expire_le[, evenements]}`` (GET /realtime/config)."""
        return _without_ok(self._c._call("GET", "/realtime/config"))


class PlayerChannel:
    def __init__(self, handle: ChannelHandle) -> None:
        self._handle = handle

    def close(self) -> None:
        self._handle.stop()


class Match:
    def __init__(self, c: Client, partie_id: str) -> None:
        self._c = c
        self.id = partie_id

    def state(self) -> Json:
        """The match (``partie``) as the server has it: the authority (GET /match/state)."""
        return self._c._call("GET", "/match/state", query={"partie_id": self.id})["partie"]

    def history(self, depuis: Optional[int] = None, limit: Optional[int] = None) -> Json:
        """One page of accepted actions: ``{partie_id, etat_initial, actions, suivant, ...}``."""
        return _without_ok(self._c._call("GET", "/match/history", query={"partie_id": self.id, "depuis": depuis, "limit": limit}))

    def all_actions(self) -> List[Json]:
        """Every accepted action of the match, reading every page of its history."""
        page = self.history(limit=500)
        actions = list(page["actions"])
        while page.get("suivant") is not None:
            page = self.history(depuis=page["suivant"], limit=500)
            actions.extend(page["actions"])
        return actions

    def act(self, action: str, donnees: Optional[Json] = None, numero_tour: Optional[int] = None) -> Json:
        """Plays one action (POST /match/action): the new ``partie``. A refusal raises
        ManetteError ``action_refusee`` with its ``reason``."""
        sent: Json = {"action": action, "donnees": donnees or {}, "numero_tour": numero_tour}
        body: Json = {"partie_id": self.id, "action": action, "donnees": donnees or {}}
        if numero_tour is not None:
            body["numero_tour"] = numero_tour
        partie = self._c._call("POST", "/match/action", body=body)["partie"]
        with self._c._accepted_lock:
            told = list(self._c._accepted.get(self.id, ()))
        for fn in told:
            fn(partie, sent)
        return partie

    def subscribe(self, on_action: Optional[Callable[[Json], None]] = None, on_etat: Optional[Callable[[Json], None]] = None,
                  on_error: Optional[Callable[[ManetteError], None]] = None, poll_s: float = DEFAULT_POLL_S) -> "Subscription":
        """Joins the match's realtime room; returns once joined (raises ManetteError
        ``realtime_refused`` when refused, e.g. not a participant).

        ``on_action(action)``: ``{joueur_id, action, donnees, numero_tour}`` for every action.
        ``on_etat(partie)``: the match's state, never older than the last one given: each
        ``etat`` event, and a fresh ``GET /match/state`` whenever an event may have been
        missed: after every (re)join, on a gap in ``numero_tour``, when the ``etat`` of this
        client's own accepted action has not come within 2 s, and after ``poll_s`` seconds
        (default 15, at least 0.5) without any event while the match is on.
        ``on_error(err)``: the room cannot be joined any more, or a re-read was refused.
        """
        sub = Subscription(self, on_action, on_etat, on_error, poll_s)
        sub._start()
        return sub


class Subscription:
    """A match followed in realtime; ``close()`` leaves it. ``latest``: the last state given."""

    def __init__(self, match: Match, on_action: Optional[Callable[[Json], None]], on_etat: Optional[Callable[[Json], None]],
                 on_error: Optional[Callable[[ManetteError], None]], poll_s: float) -> None:
        self._m = match
        self._c = match._c
        self._on_action = on_action
        self._on_etat = on_etat
        self._on_error = on_error
        self.poll_s = max(MIN_POLL_S, float(poll_s))
        self._lock = threading.RLock()
        self.latest: Optional[Json] = None
        self._stopped = False
        self._last_heard = time.monotonic()
        self._reading = False
        self._again = False
        self._own_waits: Set[Timer] = set()
        self._poll_timer: Optional[Timer] = None
        self._channel: Optional[ChannelHandle] = None
        #: The game's realtime.evenements, whether this client listens on its own channel
        #: (a participant in etat_aux_autres), and the topic joined.
        self.setting = "action_etat"
        self.own_channel = False
        self.topic: Optional[str] = None
        #: How many times the room was joined (1 + the rejoins) and the state re-read.
        self.joins = 0
        self.rereads = 0
        self._me = (self._c.auth.player or {}).get("id")

    # -- state ---------------------------------------------------------------------------
    def _deliver(self, p: Json) -> None:
        """Never back to an older state (events and re-reads may cross); terminee and annulee are final."""
        with self._lock:
            if self._stopped:
                return
            last = self.latest
            if last is not None:
                if p.get("numero_tour", 0) < last.get("numero_tour", 0):
                    return
                if p.get("numero_tour") == last.get("numero_tour"):
                    a, b = parse_time(p.get("maj_le")), parse_time(last.get("maj_le"))
                    if a is not None and b is not None and a < b:
                        return
                if last.get("statut") != "en_cours" and p.get("statut") == "en_cours":
                    return
            self.latest = p
            self._c._dispatcher.emit(self._on_etat, p)

    def _played(self, e: Json) -> None:
        with self._lock:
            # Played in a turn after the last state known: an etat was missed.
            if self._gap(e.get("numero_tour"), 0):
                self._reread()
            if not self._stopped:
                self._c._dispatcher.emit(self._on_action, e)

    def _gap(self, numero_tour: Any, ahead: int) -> bool:
        return isinstance(numero_tour, int) and self.latest is not None and numero_tour > self.latest.get("numero_tour", 0) + ahead

    def _reread(self) -> None:
        """One read at a time; a request made meanwhile runs once it ends."""
        with self._lock:
            if self._stopped:
                return
            if self._reading:
                self._again = True
                return
            self._reading = True
            # Counted as it is decided, with the event that called for it (not when a worker
            # thread gets to it): whoever saw that event sees the count.
            self.rereads += 1
        self._c._workers.submit(self._read_once)

    def _read_once(self) -> None:
        try:
            p = self._m.state()
            with self._lock:
                self._last_heard = time.monotonic()
            self._deliver(p)
        except ManetteError as e:
            if e.error != "network_error":
                self._c._dispatcher.emit(self._on_error, e)
        finally:
            with self._lock:
                self._reading = False
                again = self._again
                self._again = False
            if again:
                self._reread()

    # -- own actions ---------------------------------------------------------------------
    def _expect_own(self, partie: Json, sent: Json) -> None:
        with self._lock:
            if self._stopped:
                return
            if self.own_channel:
                # Nothing comes back on the own channel: the HTTP answer is delivered as the
                # room would have, the action then its state.
                self._last_heard = time.monotonic()
                last = self.latest
                turn = sent.get("numero_tour")
                if turn is None:
                    turn = last["numero_tour"] if last and last.get("numero_tour", 0) <= partie.get("numero_tour", 0) else partie.get("numero_tour")
                newer = last is None or partie.get("numero_tour", 0) > last.get("numero_tour", 0) or \
                    (parse_time(partie.get("maj_le")) or 0) > (parse_time(last.get("maj_le")) or 0)
                if newer:
                    self._c._dispatcher.emit(self._on_action, {"joueur_id": self._me, "action": sent["action"],
                                                               "donnees": sent["donnees"], "numero_tour": turn})
                self._deliver(partie)
                return
            numero = partie.get("numero_tour", 0)
            if self.latest is not None and self.latest.get("numero_tour", 0) >= numero:
                return
            holder: List[Timer] = []

            def late() -> None:
                with self._lock:
                    if holder:
                        self._own_waits.discard(holder[0])
                    if self.latest is None or self.latest.get("numero_tour", 0) < numero:
                        log.debug("manette: own etat of turn %s late, re-reading", numero)
                        self._reread()
            t = self._c._scheduler.call_later(OWN_ETAT_WAIT_S, late)
            holder.append(t)
            self._own_waits.add(t)

    # -- silence -------------------------------------------------------------------------
    def _poll_tick(self) -> None:
        with self._lock:
            if self._stopped:
                return
            on = (self.latest or {}).get("statut", "en_cours") == "en_cours"
            if on and time.monotonic() - self._last_heard >= self.poll_s:
                self._last_heard = time.monotonic()
                self._reread()
            self._poll_timer = self._c._scheduler.call_later(max(0.25, self.poll_s / 4), self._poll_tick)

    # -- events --------------------------------------------------------------------------
    def _ev_action(self, payload: Any) -> None:
        if not isinstance(payload, dict):
            return
        with self._lock:
            self._last_heard = time.monotonic()
        self._played(payload)

    def _ev_etat(self, payload: Any) -> None:
        if not isinstance(payload, dict):
            return
        # A player's own channel carries the events of all its matches.
        if payload.get("id") != self._m.id:
            return
        with self._lock:
            self._last_heard = time.monotonic()
            action = payload.get("action")
            if self.setting != "action_etat" and isinstance(action, dict):
                # One event per action: the action it carries, then the state.
                partie = {k: v for k, v in payload.items() if k != "action"}
                self._played(action)
                if self._gap(partie.get("numero_tour"), 1):
                    self._reread()
                self._deliver(partie)
                return
            if self._gap(payload.get("numero_tour"), 1):
                self._reread()
            self._deliver(payload)

    def _joined(self) -> None:
        # Every (re)join follows a gap in which events may have been missed.
        with self._lock:
            self.joins += 1
            self._reread()

    def _fatal(self, err: ManetteError) -> None:
        self._c._dispatcher.emit(self._on_error, err)

    def _topic_of(self, cfg: Json) -> str:
        self.setting = cfg.get("evenements") or "action_etat"
        self.topic = cfg["channel_prefix"] + self._m.id
        if self.setting != "etat_aux_autres" or not self._me:
            return self.topic
        # etat_aux_autres: a participant hears the others' actions on its own channel; a
        # spectator on the room. Which one is this client: the state says.
        p = self.latest or self._m.state()
        self._deliver(p)
        self.own_channel = any(x.get("joueur_id") == self._me for x in p.get("participants") or [])
        if self.own_channel:
            self.topic = f"manette_joueur_{self._me}"
        return self.topic

    def _start(self) -> None:
        with self._c._accepted_lock:
            self._c._accepted.setdefault(self._m.id, set()).add(self._expect_own)
        try:
            self._channel = self._c._hub.join(self._topic_of, {"action": self._ev_action, "etat": self._ev_etat},
                                              self._joined, self._fatal)
        except BaseException:
            self._end()
            raise
        with self._lock:
            self._last_heard = time.monotonic()
            self._poll_timer = self._c._scheduler.call_later(max(0.25, self.poll_s / 4), self._poll_tick)

    def _end(self) -> None:
        with self._lock:
            self._stopped = True
            if self._poll_timer:
                self._poll_timer.cancel()
            for t in self._own_waits:
                t.cancel()
            self._own_waits.clear()
        with self._c._accepted_lock:
            s = self._c._accepted.get(self._m.id)
            if s is not None:
                s.discard(self._expect_own)
                if not s:
                    del self._c._accepted[self._m.id]

    def refresh(self) -> None:
        """Re-reads the state now (e.g. after the game was paused)."""
        self._reread()

    def close(self) -> None:
        self._end()
        if self._channel is not None:
            self._channel.stop()
            self._channel = None

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
