"""cutune from Python: space reports, tunes, tuned-config lookups, and tuned GEMMs on PyTorch tensors.

    import cutune
    report = cutune.space("examples/cpu/matmul/matmul.json", problem="m=64,n=64,k=64")
    result = cutune.tune("examples/cpu/matmul/matmul.json", problem="m=64,n=64,k=64", budget=20,
                         db="tunes.db")
    print(result.decision["config"])
    print(cutune.Runtime(db="tunes.db").lookup("examples/cpu/matmul/matmul.json", "m=64,n=64,k=64"))
    c = cutune.gemm(a, b)  # bf16/fp16 CUDA tensors: the tuned Hopper GEMM, no copy (DLPack)

docs/python.md says more. Errors (cutune.errors): ArgumentError (a ValueError and a TypeError)
for an argument of the wrong type or value, SpecError (a ValueError) for a wrong spec, family or
problem, TuneError (a RuntimeError) when the machine cannot do it (no worker, no GPU, no nvcc).
"""
import json
import os
import sys
from pathlib import Path

from . import _arguments as _check
from .errors import ArgumentError, CutuneError, SpecError, TuneError, translated as _translated
from .progress import Progress, TerminalBar
from .results import Decision, Report, TuneResult, tune_result as _tune_result

__all__ = ["space", "tune", "TuneResult", "Report", "Decision", "Progress", "Runtime", "gemm",
           "default_store", "CutuneError", "ArgumentError", "SpecError", "TuneError"]

_here = Path(__file__).resolve().parent


def _use_packaged_files():
    """Points the C++ side at the workers and kernel source installed with the package, unless the
    environment already names others (the variables docs/gpu.md lists)."""
    for variable, path in (("CUTUNE_CPU_WORKER", _here / "bin" / "cutune-cpu-worker"),
                           ("CUTUNE_CUDA_WORKER", _here / "bin" / "cutune-cuda-worker"),
                           ("CUTUNE_NVRTC_HELPER", _here / "bin" / "cutune-nvrtc"),
                           ("CUTUNE_GEMM_SOURCE", _here / "share" / "gemm" / "device" / "hopper_gemm.cu")):
        if not os.environ.get(variable) and path.exists():
            os.environ[variable] = str(path)


_use_packaged_files()
from . import _core  # noqa: E402  (after the environment is set: the C++ side reads it)


def default_store() -> str:
    """The store used when none is given: $CUTUNE_DB, else the user's cache folder."""
    return _core.default_store()


def space(spec_or_family: str, problem: str = "", *, draws: int = 300, seed: int = 0) -> dict:
    """How much of the space random search reaches for `problem`, as `cutune space --json`.

    spec_or_family: a kernel spec file's path or a built-in family's name ("gemm").
    problem: "m=512,n=512,k=512"; empty: the family's example (a built-in family's example
    arguments are overridden one by one)."""
    call = "cutune.space"
    args = (_check.path(call, "spec_or_family", spec_or_family), _check.text(call, "problem", problem),
            _check.integer(call, "draws", draws, 1), _check.integer(call, "seed", seed))
    with _translated(call):
        return json.loads(_core.space_json(*args))


def tune(spec_or_family: str, problem: str = "", *, budget: int = 60, strategy: str = "default",
         db=None, seconds: float = 0, seed: int = 0, effort: str = "full", store: bool = True,
         warm_start: bool = True, progress=None) -> TuneResult:
    """Tunes `spec_or_family` for `problem` (as space() takes them) and returns (report, decision).

    budget: configs measured; seconds: wall-time budget (0: none); db: the store's path (None: the
    default store); store=False keeps nothing. progress: a callable given a cutune.Progress after
    every measured config and as the tournament starts (raising in it stops the tune and the error
    is raised here); None draws a bar on stderr when it is a terminal; False shows nothing. Blocks
    for the whole tune (the GIL is released but for the callback)."""
    call = "cutune.tune"
    args = (_check.path(call, "spec_or_family", spec_or_family), _check.text(call, "problem", problem),
            _check.text(call, "strategy", strategy), _check.text(call, "effort", effort, ("quick", "full")),
            _check.integer(call, "budget", budget, 1), _check.number(call, "seconds", seconds),
            _check.integer(call, "seed", seed), "" if db is None else _check.path(call, "db", db),
            _check.flag(call, "store", store), _check.flag(call, "warm_start", warm_start))
    bar = TerminalBar() if progress is None and sys.stderr.isatty() else None
    show = bar if bar is not None else progress if callable(progress) else None
    if progress is not None and progress is not False and not callable(progress):
        raise ArgumentError(f"{call}: progress must be a callable, None or False, got {progress!r}")
    raised = []  # the callback's own exception, raised as it is rather than translated

    def on_progress(text):
        try:
            show(Progress.from_json(text))
        except BaseException as error:
            raised.append(error)
            raise

    try:
        with _translated(call):
            out = json.loads(_core.tune_json(*args, None if show is None else on_progress))
    except Exception:
        if raised:
            raise raised[0] from None
        raise
    finally:
        if bar is not None:
            bar.close()
    return _tune_result(out)


