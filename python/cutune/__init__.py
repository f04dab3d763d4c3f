"""cutune from Python: space reports, tunes, tuned-config lookups, and tuned GEMMs on PyTorch tensors.

    import cutune
    report = cutune.space("examples/cpu/matmul/matmul.json", problem="m=64,n=64,k=64")
    result = cutune.tune("examples/cpu/matmul/matmul.json", problem="m=64,n=64,k=64", budget=20,
                         db="tunes.db")
    print(result.decision["config"])
    print(cutune.Runtime(db="tunes.db").lookup("examples/cpu/matmul/matmul.json", "m=64,n=64,k=64"))
    c = cutune.gemm(a, b)  # bf16/fp16 CUDA tensors: the tuned Hopper GEMM, no copy (DLPack)
    c = cutune.gemm(a8, w8.t(), scale_a=sa, scale_b=sb)  # fp8, as torch._scaled_mm takes it

docs/python.md says more. Errors (cutune.errors): ArgumentError (a ValueError and a TypeError)
for an argument of the wrong type or value, SpecError (a ValueError) for a wrong spec, family or
problem, TuneError (a RuntimeError) when the machine cannot do it (no worker, no GPU, no nvcc).
"""
import json
import os
import sys
import threading
from pathlib import Path

from . import _arguments as _check
from . import _fp8
from .errors import ArgumentError, CutuneError, SpecError, TuneError, translated as _translated
from .progress import Progress, TerminalBar
from .results import Decision, Report, TuneResult, tune_result as _tune_result

__all__ = ["space", "tune", "TuneResult", "TuneInterrupted", "Report", "Decision", "Progress",
           "Runtime", "gemm", "default_store", "CutuneError", "ArgumentError", "SpecError",
           "TuneError"]

_here = Path(__file__).resolve().parent


def _use_packaged_files():
    """Points the C++ side at the workers and kernel source installed with the package, unless the
    environment already names others (the variables docs/gpu.md lists)."""
    for variable, path in (("CUTUNE_CPU_WORKER", _here / "bin" / "cutune-cpu-worker"),
                           ("CUTUNE_CUDA_WORKER", _here / "bin" / "cutune-cuda-worker"),
                           ("CUTUNE_NVRTC_HELPER", _here / "bin" / "cutune-nvrtc"),
                           ("CUTUNE_GEMM_SOURCE", _here / "share" / "gemm" / "device" / "hopper_gemm.cu"),
                           ("CUTUNE_GEMM_FP8_SOURCE",
                            _here / "share" / "gemm_fp8" / "device" / "hopper_gemm_fp8.cu")):
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
         warm_start: bool = True, transfer: bool = True, progress=None) -> TuneResult:
    """Tunes `spec_or_family` for `problem` (as space() takes them) and returns (report, decision).

    budget: configs measured; seconds: wall-time budget (0: none); db: the store's path (None: the
    default store); store=False keeps nothing. warm_start=False: no start from the nearest tuned
    shapes' winners; transfer=False: no transfer priors from the family's results on other devices
    and shapes (as `cutune tune --no-transfer`). progress: a callable given a cutune.Progress after
    every measured config and as the tournament starts (raising in it stops the tune and the error
    is raised here); None draws a bar on stderr when it is a terminal; False shows nothing. Blocks
    for the whole tune (the GIL is released but for the callback)."""
    call = "cutune.tune"
    args = (_check.path(call, "spec_or_family", spec_or_family), _check.text(call, "problem", problem),
            _check.text(call, "strategy", strategy), _check.text(call, "effort", effort, ("quick", "full")),
            _check.integer(call, "budget", budget, 1), _check.number(call, "seconds", seconds),
            _check.integer(call, "seed", seed), "" if db is None else _check.path(call, "db", db),
            _check.flag(call, "store", store), _check.flag(call, "warm_start", warm_start),
            _check.flag(call, "transfer", transfer))
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
            out = json.loads(_tune_until_interrupted(args, None if show is None else on_progress))
    except Exception:
        if raised:
            raise raised[0] from None
        raise
    finally:
        if bar is not None:
            bar.close()
    result = _tune_result(out)
    if result.report.get("stopped"):
        raise TuneInterrupted(result)
    return result


class TuneInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during cutune.tune(): the tune stopped after the batch in flight, every
    result stored. `result` is its TuneResult: the report (report["stopped"] is true) and, as the
    decision, the search's fastest so far (no tournament ran)."""

    def __init__(self, result: "TuneResult"):
        super().__init__("tune stopped by SIGINT after the batch in flight; results stored")
        self.result = result


def _tune_until_interrupted(args, on_progress) -> str:
    # The tune runs in a thread of its own (without the GIL) so that this one, the main thread,
    # takes SIGINT as KeyboardInterrupt while it waits, and asks the tune to stop; a second SIGINT
    # while the batch finishes is not waited on.
    stop = _core.StopFlag()
    outcome = {}
    done = threading.Event()

    def run():
        try:
            outcome["text"] = _core.tune_json(*args, stop=stop, progress=on_progress)
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error
        finally:
            done.set()

    threading.Thread(target=run, name="cutune.tune", daemon=True).start()
    # Waits on the event, not Thread.join(): a join that SIGINT interrupted may return at once the
    # next time (CPython before 3.13), before the tune has finished its batch.
    try:
        done.wait()
    except KeyboardInterrupt:
        stop.set()
        done.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["text"]


