# Type stubs of the cutune package's public API (docs/python.md).
from os import PathLike
from typing import Any, Callable, Literal, NamedTuple, Optional, Union

from .errors import ArgumentError as ArgumentError
from .errors import CutuneError as CutuneError
from .errors import SpecError as SpecError
from .errors import TuneError as TuneError
from .progress import Progress as Progress

_Path = Union[str, PathLike[str]]

class Report(dict[str, Any]):
    key: dict[str, Any]
    store: Optional[str]
    evaluated: int
    outcomes: dict[str, int]
    best: Optional[dict[str, Any]]
    seconds: float
    tournament: Optional[dict[str, Any]]

class Decision(dict[str, Any]):
    config: dict[str, Any]
    winner_hash: str
    tune_id: Optional[str]
    speedup_over_default: Optional[float]
    speedup_interval: Optional[list[Optional[float]]]
    rounds: Optional[int]
    finalists: Optional[list[dict[str, Any]]]
    time_ms: Optional[float]

class TuneResult(NamedTuple):
    report: Report
    decision: Optional[Decision]
    @property
    def winner(self) -> Optional[dict[str, Any]]: ...

class TuneInterrupted(KeyboardInterrupt):
    result: TuneResult
    def __init__(self, result: TuneResult) -> None: ...

def default_store() -> str: ...
def space(spec_or_family: _Path, problem: str = "", *, draws: int = 300, seed: int = 0) -> dict[str, Any]: ...
def tune(
    spec_or_family: _Path,
    problem: str = "",
    *,
    budget: int = 60,
    strategy: str = "default",
    db: Optional[_Path] = None,
    seconds: float = 0,
    seed: int = 0,
    effort: Literal["quick", "full"] = "full",
    store: bool = True,
    warm_start: bool = True,
    progress: Union[None, Literal[False], Callable[[Progress], object]] = None,
) -> TuneResult: ...

class Runtime:
    def __init__(self, db: Optional[_Path] = None) -> None: ...
    def lookup(self, spec_or_family: _Path, problem: str = "") -> dict[str, Any]: ...
    def run(self, spec_or_family: _Path, problem: str, *arrays: Any) -> None: ...
    def gemm(self, a: Any, b: Any, out: Any = None, *, scale_a: Any = None,
             scale_b: Any = None) -> Any: ...

def gemm(a: Any, b: Any, out: Any = None, *, scale_a: Any = None, scale_b: Any = None) -> Any: ...
