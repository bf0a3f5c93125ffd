"""Realtime for the SDK: a Phoenix socket (vsn 1.0.0, JSON) to Supabase Realtime or the local
stand-in, its channels, and the hub that shares them and renews the token (mirrors
sdk/src/realtime.ts, where realtime-js does the socket part).

Threads: one reader thread per socket (it also sends the heartbeats), which calls the
channels' listeners; the hub's timers run on the client's Scheduler, its HTTP calls on the
client's Workers.
"""
from __future__ import annotations

import itertools
import json
import logging
import threading
import time
import urllib.parse
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional

import websocket  # websocket-client (Debian: python3-websocket)

from ._runtime import Scheduler, Timer, Workers
from .errors import ManetteError, realtime_error

log = logging.getLogger("manette.realtime")

HEARTBEAT_S = 25.0
#: Waits before reconnecting a dropped socket: 1 s, 2 s, 5 s, then 10 s (realtime-js's).
RECONNECT_S = [1.0, 2.0, 5.0, 10.0]
JOIN_TIMEOUT_S = 10.0
FIRST_JOIN_TIMEOUT_S = 15.0
#: Renew this long before the token's expiry (or at half its life when that is sooner).
RENEW_BEFORE_S = 60.0
RENEW_RETRY_S = 5.0
#: A channel the server closed is joined again after 1 s, 2 s, 4 s... at most this.
REJOIN_MAX_S = 10.0
MAX_JOIN_ERRORS = 5

Events = Dict[str, Callable[[Any], None]]


def websocket_url(url: str, apikey: str) -> str:
    """``<url>/websocket?apikey=<key>&vsn=1.0.0`` with http(s) turned into ws(s)."""
    if url.startswith("https://"):
        url = "wss://" + url[len("https://"):]
    elif url.startswith("http://"):
        url = "ws://" + url[len("http://"):]
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/websocket"):
        path += "/websocket"
    query = urllib.parse.parse_qsl(parts.query)
    query = [(k, v) for k, v in query if k not in ("apikey", "vsn")] + [("apikey", apikey), ("vsn", "1.0.0")]
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, urllib.parse.urlencode(query), ""))


def parse_time(s: Optional[str]) -> Optional[float]:
    """ISO 8601 (``2026-11-25T16:08:00.279Z``) -> Unix seconds; None when absent or unreadable."""
    if not isinstance(s, str) or not s:
        return None
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class PhoenixSocket:
    """One WebSocket, reconnected with backoff when it drops; its channels joined again."""

    def __init__(self, url: str, apikey: str, on_state: Optional[Callable[[bool], None]] = None) -> None:
        self.url = websocket_url(url, apikey)
        self._lock = threading.RLock()
        self._send_lock = threading.Lock()
        self._ws: Optional[websocket.WebSocket] = None
        self._refs = itertools.count(1)
        self._closed = threading.Event()
        self.channels: Dict[str, "Channel"] = {}
        self._on_state = on_state
        self.connected = False
        self._thread = threading.Thread(target=self._run, name="manette-realtime", daemon=True)
        self._thread.start()

    def make_ref(self) -> str:
        return str(next(self._refs))

    def push(self, topic: str, event: str, payload: Any, ref: Optional[str] = None, join_ref: Optional[str] = None) -> bool:
        """Sends one message; False when the socket is not open (the caller retries after the reconnection)."""
        msg = {"topic": topic, "event": event, "payload": payload, "ref": ref if ref is not None else self.make_ref()}
        if join_ref is not None:
            msg["join_ref"] = join_ref
        ws = self._ws
        if ws is None:
            return False
        try:
            with self._send_lock:
                ws.send(json.dumps(msg, separators=(",", ":")))
            return True
        except Exception as e:  # the reader notices the drop and reconnects
            log.debug("realtime: send failed: %s", e)
            return False

    def _run(self) -> None:
        attempt = 0
        while not self._closed.is_set():
            try:
                ws = websocket.create_connection(self.url, timeout=10, enable_multithread=True)
            except Exception as e:
                log.debug("realtime: connect failed: %s", e)
                self._closed.wait(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)])
                attempt += 1
                continue
            attempt = 0
            with self._lock:
                if self._closed.is_set():
                    ws.close()
                    return
                self._ws = ws
                self.connected = True
                channels = list(self.channels.values())
            log.debug("realtime: connected")
            if self._on_state:
                self._on_state(True)
            for ch in channels:
                ch._socket_open()
            try:
                self._read(ws)
            finally:
                with self._lock:
                    self._ws = None
                    self.connected = False
                    channels = list(self.channels.values())
                try:
                    ws.close()
                except Exception:
                    pass
                for ch in channels:
                    ch._socket_lost()
                if self._on_state and not self._closed.is_set():
                    self._on_state(False)
            if not self._closed.is_set():
                log.debug("realtime: socket lost, reconnecting")
                self._closed.wait(RECONNECT_S[0])

    def _read(self, ws: websocket.WebSocket) -> None:
        ws.settimeout(1.0)
        next_heartbeat = time.monotonic() + HEARTBEAT_S
        pending: Optional[str] = None
        while not self._closed.is_set():
            now = time.monotonic()
            if now >= next_heartbeat:
                if pending is not None:
                    log.debug("realtime: heartbeat not answered, reconnecting")
                    return
                pending = self.make_ref()
                if not self.push("phoenix", "heartbeat", {}, ref=pending):
                    return
                next_heartbeat = now + HEARTBEAT_S
            try:
                raw = ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except Exception as e:
                log.debug("realtime: socket closed: %s", e)
                return
            if raw is None or raw == "" or raw == b"":
                if not ws.connected:
                    return
                continue
            try:
                msg = json.loads(raw)
            except (ValueError, TypeError):
                continue
            if not isinstance(msg, dict):
                continue
            topic = msg.get("topic")
            if topic == "phoenix":
                if msg.get("event") == "phx_reply" and msg.get("ref") == pending:
                    pending = None
                continue
            with self._lock:
                ch = self.channels.get(topic) if isinstance(topic, str) else None
            if ch is not None:
                try:
                    ch._handle(msg)
                except Exception:
                    log.exception("realtime: message handling failed")

    def add(self, ch: "Channel") -> None:
        with self._lock:
            self.channels[ch.topic] = ch

    def remove(self, ch: "Channel") -> None:
        with self._lock:
            if self.channels.get(ch.topic) is ch:
                del self.channels[ch.topic]

    def close(self) -> None:
        self._closed.set()
        ws = self._ws
        if ws is not None:
            try:
                ws.close()
            except Exception:
                pass