class Runtime:
    """Tuned configs and kernels of one store, as cutune::Runtime hands them to C++ programs.

    db: a store's path (None: the default store), or a JSON file `cutune export --json` wrote. A
    problem never tuned gets the C++ runtime's one rule: the nearest tuned shape's winner, repaired
    for it, when one is near enough ("origin": "nearest"), else the family's default config
    ("origin": "default_config"), with a warning that says which."""

    def __init__(self, db=None):
        self._db = default_store() if db is None else str(db)
        self._lookup = None
        self._gemm = {}  # device ordinal -> _gemm.GemmRunner

    def lookup(self, spec_or_family: str, problem: str = "") -> dict:
        """{"family", "problem", "config", "origin", "warnings"}: the config deployed for the problem.
        For a CPU spec the kernel is compiled and loaded; for "gemm" and "gemm_fp8" on the current
        CUDA device."""
        call = "Runtime.lookup"
        spec_or_family = _check.path(call, "spec_or_family", spec_or_family)
        problem = _check.text(call, "problem", problem)
        if spec_or_family in ("gemm", "gemm_fp8"):
            import torch
            runner = self._runner(torch.cuda.current_device())
            with _translated(call):
                return json.loads(runner.describe_problem(spec_or_family, problem))
        with _translated(call):
            if self._lookup is None:
                self._lookup = _core.Lookup(self._db)
            return json.loads(self._lookup.get(str(spec_or_family), problem))

    def run(self, spec_or_family: str, problem: str, *arrays) -> None:
        """Runs the CPU kernel `lookup` deploys for the problem on host arrays: numpy arrays (or any
        DLPack producer's), C-contiguous, one per buffer of the spec in its order, each of the
        buffer's element type and at least its length; the problem's scalars are passed as the spec
        lists them. Outputs are written in place. A wrong count, type or length raises
        ArgumentError naming the buffer, before anything runs."""
        call = "Runtime.run"
        spec_or_family = _check.path(call, "spec_or_family", spec_or_family)
        problem = _check.text(call, "problem", problem)
        self.lookup(spec_or_family, problem)  # the spec loaded, its errors as SpecError
        try:
            self._lookup.run(str(spec_or_family), problem, list(arrays))
        except (ValueError, TypeError) as error:  # what was given does not fit the spec's buffers
            raise ArgumentError(f"{call}: {str(error).splitlines()[0]}") from None

    def _runner(self, device: int):
        runner = self._gemm.get(device)
        if runner is None:
            from . import _gemm  # links the CUDA driver: imported only here
            runner = self._gemm[device] = _gemm.GemmRunner(self._db, device)
        return runner

    def _runner_of(self, tensor):
        """The runner of the CUDA device `tensor` is on (an index-less "cuda": the current one)."""
        import torch
        index = tensor.device.index
        return self._runner(index if index is not None else torch.cuda.current_device())

    def gemm(self, a, b, out=None, *, scale_a=None, scale_b=None):
        """out = a @ b with the store's tuned Hopper GEMM for the tensors' shape and dtype.

        a: m x k, b: k x n (contiguous, or w.T of a contiguous n x k w), both bfloat16 or float16
        CUDA tensors of one device; out: m x n, contiguous (allocated when None). Enqueued on the
        current PyTorch stream; no copy of any tensor.

        fp8 (the gemm_fp8 family), as torch._scaled_mm(a, b, scale_a, scale_b,
        out_dtype=torch.bfloat16) takes it: a m x k contiguous, b k x n the transpose of a
        contiguous n x k tensor (w.t()), each float8_e4m3fn or float8_e5m2, out m x n bfloat16,
        and float32 scales whose shapes say the scaling: one element each (tensor), m x 1 and 1 x n (row_col), or
        m x k/128 (k-block major) and k/128 x ceil(n/128) (block: DeepSeek-V3's 1x128 and 128x128
        blocks). Every argument is checked before anything runs (ArgumentError naming it)."""
        call = "cutune.gemm"
        if _fp8.is_fp8(a) or scale_a is not None or scale_b is not None:
            return self._gemm_fp8(call, a, b, out, scale_a, scale_b)
        import torch
        if out is None:
            out = a.new_empty((a.shape[0], b.shape[1]))
        self._runner_of(a).gemm(a, b, out, torch.cuda.current_stream(a.device).cuda_stream)
        return out

    def _gemm_fp8(self, call, a, b, out, scale_a, scale_b):
        if not _fp8.is_fp8(a):
            dtype = getattr(a, "dtype", type(a).__name__)
            raise ArgumentError(f"{call}: scale_a and scale_b go with float8 tensors; a is {dtype}")
        for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
            if scale is None:
                raise ArgumentError(f"{call}: {name} is required with float8 tensors (float32: one "
                                    "element, one per row or column, or per block)")
        import torch
        _fp8.check_devices(call, a, b, out, scale_a, scale_b)
        args = _fp8.arguments(call, a, b, out, scale_a, scale_b)
        runner = self._runner_of(a)
        with _translated(call):
            _fp8.launch(runner, args, torch.cuda.current_stream(a.device).cuda_stream)
        return args.out


_default_runtime = None


def gemm(a, b, out=None, *, scale_a=None, scale_b=None):
    """out = a @ b through the default store's Runtime (Runtime.gemm says more; fp8 tensors take
    their scales as torch._scaled_mm does)."""
    global _default_runtime
    if _default_runtime is None:
        _default_runtime = Runtime()
    return _default_runtime.gemm(a, b, out, scale_a=scale_a, scale_b=scale_b)
