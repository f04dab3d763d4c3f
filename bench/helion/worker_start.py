"""Where the seconds before a cold Helion tune's first timing go: Helion 1.5.1 times configs in a
spawned worker process, and a tune in a fresh process (cutune's or Helion's) waits for it before
its first round ends (docs/perf.md, issue 27). One kernel of the head to head, its default config
compiled here as Helion's precompile would, then one fresh worker taken through its start a phase
at a time, and a second fresh worker sent the benchmark job alone (what a tune's first round
waits for). Triton's cache starts cold, as each tune's does in the head to head. Prints one line
per phase, seconds.

    python bench/helion/worker_start.py [--kernel rms_norm]
"""
import argparse
import os
import sys
import tempfile
import time

START = time.perf_counter()
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here]

import torch  # noqa: E402

import cutune.helion  # noqa: E402,F401  (before helion: it makes helion importable on torch 2.11)
from helion.autotuner.benchmark_job import BenchmarkJob  # noqa: E402
from helion.autotuner.benchmark_worker import BenchmarkWorker  # noqa: E402
from helion.autotuner.precompile_future import _serialize_compiled_fn  # noqa: E402
from kernels import cases  # noqa: E402

IMPORTED = time.perf_counter()


# Jobs run in the worker (a spawned process imports this file again as its main module).
def nothing() -> None:
    return None


def open_cuda() -> None:
    torch.cuda.init()
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()


def open_triton_driver() -> None:
    from triton.runtime import driver
    driver.active.get_current_device()  # builds Triton's C helpers in a cold cache


def seconds(worker, job) -> float:
    start = time.perf_counter()
    worker.run(job, timeout=300)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", default="rms_norm")
    opts = parser.parse_args()
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
    phases = [("this process: import torch, cutune.helion, Helion", IMPORTED - START)]
    on_gpu = torch.cuda.is_available()
    maker, make_args, _, problem = cases("cuda" if on_gpu else "cpu", small=not on_gpu)[opts.kernel]
    args = make_args()
    start = time.perf_counter()
    bound = maker().bind(args)
    fn = bound.compile_config(bound.config_spec.default_config())
    fn(*args)  # Triton compiles at the first call, into the cold cache
    phases.append(("this process: compile and run the default config", time.perf_counter() - start))

    worker = BenchmarkWorker(device=None)
    phases.append(("worker 1: spawn, imports (a no-op job)", seconds(worker, nothing)))
    if on_gpu:
        args_path = os.path.join(tempfile.mkdtemp(), "args.pt")
        torch.save(args, args_path)
        job = BenchmarkJob(fn_spec=_serialize_compiled_fn(fn), args_path=args_path)
        phases += [("worker 1: CUDA context", seconds(worker, open_cuda)),
                   ("worker 1: Triton's driver", seconds(worker, open_triton_driver)),
                   ("worker 1: first benchmark job", seconds(worker, job)),
                   ("worker 1: the same job again", seconds(worker, job))]
        fresh = BenchmarkWorker(device=None)
        phases.append(("worker 2: the benchmark job, sent at once", seconds(fresh, job)))
        fresh.shutdown()
    worker.shutdown()
    print(f"{opts.kernel} {problem}, {torch.cuda.get_device_name() if on_gpu else 'CPU'}")
    for name, s in phases:
        print(f"  {name:<50} {s:7.2f} s")


if __name__ == "__main__":
    main()
