"""Helion's benchmark worker: started before Helion's set-up instead of at the first benchmark,
and kept for the next tune in the same process instead of shut down at the end of each.

Helion times configs in a long-lived worker process that it spawns at its first benchmark: a
fresh Python that imports torch and Helion and opens the GPU before it can time anything, which
every tune waits for once (Helion's own tune shows it as the seconds before its first timed
round). Spawned before Helion computes its baseline, the worker starts while the baseline and
the first round compile, and Helion's provider, which would spawn the same worker, takes it. A
program that tunes several kernels (a model's) waits for it once: at the end of a tune the worker
is taken back from the provider, its copies of that tune's arguments dropped, and the next tune's
provider gets it already running.

The worker follows the process's Triton settings (the cache directory Helion sets for each tune)
from job to job."""
import functools
import os
import threading
from typing import Optional

from . import _helion_compat

try:
    from helion.autotuner.benchmark_worker import BenchmarkWorker
    from helion.autotuner.kernel_args import load_trusted_kernel_args, release_private_kernel_args
except ImportError:  # a Helion without the worker: it benchmarks in its own process
    BenchmarkWorker = None

# Seconds the worker may take to drop a tune's arguments before it is shut down instead.
FORGET_TIMEOUT_S = 30.0

_kept = None  # the worker of this process's last tune, idle, or None
_kept_lock = threading.Lock()  # two tunes in two threads never share one worker


def start(settings) -> Optional[object]:
    """A running worker when Helion's settings benchmark in one (the last tune's, if it is still
    alive), else None."""
    global _kept
    if BenchmarkWorker is None or not getattr(settings, "autotune_benchmark_subprocess", False):
        return None
    with _kept_lock:
        worker, _kept = _kept, None
    if worker is not None:
        if worker.alive():
            return worker
        worker.shutdown()  # closes its end of the pipe
    worker = _Worker(device=None)
    try:
        worker._start()
    except Exception:  # Helion starts its own at the first benchmark
        worker.shutdown()
        return None
    return worker


def hand_over(worker, provider) -> bool:
    """Gives `worker` to Helion's benchmark provider if it benchmarks in a worker and has none
    yet; else shuts the worker down. Whether the provider took it."""
    if worker is None:
        return False
    takes = (provider is not None and getattr(provider, "_benchmark_worker", False) is None
             and provider._subprocess_benchmark_enabled())
    if takes:
        provider._benchmark_worker = worker
    else:
        worker.shutdown()
    return takes


def keep(provider) -> bool:
    """At the end of a tune: takes the provider's worker back for the next tune (Helion's cleanup
    would shut it down), once it has dropped the tune's arguments (Helion's worker caches them
    per tune, on the GPU). Whether it was kept."""
    global _kept
    worker = getattr(provider, "_benchmark_worker", None)
    if _Worker is None or not isinstance(worker, _Worker) or not worker.alive():  # Helion's own
        return False
    try:
        for job in (load_trusted_kernel_args.cache_clear, release_private_kernel_args):
            worker.run(job, timeout=FORGET_TIMEOUT_S)
    except Exception:  # a worker that cannot forget is Helion's to shut down
        return False
    provider._benchmark_worker = None
    with _kept_lock:
        worker, _kept = _kept, worker
    if worker is not None:  # an earlier tune's, kept while this one ran in another thread
        worker.shutdown()
    return True


def triton_environment() -> dict:
    """This process's Triton settings (TRITON_* environment variables)."""
    return {k: v for k, v in os.environ.items() if k.startswith("TRITON_")}


def take_triton_environment(settings: dict) -> None:
    """In the worker: Triton's settings become `settings` (read by Triton at each use)."""
    for name in [k for k in os.environ if k.startswith("TRITON_") and k not in settings]:
        del os.environ[name]
    os.environ.update(settings)


if BenchmarkWorker is not None:
    class _Worker(BenchmarkWorker):
        """Helion's worker, which takes this process's Triton settings before a job whenever they
        changed since it last took them: Helion points Triton's cache at a temporary directory of
        its own for each tune, which the worker's compiles must share, and a kept worker outlives
        the tune whose directory it was started with. Each start, cutune's or Helion's restart
        of a dead worker, records the settings the new process inherits, and marks it as the
        worker (_helion_compat.WORKER_ENV) for the length of the spawn."""

        def _start(self) -> None:
            self._environment = triton_environment()
            os.environ[_helion_compat.WORKER_ENV] = "1"  # the spawned process inherits it
            try:
                super()._start()
            finally:
                os.environ.pop(_helion_compat.WORKER_ENV, None)

        def run(self, job, timeout):
            environment = triton_environment()
            if environment != self._environment:
                super().run(functools.partial(take_triton_environment, environment), timeout)
                self._environment = environment
            return super().run(job, timeout)
else:
    _Worker = None
