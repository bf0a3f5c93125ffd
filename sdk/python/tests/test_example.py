"""The Pygame example, headless (SDL dummy drivers), against the conformance server: it
plays a whole match against a second player driven by the SDK here; both must end on the
same final state, the server's."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

from conftest import HERE, Recorder, World
from test_conformance import SCRIPT

EXAMPLE = os.path.join(os.path.dirname(HERE), "examples", "morpion_pygame.py")


def test_pygame_example_headless_plays_a_whole_match(world: World):
    pseudo = world.pseudo("pg")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen(
        [sys.executable, EXAMPLE, "--url", world.base_url, "--key", world.keys["default"], "--pseudo", pseudo,
         "--password", "mot-de-passe-1", "--register", "--email", f"{pseudo}@example.test", "--mode", "1v1",
         "--auto", "--headless", "--poll", "3", "--timeout", "90"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: "queue.Queue[str]" = queue.Queue()
    out: list = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
    threading.Thread(target=read, daemon=True).start()

    def next_json(timeout: float = 30):
        line = lines.get(timeout=timeout)
        out.append(line)
        return json.loads(line)

    try:
        # The example logs in and queues; then the SDK's player joins and is matched with it.
        first = next_json()
        assert first["event"] == "login" and first["joueur"]["pseudo"] == pseudo
        assert next_json()["event"] == "waiting"
        b = world.player()
        matched = b.matchmaking.join("1v1")
        assert matched["status"] == "matched"
        pid = matched["partie_id"]
        rec = Recorder("b")
        sub = b.match(pid).subscribe(on_action=rec.on_action, on_etat=rec.on_etat, on_error=rec.on_error, poll_s=3)
        me = b.auth.player["id"]
        deadline = time.monotonic() + 60
        while True:
            rec.wait(lambda r: r.latest is not None and (r.latest["statut"] != "en_cours" or r.latest["tour_joueur"] == me),
                     max(1, deadline - time.monotonic()), "its turn or the end")
            p = rec.latest
            if p["statut"] != "en_cours":
                break
            free = [i for i, v in enumerate(p["etat_plateau"]["cases"]) if v is None]
            b.match(pid).act("jouer", {"case": free[0]}, numero_tour=p["numero_tour"])
            rec.wait(lambda r, n=p["numero_tour"]: r.latest["numero_tour"] > n, 20, "its own move")
        # The example's lines: events, the leaderboard, then the final line.
        events = []
        while True:
            msg = next_json()
            if "final" in msg:
                break
            events.append(msg)
        assert proc.wait(timeout=30) == 0
        server = b.match(pid).state()
        assert server["statut"] == "terminee"
        assert msg["final"] == server == rec.latest, "the example, the SDK player and the server agree"
        assert msg["history"]["actions"] == b.match(pid).history(limit=500)["actions"]
        assert any(e.get("event") == "etat" for e in events) and any(e.get("event") == "action" for e in events)
        board = [e for e in events if "leaderboard" in e]
        assert board and board[0]["leaderboard"] == "meilleur-score" and isinstance(board[0]["scores"], list)
        sub.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        err = proc.stderr.read() if proc.stderr else ""
        if proc.returncode not in (0, None):
            print("example stdout:", "".join(out), "\nexample stderr:", err)


def test_quickstart_two_players_play_to_the_end(world: World):
    """docs/sdk-python.md's quick start, run twice at once: two players matched, one result each."""
    script = os.path.join(os.path.dirname(HERE), "examples", "quickstart.py")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), PYTHONDONTWRITEBYTECODE="1")
    names = [world.pseudo("qs"), world.pseudo("qs")]
    procs = []
    for name in names:
        procs.append(subprocess.Popen([sys.executable, script, world.base_url, world.keys["default"], name, "mot-de-passe-1"],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env))
        time.sleep(1.0)  # the first one queues, the second one is matched with it
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=90)
        finally:
            if p.poll() is None:
                p.kill()
        outs.append(out)
        assert p.returncode == 0, out
    results = [[l for l in out.splitlines() if l.startswith("result:")] for out in outs]
    assert sorted(r[0] for r in results) == ["result: lost", "result: won"], outs
    for out in outs:
        assert "meilleur-score:" in out, out


def test_pygame_example_played_by_clicks(world: World, monkeypatch):
    """The interactive mode: clicks (posted as SDL mouse events, under the dummy video
    driver) on the squares, against a player driven by the SDK."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    try:
        import morpion_pygame as example
    finally:
        sys.path.remove(os.path.dirname(EXAMPLE))
    import pygame

    pseudo = world.pseudo("clic")
    args = example.parse_args(["--url", world.base_url, "--key", world.keys["default"], "--pseudo", pseudo,
                               "--password", "mot-de-passe-1", "--register", "--email", f"{pseudo}@example.test", "--poll", "3"])
    game = example.Game(args)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("code", game.run()), daemon=True)
    t.start()
    deadline = time.monotonic() + 20
    while game.me is None or game.client.matchmaking.status()["status"] != "waiting":
        assert time.monotonic() < deadline and t.is_alive(), "the example did not queue"
        time.sleep(0.1)
    b = world.player()
    matched = b.matchmaking.join("1v1")
    pid = matched["partie_id"]
    assert matched["participants"][0]["joueur_id"] == game.me  # the example queued first: X
    rec = Recorder("b")
    sub = b.match(pid).subscribe(on_action=rec.on_action, on_etat=rec.on_etat, poll_s=3)
    centre = lambda case: ((case % 3) * example.CELL + example.CELL // 2, (case // 3) * example.CELL + example.CELL // 2)  # noqa: E731
    for i, (who, case) in enumerate(SCRIPT):
        turn = i + 1
        if who == "x":
            deadline = time.monotonic() + 20
            while not (game.partie and game.partie["numero_tour"] == turn and game.my_turn):
                assert time.monotonic() < deadline and t.is_alive(), f"the example never saw turn {turn}"
                time.sleep(0.05)
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre(case), button=1))
        else:
            rec.wait_turn(turn)
            b.match(pid).act("jouer", {"case": case}, numero_tour=turn)
    final = rec.wait_final()
    deadline = time.monotonic() + 20
    while not (game.partie and game.partie["statut"] == "terminee"):
        assert time.monotonic() < deadline, "the example never saw the end"
        time.sleep(0.05)
    server = b.match(pid).state()
    assert final == server and game.partie == server and server["gagnant_id"] == game.me
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    t.join(15)
    assert result.get("code") == 0
    sub.close()
