"""Measuring a batch of configs of a kernel launched from Python (cutune.triton): compile, check
against the reference outputs, time. On a GPU the batch's configs are first compiled together in
threads (Triton's AsyncCompileMode: its compiler's ptxas runs as a subprocess, so compiles
overlap), and the time is triton.testing.do_bench's median, which clears the L2 cache before every
repetition; on the CPU (TRITON_INTERPRET=1) the median of a few wall-clock runs."""
import os
import statistics
import time
from typing import Callable, List, Optional

from . import _host


def _classify(error: Exception) -> str:
    name = type(error).__name__
    if name in ("OutOfResources",):
        return "launch_error"
    if name in ("CompilationError", "CompileTimeAssertionFailure") or "compil" in str(error).lower():
        return "compile_error"
    return "crash"


def _wall_median(run: Callable[[], object], repetitions: int = 3) -> float:
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_ms(run: Callable[[], object], on_gpu: bool) -> float:
    """The median time of one launch, L2 cleared before each on a GPU."""
    if on_gpu:
        import triton.testing
        return float(triton.testing.do_bench(run, warmup=10, rep=40, return_mode="median"))
    return _wall_median(run)


class BatchMeasurer:
    """Measures batches for one tune: the first config that runs (the core hands the default
    first) gives the reference outputs every other config is compared with."""

    def __init__(self, launch: Callable[[dict], object], outputs: List, tolerance: float,
                 warmup: Optional[Callable[[dict], object]] = None):
        """warmup(config) compiles a config without launching it (JITFunction.warmup)."""
        self.launch, self.outputs, self.tolerance, self.warmup = launch, outputs, tolerance, warmup
        self.reference = None
        self.on_gpu = any(getattr(o, "is_cuda", False) for o in outputs)

    def _check(self) -> str:
        import torch
        got = [o.detach().clone() for o in self.outputs]
        if self.reference is None:
            self.reference = got
            return ""
        for i, (g, r) in enumerate(zip(got, self.reference)):
            if not torch.allclose(g.float(), r.float(), rtol=self.tolerance, atol=self.tolerance):
                diff = (g.float() - r.float()).abs().max().item()
                return f"output {i} differs from the default config's by up to {diff:.3g}"
        return ""

    def measure(self, config: dict) -> dict:
        for o in self.outputs:
            o.zero_()
        start = time.perf_counter()
        try:
            self.launch(config)
            if self.on_gpu:
                import torch
                torch.cuda.synchronize()
        except Exception as error:  # a config's failure is a value; the next config goes on
            return _host.failed(_classify(error), f"{type(error).__name__}: {error}",
                                time.perf_counter() - start)
        compile_s = time.perf_counter() - start
        wrong = self._check()
        if wrong:
            return _host.failed("wrong_result", wrong, compile_s)
        return _host.ok(time_ms(lambda: self.launch(config), self.on_gpu), compile_s)


    def precompile(self, batch: List[dict]) -> None:
        """Compiles the batch's configs together, so that each measure() finds its kernel built
        (its compile_s is then what the first launch took). A config that fails to compile here
        fails again in measure(), where its failure is recorded; a Triton without
        AsyncCompileMode compiles in measure() as before."""
        if not self.on_gpu or self.warmup is None or len(batch) < 2:
            return
        try:
            from concurrent.futures import ThreadPoolExecutor
            from triton.runtime._async_compile import AsyncCompileMode
        except ImportError:
            return
        workers = min(len(batch), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            with AsyncCompileMode(pool, ignore_errors=True):
                for config in batch:
                    try:
                        self.warmup(config)
                    except Exception:  # noqa: BLE001  (measure() records it)
                        pass

    def __call__(self, batch: List[dict]) -> List[dict]:
        """One measurement per config of `batch`, in order."""
        self.precompile(batch)
        return [self.measure(config) for config in batch]
