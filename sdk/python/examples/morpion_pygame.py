#!/usr/bin/python3
"""Tic-tac-toe (the `morpion` rule set) on Manette, in a Pygame window.

Log in (or register), join a mode (default 1v1), play by clicking a square; the board
follows the match over Realtime through the SDK (with its re-reads). Scripted mode plays
by itself: ``--moves 0,1,2`` (those squares, in order, skipping taken ones) or ``--auto``
(the first free square); with ``--headless`` it runs under SDL's dummy drivers, no window.

Prints one JSON line per event on stdout (``{"event": ...}``), then the leaderboard
(``{"leaderboard": id, "scores": [...]}``) and, last, ``{"final": <partie>, "history": <history>}``.

    PYTHONPATH=sdk/python /usr/bin/python3 sdk/python/examples/morpion_pygame.py \\
        --url http://localhost:3000 --key sk_live_... --pseudo alice --password secret-pw [--register --email a@x.org]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the package, without installing it

import manette  # noqa: E402

SIZE = 480
CELL = SIZE // 3
BAR = 60


def emit(obj: Dict[str, Any]) -> None:
    print(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), flush=True)


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Tic-tac-toe on Manette (Pygame)")
    p.add_argument("--url", required=True, help="the server (http://localhost:3000) or its API base")
    p.add_argument("--key", required=True, help="the game's API key")
    p.add_argument("--pseudo", required=True, help="pseudo (or e-mail) to log in with")
    p.add_argument("--password", required=True)
    p.add_argument("--register", action="store_true", help="create the account first")
    p.add_argument("--email", help="e-mail of the new account (with --register)")
    p.add_argument("--mode", default="1v1")
    p.add_argument("--lang", default="en", choices=["en", "fr"])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--auto", action="store_true", help="play the first free square")
    g.add_argument("--moves", help="squares to play in order, e.g. 0,1,2")
    p.add_argument("--headless", action="store_true", help="SDL dummy drivers: no window (scripted modes)")
    p.add_argument("--leaderboard", help="the board to print at the end (default: the game's first)")
    p.add_argument("--timeout", type=float, default=300.0, help="give up after this many seconds (scripted modes)")
    p.add_argument("--poll", type=float, default=15.0, help="re-read the match after this many seconds of silence")
    a = p.parse_args(argv)
    if a.register and not a.email:
        p.error("--register needs --email")
    if a.headless and not (a.auto or a.moves):
        p.error("--headless needs --auto or --moves")
    return a


class Game:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.scripted = bool(args.auto or args.moves)
        self.moves = [int(x) for x in args.moves.split(",")] if args.moves else []
        # Callbacks queued for the game loop: client.poll() runs them each frame, on this thread.
        self.client = manette.Client(args.url, args.key, lang=args.lang, callbacks="poll")
        self.me: Optional[str] = None
        self.partie: Optional[Dict[str, Any]] = None
        self.partie_id: Optional[str] = None
        self.sub: Optional[manette.Subscription] = None
        self.sent_turn = 0
        self.status = "Logging in…"

    # -- events (run by client.poll() in the loop) -------------------------------------------
    def on_action(self, e: Dict[str, Any]) -> None:
        emit({"event": "action", "action": e})

    def on_etat(self, p: Dict[str, Any]) -> None:
        self.partie = p
        emit({"event": "etat", "partie": p})

    def on_error(self, e: manette.ManetteError) -> None:
        emit({"event": "error", "error": e.error, "reason": e.reason, "message": e.message})

    # -- steps -------------------------------------------------------------------------------
    def login(self) -> None:
        a = self.args
        if a.register:
            joueur = self.client.auth.register(a.pseudo, a.email, a.password)
        else:
            joueur = self.client.auth.login(a.pseudo, a.password)
        self.me = joueur["id"]
        emit({"event": "login", "joueur": joueur})

    def join(self) -> None:
        s = self.client.matchmaking.join(self.args.mode)
        emit({"event": s["status"], **{k: v for k, v in s.items() if k != "status"}})
        if s["status"] == "matched":
            self.start(s["partie_id"])
        else:
            self.status = "Waiting for an opponent…"

    def check_queue(self) -> None:
        s = self.client.matchmaking.status()  # also the queue's heartbeat
        if s["status"] == "matched":
            emit({"event": "matched", **{k: v for k, v in s.items() if k != "status"}})
            self.start(s["partie_id"])
        elif s["status"] == "idle":
            self.join()

    def start(self, partie_id: str) -> None:
        self.partie_id = partie_id
        self.sub = self.client.match(partie_id).subscribe(on_action=self.on_action, on_etat=self.on_etat,
                                                          on_error=self.on_error, poll_s=self.args.poll)

    @property
    def my_turn(self) -> bool:
        p = self.partie
        return bool(p and p["statut"] == "en_cours" and p["tour_joueur"] == self.me and self.sent_turn < p["numero_tour"])

    def cases(self) -> List[Optional[str]]:
        plateau = (self.partie or {}).get("etat_plateau") or {}
        return list(plateau.get("cases") or [None] * 9)

    def choose(self) -> Optional[int]:
        free = [i for i, v in enumerate(self.cases()) if v is None]
        if self.args.auto:
            return free[0] if free else None
        while self.moves:
            c = self.moves.pop(0)
            if c in free:
                return c
        return free[0] if free else None

    def play(self, case: int) -> None:
        assert self.partie is not None and self.partie_id is not None
        turn = self.partie["numero_tour"]
        self.sent_turn = turn
        try:
            self.client.match(self.partie_id).act("jouer", {"case": case}, numero_tour=turn)
        except manette.ManetteError as e:
            # Refused (a stale turn, a taken square): the next state says what to do.
            emit({"event": "refused", "error": e.error, "reason": e.reason, "message": e.message})
            self.sent_turn = 0
            if self.sub:
                self.sub.refresh()

    def finish(self) -> None:
        assert self.partie_id is not None
        m = self.client.match(self.partie_id)
        history = m.history(limit=500)
        boards = self.client.leaderboards()
        board = self.args.leaderboard or (boards[0]["id"] if boards else None)
        if board:
            emit({"leaderboard": board, "scores": self.client.leaderboard(board).scores(limit=10)})
        emit({"final": self.partie, "history": history})

    # -- drawing -----------------------------------------------------------------------------
    def text(self) -> str:
        p = self.partie
        if not p:
            return self.status
        if p["statut"] != "en_cours":
            if p.get("gagnant_id") is None:
                return "Draw." if p["statut"] == "terminee" else "Match cancelled."
            return "You won!" if p["gagnant_id"] == self.me else "You lost."
        return "Your turn." if p["tour_joueur"] == self.me else "Their turn…"

    def draw(self, pygame: Any, screen: Any, font: Any) -> None:
        screen.fill((250, 248, 240))
        for i in (1, 2):
            pygame.draw.line(screen, (40, 40, 40), (i * CELL, 0), (i * CELL, SIZE), 4)
            pygame.draw.line(screen, (40, 40, 40), (0, i * CELL), (SIZE, i * CELL), 4)
        for i, v in enumerate(self.cases()):
            cx, cy = (i % 3) * CELL + CELL // 2, (i // 3) * CELL + CELL // 2
            r = CELL // 2 - 24
            if v == "X":
                pygame.draw.line(screen, (200, 50, 50), (cx - r, cy - r), (cx + r, cy + r), 8)
                pygame.draw.line(screen, (200, 50, 50), (cx - r, cy + r), (cx + r, cy - r), 8)
            elif v == "O":
                pygame.draw.circle(screen, (50, 90, 200), (cx, cy), r, 8)
        if font is not None:
            screen.blit(font.render(self.text(), True, (20, 20, 20)), (16, SIZE + 18))
        pygame.display.flip()

    # -- the loop ----------------------------------------------------------------------------
    def run(self) -> int:
        if self.args.headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            os.environ["SDL_AUDIODRIVER"] = "dummy"
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        pygame.init()
        screen = pygame.display.set_mode((SIZE, SIZE + BAR))
        pygame.display.set_caption("Manette — morpion")
        try:
            font = pygame.font.Font(None, 32)
        except Exception:
            font = None
        clock = pygame.time.Clock()
        deadline = time.monotonic() + self.args.timeout
        next_status = 0.0
        finished = False
        try:
            self.login()
            self.join()
            while True:
                for event in pygame.event.get():
                    if event.type == pygame.QUIT:
                        return 0 if finished else 2
                    if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not self.scripted and self.my_turn:
                        x, y = event.pos
                        if y < SIZE:
                            case = (y // CELL) * 3 + x // CELL
                            if self.cases()[case] is None:
                                self.play(case)
                self.client.poll()  # the SDK's callbacks, on this thread
                if self.partie_id is None and time.monotonic() >= next_status:
                    next_status = time.monotonic() + 1.0
                    self.check_queue()
                if self.scripted and self.my_turn:
                    case = self.choose()
                    if case is not None:
                        self.play(case)
                if not finished and self.partie and self.partie["statut"] != "en_cours":
                    finished = True
                    self.finish()
                    if self.scripted:
                        return 0
                if self.scripted and time.monotonic() > deadline:
                    emit({"event": "timeout"})
                    return 3
                self.draw(pygame, screen, font)
                clock.tick(30)
        except manette.ManetteError as e:
            emit({"event": "error", "error": e.error, "status": e.status, "reason": e.reason, "message": e.message})
            return 1
        finally:
            if self.partie_id is None:
                try:
                    self.client.matchmaking.leave()
                except manette.ManetteError:
                    pass
            if self.sub:
                self.sub.close()
            self.client.close()
            pygame.quit()


def main(argv: List[str]) -> int:
    return Game(parse_args(argv)).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
