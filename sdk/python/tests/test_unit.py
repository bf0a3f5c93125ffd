"""Unit tests of the parts that need no server: storage, names, the state ordering rule,
the callback dispatcher. (Everything that talks to Manette is in test_conformance.py,
against the real conformance server.)"""
from __future__ import annotations

import json
import os
import stat
import threading

import pytest

import manette
from manette.client import Subscription
from manette.http import api_base, short_hash
from manette.realtime import parse_time, websocket_url
from manette.storage import Session


def test_short_hash_matches_the_browser_sdk():
    # Values computed by sdk/src/http.ts shortHash (FNV-1a over UTF-16 units, base 36).
    assert short_hash("sk_live_EDKcGvtkrqSL1o9CW5a80Scb3JCY1RwtpU13RrC7") == "ukffoz"
    assert short_hash("é€x") == "1iorcg0"
    assert short_hash("") == "ztntfp"


def test_api_base():
    assert api_base("http://localhost:3000") == "http://localhost:3000/api/public/v1"
    assert api_base("http://localhost:3000/") == "http://localhost:3000/api/public/v1"
    assert api_base("https://x.supabase.co/functions/v1/manette/") == "https://x.supabase.co/functions/v1/manette"
    with pytest.raises(ValueError):
        api_base("localhost:3000")


def test_websocket_url():
    assert websocket_url("http://127.0.0.1:4000/realtime/v1", "k") == "ws://127.0.0.1:4000/realtime/v1/websocket?apikey=k&vsn=1.0.0"
    assert websocket_url("https://p.supabase.co/realtime/v1/", "a b") == "wss://p.supabase.co/realtime/v1/websocket?apikey=a+b&vsn=1.0.0"
    assert websocket_url("ws://h/realtime/v1/websocket?vsn=2.0.0", "k") == "ws://h/realtime/v1/websocket?apikey=k&vsn=1.0.0"


def test_parse_time():
    assert parse_time("2026-11-25T16:08:00.279Z") == pytest.approx(1795622880.279)
    assert parse_time(None) is None and parse_time("nope") is None


def test_file_storage_survives_a_restart(tmp_path):
    path = tmp_path / "dir" / "session.json"
    a = manette.FileStorage(str(path))
    a.set_item("k", "v")
    a.set_item("é", json.dumps({"x": 1}))
    b = manette.FileStorage(str(path))
    assert b.get_item("k") == "v" and json.loads(b.get_item("é")) == {"x": 1}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    b.remove_item("k")
    assert a.get_item("k") is None
    path.write_text("not json")
    assert a.get_item("é") is None  # a damaged file is an empty store, not a crash


def test_session_is_kept_per_game_and_device_id():
    storage = manette.MemoryStorage()
    s = Session("key-a", storage)
    assert s.token is None and s.player is None
    s.set("pt_1", {"id": "p1"})
    assert Session("key-a", storage).token == "pt_1"
    assert Session("key-b", storage).token is None  # another game's key
    dev = s.device_id()
    assert len(dev) == 32 and Session("key-a", storage).device_id() == dev
    s.forget_device()
    assert s.device_id() != dev
    s.clear()
    assert Session("key-a", storage).token is None


def test_manette_error_fields():
    e = manette.ManetteError("action_refusee", 409, "Action refused.", reason="pas_ton_tour")
    assert isinstance(e, Exception)
    assert (e.error, e.code, e.status, e.reason, e.message, e.details) == ("action_refusee", "action_refusee", 409, "pas_ton_tour", "Action refused.", None)
    assert "action_refusee" in str(e)


def partie(n, statut="en_cours", maj="2026-11-25T16:08:00.000Z"):
    return {"id": "m", "numero_tour": n, "statut": statut, "maj_le": maj}


def test_states_never_go_backwards_and_poll_runs_callbacks_on_the_caller():
    c = manette.Client("http://127.0.0.1:9", "key", callbacks="poll")
    try:
        seen = []
        threads = []

        def on_etat(p):
            seen.append((p["numero_tour"], p["statut"]))
            threads.append(threading.current_thread())
        sub = Subscription(c.match("m"), None, on_etat, None, 15)
        sub._deliver(partie(3))
        sub._deliver(partie(2))  # older turn: dropped
        sub._deliver(partie(3, maj="2026-11-25T16:07:00.000Z"))  # same turn, older: dropped
        sub._deliver(partie(3, maj="2026-11-25T16:09:00.000Z"))
        sub._deliver(partie(5, "terminee"))
        sub._deliver(partie(6, "en_cours"))  # nothing after a final status
        assert seen == []  # queued until poll()
        assert c.poll() == 3
        assert seen == [(3, "en_cours"), (3, "en_cours"), (5, "terminee")]
        assert threads == [threading.current_thread()] * 3
        assert sub.latest["numero_tour"] == 5
        assert sub._gap(7, 1) and not sub._gap(6, 1)
    finally:
        c.close()


def test_a_re_read_is_counted_with_the_event_that_calls_for_it():
    # The SDK's worker thread may run the read much later (a loaded machine): whoever saw
    # the event must already see the count, and a read asked for meanwhile runs after it.
    c = manette.Client("http://127.0.0.1:9", "key", callbacks="poll")
    try:
        queued = []
        c._workers.submit = queued.append  # the worker thread never gets to it by itself
        sub = Subscription(c.match("m"), None, None, None, 15)
        sub._deliver(partie(1))
        sub._joined()
        assert (sub.joins, sub.rereads, len(queued)) == (1, 1, 1)
        sub._ev_action({"joueur_id": "o", "action": "jouer", "donnees": {}, "numero_tour": 3})  # a gap
        sub._ev_etat(partie(4))  # a gap too
        assert (sub.rereads, len(queued)) == (1, 1)  # one read at a time: the others wait for it
        queued.pop()()  # the read runs (the server is unreachable: network_error, not raised)
        assert (sub.rereads, len(queued)) == (2, 1)  # then the one asked for meanwhile
    finally:
        c.close()


def test_a_failing_callback_does_not_stop_the_others():
    c = manette.Client("http://127.0.0.1:9", "key", callbacks="poll")
    try:
        got = []
        c._dispatcher.emit(lambda: 1 / 0)
        c._dispatcher.emit(got.append, 1)
        assert c.poll() == 2 and got == [1]
    finally:
        c.close()


def test_thread_mode_runs_callbacks_on_the_sdk_thread():
    c = manette.Client("http://127.0.0.1:9", "key")
    try:
        done = threading.Event()
        where = []
        c._dispatcher.emit(lambda: (where.append(threading.current_thread().name), done.set()))
        assert done.wait(5)
        assert where == ["manette-callbacks"]
        assert c.poll() == 0
    finally:
        c.close()


def test_unreachable_server_is_a_network_error():
    c = manette.Client("http://127.0.0.1:9", "key", lang="en")
    try:
        with pytest.raises(manette.ManetteError) as err:
            c.leaderboards()
        assert err.value.error == "network_error" and err.value.status == 0
        assert err.value.message == "The server cannot be reached."
    finally:
        c.close()
