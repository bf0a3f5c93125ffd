"""Where the session is kept: in memory (default) or in a JSON file (survives restarts)."""
from __future__ import annotations

import base64
import json
import os
import re
import secrets
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional, Protocol

from .http import short_hash


class Storage(Protocol):
    """The storage interface (the browser's localStorage subset): string keys and values."""

    def get_item(self, key: str) -> Optional[str]: ...
    def set_item(self, key: str, value: str) -> None: ...
    def remove_item(self, key: str) -> None: ...


class MemoryStorage:
    """Kept for the life of the process only (the default)."""

    def __init__(self) -> None:
        self._items: Dict[str, str] = {}
        self._lock = threading.Lock()

    def get_item(self, key: str) -> Optional[str]:
        with self._lock:
            return self._items.get(key)

    def set_item(self, key: str, value: str) -> None:
        with self._lock:
            self._items[key] = value

    def remove_item(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)


class FileStorage:
    """A JSON object in one file, rewritten atomically (temp file + rename), owner-only (0600).

    Two clients (or two runs of a game) given the same path share the session, as two
    tabs share localStorage; each read goes to the file, so a restart finds what was kept.
    """

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._lock = threading.Lock()

    def _read(self) -> Dict[str, str]:
        try:
            with open(self.path, "r", encoding="utf-8") as f:
                data = json.load(f)
            return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _write(self, data: Dict[str, str]) -> None:
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".manette-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def get_item(self, key: str) -> Optional[str]:
        with self._lock:
            return self._read().get(key)

    def set_item(self, key: str, value: str) -> None:
        with self._lock:
            data = self._read()
            data[key] = value
            self._write(data)

    def remove_item(self, key: str) -> None:
        with self._lock:
            data = self._read()
            if key in data:
                del data[key]
                self._write(data)


DEVICE_ID = re.compile(r"^[A-Za-z0-9_-]{16,128}$")


def new_device_id() -> str:
    """32 characters of base64url from 24 random bytes."""
    return base64.urlsafe_b64encode(secrets.token_bytes(24)).decode("ascii")


class Session:
    """The player's session for one game (keyed by the API key), kept in ``storage``."""

    def __init__(self, api_key: str, storage: Storage):
        self.key = f"manette.session.{short_hash(api_key)}"
        self.device_key = f"manette.appareil.{short_hash(api_key)}"
        self._storage = storage
        self._lock = threading.RLock()
        self._memory_device: Optional[str] = None
        self._listeners: List[Callable[[Optional[Dict[str, Any]]], None]] = []
        self.token: Optional[str] = None
        self.player: Optional[Dict[str, Any]] = None
        self._load()

    def _load(self) -> None:
        saved = None
        try:
            raw = self._storage.get_item(self.key)
            saved = json.loads(raw) if raw else None
        except (ValueError, OSError):
            saved = None
        token = saved.get("token") if isinstance(saved, dict) else None
        self.token = token if isinstance(token, str) and token else None
        self.player = saved.get("joueur") if self.token and isinstance(saved, dict) else None

    def reload(self) -> None:
        with self._lock:
            self._load()

    def set(self, token: str, joueur: Dict[str, Any]) -> None:
        with self._lock:
            self.token = token
            self.player = joueur
            self._save()
        self._emit()

    def set_player(self, joueur: Dict[str, Any]) -> None:
        with self._lock:
            if not self.token:
                return
            self.player = joueur
            self._save()
        self._emit()

    def clear(self) -> None:
        with self._lock:
            had = self.token is not None
            self.token = None
            self.player = None
            try:
                self._storage.remove_item(self.key)
            except OSError:
                pass
        if had:
            self._emit()

    def device_id(self) -> str:
        """The device's guest id: the kept one, else a new random one, kept at once."""
        with self._lock:
            dev = self._memory_device
            try:
                dev = self._storage.get_item(self.device_key) or dev
            except OSError:
                pass
            if dev and DEVICE_ID.match(dev):
                return dev
            dev = new_device_id()
            self._memory_device = dev
            try:
                self._storage.set_item(self.device_key, dev)
            except OSError:
                pass
            return dev

    def forget_device(self) -> None:
        with self._lock:
            self._memory_device = None
            try:
                self._storage.remove_item(self.device_key)
            except OSError:
                pass

    def on_change(self, cb: Callable[[Optional[Dict[str, Any]]], None]) -> Callable[[], None]:
        self._listeners.append(cb)
        return lambda: self._listeners.remove(cb) if cb in self._listeners else None

    def _save(self) -> None:
        try:
            self._storage.set_item(self.key, json.dumps({"token": self.token, "joueur": self.player}, ensure_ascii=False))
        except OSError:
            pass

    def _emit(self) -> None:
        for cb in list(self._listeners):
            try:
                cb(self.player)
            except Exception:  # a listener's exception must not break the SDK
                pass
