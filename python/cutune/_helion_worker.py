"""Helion's benchmark worker, started before Helion's set-up instead of at the first benchmark.

Helion times configs in a long-lived worker process that it spawns at its first benchmark: a
fresh Python that imports torch and Helion and opens the GPU before it can time anything, which
every tune waits for once (Helion's own tune shows it as the seconds before its first timed
round). Spawned before Helion computes its baseline, the worker starts while the baseline and
the first round compile, and Helion's provider, which would spawn the same worker, takes it."""
from typing import Optional

try:
    from helion.autotuner.benchmark_worker import BenchmarkWorker
except ImportError:  # a Helion without the worker: it benchmarks in its own process
    BenchmarkWorker = None


def start(settings) -> Optional[object]:
    """A running worker when Helion's settings benchmark in one, else None."""
    if BenchmarkWorker is None or not getattr(settings, "autotune_benchmark_subprocess", False):
        return None
    worker = BenchmarkWorker(device=None)
    try:
        worker._start()
    except Exception:  # Helion starts its own at the first benchmark
        worker.shutdown()
        return None
    return worker


def hand_over(worker, provider) -> bool:
    """Gives `worker` to Helion's benchmark provider if it benchmarks in a worker and has none
    yet (it then shuts the worker down at its cleanup); else shuts the worker down. Whether the
    provider took it."""
    if worker is None:
        return False
    takes = (provider is not None and getattr(provider, "_benchmark_worker", False) is None
             and provider._subprocess_benchmark_enabled())
    if takes:
        provider._benchmark_worker = worker
    else:
        worker.shutdown()
    return takes