def _gemm_shape(problem: str):
    args = dict(item.split("=", 1) for item in problem.split(",") if item)
    try:
        return (int(args["m"]), int(args["n"]), int(args["k"]),
                {"bf16": 0, "fp16": 1}[args.get("dtype", "bf16")],
                args.get("b_layout", "k_by_n") == "n_by_k")
    except (KeyError, ValueError) as error:
        raise ValueError(f"gemm problem '{problem}': m, n, k and dtype bf16|fp16 expected") from error


class Runtime:
    """Tuned configs and kernels of one store, as cutune::Runtime hands them to C++ programs.

    db: a store's path (None: the default store), or a JSON file `cutune export --json` wrote
    (config lookups only). A problem never tuned gets the family's default config ("origin":
    "default_config")."""

    def __init__(self, db=None):
        self._db = default_store() if db is None else str(db)
        self._exported = None
        if self._db.endswith(".json"):
            with open(self._db) as f:
                self._exported = json.load(f)["results"]
        self._lookup = None
        self._gemm = {}  # device ordinal -> _gemm.GemmRunner

    def lookup(self, spec_or_family: str, problem: str = "") -> dict:
        """{"family", "problem", "config", "origin", "warnings"}: the config deployed for the problem.
        For a CPU spec the kernel is compiled and loaded; for "gemm" on the current CUDA device."""
        call = "Runtime.lookup"
        spec_or_family = _check.path(call, "spec_or_family", spec_or_family)
        problem = _check.text(call, "problem", problem)
        if self._exported is not None:
            return self._lookup_exported(str(spec_or_family), problem)
        if spec_or_family == "gemm":
            import torch
            return json.loads(self._runner(torch.cuda.current_device()).describe_shape(*_gemm_shape(problem)))
        with _translated(call):
            if self._lookup is None:
                self._lookup = _core.Lookup(self._db)
            return json.loads(self._lookup.get(str(spec_or_family), problem))

    def _lookup_exported(self, spec_or_family: str, problem: str) -> dict:
        key = json.loads(_core.key_json(spec_or_family, problem))
        rows = [r for r in self._exported if r["family"] == key["family"] and r["problem"] == key["problem"]]
        if not rows:
            return {**key, "config": None, "origin": "untuned", "warnings": [
                f"{key['family']} {key['problem']}: not in {self._db}"]}
        best = min(rows, key=lambda r: r["time_ms"])
        return {**key, "config": best["config"], "origin": "store", "device": best["device"],
                "time_ms": best["time_ms"], "warnings": []}

    def _runner(self, device: int):
        runner = self._gemm.get(device)
        if runner is None:
            if self._exported is not None:
                raise ValueError("Runtime.gemm needs a store, not an exported JSON file")
            from . import _gemm  # links the CUDA driver: imported only here
            runner = self._gemm[device] = _gemm.GemmRunner(self._db, device)
        return runner

    def gemm(self, a, b, out=None):
        """out = a @ b with the store's tuned Hopper GEMM for the tensors' shape and dtype.

        a: m x k, b: k x n (contiguous, or w.T of a contiguous n x k w), both bfloat16 or float16
        CUDA tensors of one device; out: m x n, contiguous (allocated when None). Enqueued on the
        current PyTorch stream; no copy of any tensor."""
        import torch
        if out is None:
            out = a.new_empty((a.shape[0], b.shape[1]))
        runner = self._runner(a.device.index if a.device.index is not None else torch.cuda.current_device())
        runner.gemm(a, b, out, torch.cuda.current_stream(a.device).cuda_stream)
        return out


_default_runtime = None


def gemm(a, b, out=None):
    """out = a @ b through the default store's Runtime (Runtime.gemm says more)."""
    global _default_runtime
    if _default_runtime is None:
        _default_runtime = Runtime()
    return _default_runtime.gemm(a, b, out)