class Listener:
    def __init__(self, events: Events, on_joined: Callable[[], None], on_fatal: Optional[Callable[[ManetteError], None]]):
        self.events = events
        self.on_joined = on_joined
        self.on_fatal = on_fatal


class Channel:
    """One topic on the socket, its events told to every listener; joined again whenever it is lost."""

    def __init__(self, hub: "RealtimeHub", socket: PhoenixSocket, sub_topic: str, private: bool) -> None:
        self.hub = hub
        self.socket = socket
        self.sub_topic = sub_topic
        self.topic = "realtime:" + sub_topic
        self.private = private
        self.listeners: List[Listener] = []
        self._lock = threading.RLock()
        self.state = "closed"  # closed | joining | joined
        self.join_ref: Optional[str] = None
        self.stopped = False
        self.first = True
        self.first_done = threading.Event()
        self.first_error: Optional[ManetteError] = None
        self._first_retried = False
        self.errors = 0
        self.closes = 0
        self._join_timer: Optional[Timer] = None
        self._retry: Optional[Timer] = None
        self.last_system: Optional[str] = None

    # -- joining -------------------------------------------------------------------------
    def start(self) -> None:
        self.socket.add(self)
        if self.socket.connected:
            self._join()

    def _payload(self) -> Dict[str, Any]:
        payload: Dict[str, Any] = {"config": {"broadcast": {"self": False}, "presence": {"enabled": False}, "private": self.private}}
        token = self.hub.token
        if self.private and token:
            payload["access_token"] = token
        return payload

    def _join(self) -> None:
        with self._lock:
            if self.stopped or self.state == "joining" or self.state == "joined":
                return
            ref = self.socket.make_ref()
            self.join_ref = ref
            self.state = "joining"
            if not self.socket.push(self.topic, "phx_join", self._payload(), ref=ref, join_ref=ref):
                self.state = "closed"  # joined once the socket is open again
                return
            if self._join_timer:
                self._join_timer.cancel()
            self._join_timer = self.hub.scheduler.call_later(JOIN_TIMEOUT_S, lambda: self._join_timed_out(ref))

    def _join_timed_out(self, ref: str) -> None:
        with self._lock:
            if self.stopped or self.join_ref != ref or self.state != "joining":
                return
            self.state = "closed"
        log.debug("realtime: join of %s not answered in time", self.sub_topic)
        self._rejoin_later()

    def _socket_open(self) -> None:
        self._join()

    def _socket_lost(self) -> None:
        with self._lock:
            self.state = "closed"
            if self._join_timer:
                self._join_timer.cancel()

    def _rejoin_later(self) -> None:
        """Joined again after 1 s, 2 s, 4 s... (at most 10 s), with a fresh token."""
        with self._lock:
            if self.stopped:
                return
            delay = min(REJOIN_MAX_S, 1.0 * (2 ** self.closes))
            self.closes += 1
            if self._retry:
                self._retry.cancel()

            def again() -> None:
                self.hub.workers.submit(lambda: (self.hub.renew(), self._join()))
            self._retry = self.hub.scheduler.call_later(delay, again)

    # -- messages ------------------------------------------------------------------------
    def _handle(self, msg: Dict[str, Any]) -> None:
        event = msg.get("event")
        payload = msg.get("payload")
        if event == "broadcast" and isinstance(payload, dict):
            name = payload.get("event")
            if isinstance(name, str):
                for l in list(self.listeners):
                    fn = l.events.get(name)
                    if fn is not None:
                        try:
                            fn(payload.get("payload"))
                        except Exception:
                            log.exception("realtime: listener failed")
            return
        if event == "phx_reply":
            with self._lock:
                if msg.get("ref") != self.join_ref or self.state != "joining":
                    return
                if self._join_timer:
                    self._join_timer.cancel()
                ok = isinstance(payload, dict) and payload.get("status") == "ok"
                if ok:
                    self.state = "joined"
                    self.errors = 0
                    self.closes = 0
                    first = self.first
                    self.first = False
                else:
                    self.state = "closed"
                    resp = payload.get("response") if isinstance(payload, dict) else None
                    reason = resp.get("reason") if isinstance(resp, dict) else None
            if ok:
                log.debug("realtime: joined %s", self.sub_topic)
                if first:
                    self.first_done.set()
                for l in list(self.listeners):
                    try:
                        l.on_joined()
                    except Exception:
                        log.exception("realtime: on_joined failed")
                return
            self._refused(reason if isinstance(reason, str) else None)
            return
        if event == "system":
            if isinstance(payload, dict) and payload.get("status") == "error":
                self.last_system = payload.get("message") if isinstance(payload.get("message"), str) else None
                log.debug("realtime: %s: system error %s", self.sub_topic, self.last_system)
            return
        if event in ("phx_close", "phx_error"):
            with self._lock:
                ref = msg.get("ref")
                if ref is not None and ref != self.join_ref:
                    return  # a former join's close
                if self.stopped or self.state == "closed":
                    return
                self.state = "closed"
            log.debug("realtime: %s closed by the server (%s)", self.sub_topic, self.last_system)
            self._rejoin_later()

    def _refused(self, reason: Optional[str]) -> None:
        log.debug("realtime: join of %s refused: %s", self.sub_topic, reason)
        with self._lock:
            if self.first:
                # An expired token is worth one more try with a fresh one; a second refusal is final.
                if not self._first_retried:
                    self._first_retried = True
                    self.hub.workers.submit(lambda: (self.hub.renew(), self._join()))
                    return
                self.first = False
                self.first_error = realtime_error(self.hub.lang, "realtime_refused", reason)
                self.first_done.set()
                return
            self.errors += 1
            fatal = self.errors >= MAX_JOIN_ERRORS
        if fatal:
            err = realtime_error(self.hub.lang, "realtime_refused", reason)
            told = list(self.listeners)
            self.hub._drop(self)
            for l in told:
                if l.on_fatal:
                    l.on_fatal(err)
        else:
            self._rejoin_later()

    def send_token(self, token: str) -> None:
        with self._lock:
            if self.state != "joined" or not self.private:
                return
            self.socket.push(self.topic, "access_token", {"access_token": token}, join_ref=self.join_ref)

    def stop(self) -> None:
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            joined = self.state == "joined"
            self.state = "closed"
            for t in (self._join_timer, self._retry):
                if t:
                    t.cancel()
        if joined:
            self.socket.push(self.topic, "phx_leave", {}, join_ref=self.join_ref)
        self.socket.remove(self)


