"""Realtime behaviours beyond the conformance cases, against the conformance server: the gap
rule alone, and a channel the server closes for an expired token, joined again."""
from __future__ import annotations

import time

from conftest import Recorder, World
from test_conformance import SCRIPT


def test_a_gap_in_numero_tour_is_re_read(world: World):
    x, o, pid = world.matched()
    # No silence re-read: whatever is re-read here is the gap rule (or the join's).
    rx = Recorder("x")
    ro = Recorder("o")
    sx = x.match(pid).subscribe(on_action=rx.on_action, on_etat=rx.on_etat, poll_s=3600)
    so = o.match(pid).subscribe(on_action=ro.on_action, on_etat=ro.on_etat, poll_s=3600)
    rx.wait_turn(1)
    ro.wait_turn(1)
    assert so.rereads == 1
    # On this match's room only: an etat of another match (a turn timer's, say) would use it up.
    world.control.post("/realtime/drop", {"event": "etat", "count": 1, "topic": f"manette_partie_{pid}"})
    x.match(pid).act("jouer", {"case": SCRIPT[0][1]}, numero_tour=1)  # its etat (turn 2) is dropped
    ro.wait(lambda r: len(r.actions) == 1, 10, "X's action")
    assert ro.latest["numero_tour"] == 1
    # O plays from another client of the same player (its own answer would move the subscribed
    # view on by itself): the action (turn 2) and the etat (turn 3) then come ahead of the view.
    mover = world.client()
    mover.auth.login(o.auth.player["pseudo"], "mot-de-passe-1")
    mover.match(pid).act("jouer", {"case": SCRIPT[1][1]}, numero_tour=2)
    ro.wait_turn(3)
    rx.wait_turn(3)
    # The join's read, then the gap's; when the etat arrives while that re-read is in flight,
    # one more read is queued after it (a timing race, both outcomes correct).
    assert 2 <= so.rereads <= 3, f"the join's read, then the gap's: {so.rereads}"
    turns = [e["numero_tour"] for e in ro.etats]
    assert 2 not in turns and turns[-1] == 3, turns  # the dropped etat never came
    assert ro.latest == o.match(pid).state()
    sx.close()
    so.close()


def test_a_channel_closed_for_an_expired_token_is_joined_again(world: World):
    ttl = world.control.config["tokenTtlS"]
    x, o, pid = world.matched()
    # This client never renews on time: Realtime closes its channel when the token expires
    # (a system error, then phx_close); the SDK joins again with a fresh token.
    x._hub._schedule_renew = lambda: None
    rx = Recorder("x")
    sx = x.match(pid).subscribe(on_action=rx.on_action, on_etat=rx.on_etat, poll_s=3600)
    rx.wait_turn(1)
    deadline = time.monotonic() + ttl * 2 + 10
    while sx.joins < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sx.joins >= 2, "the channel was not joined again after its token expired"
    assert sx.rereads >= 2
    x.match(pid).act("jouer", {"case": 0}, numero_tour=1)
    o.match(pid).act("jouer", {"case": 3}, numero_tour=2)
    rx.wait(lambda r: any(a["numero_tour"] == 2 for a in r.actions), 10, "O's action after the rejoin")
    rx.wait_turn(3)
    sx.close()


def test_wait_for_match_hears_matched_on_the_player_channel(world: World):
    import threading

    a, b = world.player(), world.player()
    assert a.matchmaking.join("1v1")["status"] == "waiting"
    got = {}

    def wait() -> None:
        try:
            # No polling in the test's time: the answer can only come from the `matched` event.
            got["status"] = a.matchmaking.wait_for_match(poll_s=3600, timeout_s=60)
        except Exception as e:  # reported below
            got["error"] = e
    t = threading.Thread(target=wait)
    t.start()
    topic = "manette_joueur_" + a.auth.player["id"]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:  # until its player channel is joined
        ch = a._hub._topics.get(topic)
        if ch is not None and ch.state == "joined":
            break
        time.sleep(0.05)
    matched = b.matchmaking.join("1v1")
    assert matched["status"] == "matched"
    t.join(30)
    assert not t.is_alive() and "error" not in got, got
    s = got["status"]
    assert s["status"] == "matched" and s["partie_id"] == matched["partie_id"]
    assert {p["joueur_id"] for p in s["participants"]} == {a.auth.player["id"], b.auth.player["id"]}
