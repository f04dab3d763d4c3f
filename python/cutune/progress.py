"""A tune's progress from Python: the callback `cutune.tune(progress=...)` calls after every
measured config and as the tournament and its finishing pass start, and the bar drawn on a
terminal when no callback is given (the command-line tool's bar, in Python)."""
import dataclasses
import json
import shutil
import sys
import threading
import time
from dataclasses import dataclass
from typing import Optional, TextIO


@dataclass(frozen=True)
class Progress:
    evaluated: int             # configs measured so far
    budget: int                # configs the tune may measure
    best_ms: Optional[float]   # the fastest correct time so far; None before any
    failures: int              # configs that failed
    seconds: float             # since the tune started
    phase: str                 # "search", then "tournament" and "finishing"
    finalists: int             # in the tournament and the finishing pass; 0 in the search

    @classmethod
    def from_json(cls, text: str) -> "Progress":
        return cls(**json.loads(text))


def _duration(seconds: float) -> str:
    s = round(max(seconds, 0.0))
    return f"{s // 60}m{s % 60:02}s" if s >= 60 else f"{s}s"


def status(p: Progress) -> str:
    """The line after the bar, as `cutune tune` writes it."""
    best = "-" if p.best_ms is None else f"{p.best_ms:.4g} ms"
    if p.phase != "search":
        return (f"{p.phase} of {p.finalists} finalists, {_duration(p.seconds)} (search: "
                f"{p.evaluated}/{p.budget} evaluated, best {best}, {p.failures} failed)")
    fraction = min(1.0, p.evaluated / p.budget) if p.budget else 1.0
    eta = _duration(p.seconds * (1 - fraction) / fraction) if 0 < fraction < 1 else "-"
    return (f"{p.evaluated}/{p.budget} evaluated, {_duration(p.seconds)}, best {best}, "
            f"{p.failures} failed, ETA {eta}")


class TerminalBar:
    """Redraws one line on `stream` (a terminal): a bar of the search's share done and status().
    Once the tournament starts, a thread redraws it every second with the clock running: the
    rounds report nothing for a while, and a frozen line looks hung."""

    def __init__(self, stream: TextIO = sys.stderr):
        self.stream = stream
        self.drawn = False
        self._lock = threading.Lock()
        self._last = None  # (progress, monotonic time it came)
        self._stop = threading.Event()
        self._clock = None

    def __call__(self, p: Progress) -> None:
        with self._lock:
            self._last = (p, time.monotonic())
            self._draw(p)
        if p.phase != "search" and self._clock is None:
            self._clock = threading.Thread(target=self._tick, daemon=True)
            self._clock.start()

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                p, at = self._last
                self._draw(dataclasses.replace(p, seconds=p.seconds + time.monotonic() - at))

    def _draw(self, p: Progress) -> None:
        columns = min(shutil.get_terminal_size((80, 24)).columns, 120)
        text = status(p)
        width = max(10, min(40, columns - len(text) - 4))
        fraction = 1.0 if p.phase != "search" or not p.budget else min(1.0, p.evaluated / p.budget)
        filled = int(fraction * width + 0.5)
        line = f"[{'=' * filled}{' ' * (width - filled)}] {text}"
        self.stream.write("\r" + line[: columns - 1] + "\033[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        self._stop.set()
        if self._clock is not None:
            self._clock.join()
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