class ChannelHandle:
    def __init__(self, stop: Callable[[], None]) -> None:
        self._stop = stop

    def stop(self) -> None:
        self._stop()


class RealtimeHub:
    """One socket per client, opened on the first subscription and closed after the last;
    the token from ``GET /realtime/config`` renewed before it expires and handed to every
    joined channel (``access_token``), as realtime-js ``setAuth`` does."""

    def __init__(self, config: Callable[[], Dict[str, Any]], lang: str, scheduler: Scheduler, workers: Workers) -> None:
        self._config = config
        self.lang = lang
        self.scheduler = scheduler
        self.workers = workers
        self._lock = threading.RLock()
        self._renew_lock = threading.Lock()
        self.socket: Optional[PhoenixSocket] = None
        self.cfg: Optional[Dict[str, Any]] = None
        self.token: Optional[str] = None
        self.token_expires: Optional[float] = None
        self._renew_timer: Optional[Timer] = None
        self._topics: Dict[str, Channel] = {}
        self._users = 0
        self.renewals = 0

    def _open(self) -> PhoenixSocket:
        with self._lock:
            if self.socket is not None:
                return self.socket
            cfg = self._config()
            self.cfg = cfg
            self._set_token(cfg)
            self.socket = PhoenixSocket(cfg["url"], cfg["key"])
            return self.socket

    def _set_token(self, cfg: Dict[str, Any]) -> None:
        token = cfg.get("token")
        self.token = token if isinstance(token, str) else None
        self.token_expires = parse_time(cfg.get("token_expire_le"))
        self._schedule_renew()

    def _schedule_renew(self) -> None:
        if self._renew_timer:
            self._renew_timer.cancel()
            self._renew_timer = None
        if self.token_expires is None:
            return
        left = self.token_expires - time.time()
        delay = max(1.0, min(left - RENEW_BEFORE_S, left / 2))
        self._renew_timer = self.scheduler.call_later(delay, lambda: self.workers.submit(self._renew_scheduled))

    def _renew_scheduled(self) -> None:
        if self.socket is not None:
            self.renew()

    def renew(self) -> None:
        """A fresh token for the open socket and its joined channels; retried every 5 s on failure."""
        if self.socket is None:
            return
        with self._renew_lock:
            try:
                cfg = self._config()
            except ManetteError as e:
                if e.error in ("invalid_token", "missing_player"):
                    return  # a revoked session: the channels close when the token expires
                with self._lock:
                    if self._renew_timer:
                        self._renew_timer.cancel()
                    self._renew_timer = self.scheduler.call_later(RENEW_RETRY_S, lambda: self.workers.submit(self._renew_scheduled))
                return
            with self._lock:
                if self.socket is None:
                    return
                self.cfg = cfg
                self._set_token(cfg)
                self.renewals += 1
                channels = list(self._topics.values())
            if self.token:
                for ch in channels:
                    ch.send_token(self.token)

    def join(self, topic_of: Callable[[Dict[str, Any]], str], events: Events, on_joined: Callable[[], None],
             on_fatal: Optional[Callable[[ManetteError], None]] = None, private: Optional[bool] = None) -> ChannelHandle:
        """Joins the topic ``topic_of(cfg)`` names; blocks until it is joined the first time
        (raises ManetteError ``realtime_refused`` / ``realtime_unavailable`` otherwise).
        ``on_joined`` is called on every (re)join; ``on_fatal`` when the channel is given up."""
        with self._lock:
            self._users += 1
        try:
            socket = self._open()
            assert self.cfg is not None
            topic = topic_of(self.cfg)
            listener = Listener(events, on_joined, on_fatal)
            with self._lock:
                ch = self._topics.get(topic)
                fresh = ch is None
                if ch is None:
                    is_private = private if private is not None else (True if topic.startswith("manette_joueur_") else bool(self.cfg.get("private", True)))
                    ch = Channel(self, socket, topic, is_private)
                    self._topics[topic] = ch
                ch.listeners.append(listener)
            if fresh:
                ch.start()
            if not ch.first_done.wait(FIRST_JOIN_TIMEOUT_S):
                err = realtime_error(self.lang, "realtime_unavailable")
                self._leave(ch, listener)
                raise err
            if ch.first_error is not None:
                self._leave(ch, listener)
                raise ch.first_error
            if not fresh and ch.state == "joined":
                # Joined already: this listener starts now (what came before is re-read by on_joined).
                self.workers.submit(on_joined)
        except BaseException:
            self._release()
            raise
        left = [False]

        def stop() -> None:
            if left[0]:
                return
            left[0] = True
            self._leave(ch, listener)
            self._release()
        return ChannelHandle(stop)

    def _leave(self, ch: Channel, listener: Listener) -> None:
        with self._lock:
            if listener in ch.listeners:
                ch.listeners.remove(listener)
            if ch.listeners:
                return
            if self._topics.get(ch.sub_topic) is ch:
                del self._topics[ch.sub_topic]
        ch.stop()

    def _drop(self, ch: Channel) -> None:
        with self._lock:
            if self._topics.get(ch.sub_topic) is ch:
                del self._topics[ch.sub_topic]
            ch.listeners.clear()
        ch.stop()

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users > 0 or self.socket is None:
                return
            socket = self.socket
            self.socket = None
            if self._renew_timer:
                self._renew_timer.cancel()
                self._renew_timer = None
        socket.close()

    def close(self) -> None:
        with self._lock:
            channels = list(self._topics.values())
            self._topics.clear()
            socket = self.socket
            self.socket = None
            self._users = 0
            if self._renew_timer:
                self._renew_timer.cancel()
        for ch in channels:
            ch.stop()
        if socket:
            socket.close()
