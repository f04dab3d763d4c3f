"""What cutune.tune returns, typed: the report and the decision are dicts (as `cutune tune --json`
prints them, so existing code indexes them as before) whose main fields are also attributes with
types (the stubs in __init__.pyi list them)."""
from typing import Any, NamedTuple, Optional


class _Fields(dict):
    """A dict whose listed keys read as attributes too; an absent key reads as None."""

    _fields: tuple = ()

    def __getattr__(self, name):
        if name in self._fields:
            return self.get(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __dir__(self):
        return [*super().__dir__(), *self._fields]


class Report(_Fields):
    """`cutune tune --json`'s report: key, evaluated, outcomes, best, default, tournament, ..."""

    _fields = ("key", "store", "evaluated", "outcomes", "best", "seconds", "tournament")


class Decision(_Fields):
    """The store's decision: config (the winner), winner_hash, speedup_over_default,
    speedup_interval, rounds, finalists, tune_id."""

    _fields = ("config", "winner_hash", "tune_id", "speedup_over_default", "speedup_interval",
               "rounds", "finalists", "time_ms")


class TuneResult(NamedTuple):
    report: Report
    decision: Optional[Decision]

    @property
    def winner(self) -> Optional[dict]:
        """The winning config, None when no config ran correctly."""
        return self.decision["config"] if self.decision else None


def tune_result(out: Any) -> TuneResult:
    decision = out["decision"]
    return TuneResult(Report(out["report"]), None if decision is None else Decision(decision))
