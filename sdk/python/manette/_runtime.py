"""The SDK's background machinery: one timer thread, a small worker pool for HTTP
re-reads, and the dispatcher that hands events to the game (its own thread, or poll())."""
from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Tuple

log = logging.getLogger("manette")


class Timer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler:
    """Runs functions after a delay, one at a time, on one daemon thread."""

    def __init__(self, name: str = "manette-timers") -> None:
        self._heap: List[Tuple[float, int, Timer, Callable[[], Any]]] = []
        self._cv = threading.Condition()
        self._seq = itertools.count()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call_later(self, delay_s: float, fn: Callable[[], Any]) -> Timer:
        t = Timer()
        with self._cv:
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, delay_s), next(self._seq), t, fn))
            self._cv.notify()
        return t

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._closed and (not self._heap or self._heap[0][0] > time.monotonic()):
                    self._cv.wait(None if not self._heap else max(0.0, self._heap[0][0] - time.monotonic()))
                if self._closed:
                    return
                _, _, t, fn = heapq.heappop(self._heap)
            if t.cancelled:
                continue
            try:
                fn()
            except Exception:
                log.exception("manette: timer task failed")

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._heap.clear()
            self._cv.notify()


class Dispatcher:
    """Hands the game its callbacks, in order.

    ``mode="thread"`` (default): on the SDK's callback thread (one daemon thread, so a slow
    callback never stalls the socket). ``mode="poll"``: queued until the game calls
    ``Client.poll()`` (a game loop such as Pygame's calls it each frame, so callbacks run
    on the game's own thread).
    """

    def __init__(self, mode: str = "thread") -> None:
        if mode not in ("thread", "poll"):
            raise ValueError("callbacks must be 'thread' or 'poll'")
        self.mode = mode
        self._q: "queue.Queue[Optional[Tuple[Callable[..., Any], tuple]]]" = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        if mode == "thread":
            self._thread = threading.Thread(target=self._run, name="manette-callbacks", daemon=True)
            self._thread.start()

    def emit(self, fn: Optional[Callable[..., Any]], *args: Any) -> None:
        if fn is not None:
            self._q.put((fn, args))

    @staticmethod
    def _call(item: Tuple[Callable[..., Any], tuple]) -> None:
        fn, args = item
        try:
            fn(*args)
        except Exception:
            # A callback's exception must not break the SDK: logged, like an uncaught error.
            log.exception("manette: a callback raised")

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            self._call(item)

    def poll(self, max_events: Optional[int] = None) -> int:
        """Runs the queued callbacks (mode "poll"); returns how many ran."""
        if self.mode != "poll":
            return 0
        n = 0
        while max_events is None or n < max_events:
            try:
                item = self._q.get_nowait()
            except queue.Empty:
                break
            if item is None:
                continue
            self._call(item)
            n += 1
        return n

    def close(self) -> None:
        if self._thread is not None:
            self._q.put(None)


class Workers:
    """A few threads for the SDK's own HTTP calls (re-reads, token renewal)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="manette-io")
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> None:
        if self._closed:
            return
        try:
            self._pool.submit(self._guard, fn)
        except RuntimeError:
            pass

    @staticmethod
    def _guard(fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception:
            log.exception("manette: background task failed")

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)
