"""cutune.gemm on the GPU (scripts/gpu/python-gemm.sh runs it; not a pytest file: it needs an sm_90
GPU, PyTorch and nvcc). Tunes S3 (2048x4096x4096 bf16) with cutune.tune, loads the decision with
cutune.Runtime, checks cutune.gemm(a, b) against torch.matmul within bf16's tolerance, and times it
as the tune's worker times candidates (each launch between two events after the worker's memset
of twice the L2), in rounds alternating with the same kernel timed by a C++ loop in this process
and with torch.matmul; the tune's own time is printed beside them. Prints a table; writes the
figures to --out as JSON. Exit status 1 when the result is wrong or cutune.gemm is more than 2 %
slower than the C++ loop."""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time
import traceback

import torch

import cutune

M, N, K = 2048, 4096, 4096
PROBLEM = f"m={M},n={N},k={K},dtype=bf16"
# About 20 ms at the H200's clock: longer than the host takes to enqueue 100 repetitions.
PRELOAD_CYCLES = 40_000_000


_driver = ctypes.CDLL("libcuda.so.1")
_driver.cuMemsetD32Async.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t,
                                     ctypes.c_void_p]


def worker_flush(buffer):
    """The tune's worker's flush before repetition `rep`, call for call: a 32-bit memset of twice
    the L2 to the repetition's index (src/backend/cuda/launch_timer.hpp). torch's zero_() is another
    kernel, and the GEMM after it ran 2.2 % slower (docs/perf.md, issue 14)."""
    stream = torch.cuda.current_stream().cuda_stream

    def flush(rep):
        code = _driver.cuMemsetD32Async(buffer.data_ptr(), rep, buffer.numel() // 4, stream)
        if code != 0:
            raise RuntimeError(f"cuMemsetD32Async failed: CUresult {code}")
    return flush


def torch_flush(buffer):
    return lambda rep: buffer.zero_()


def event_times(launch, flush, repetitions):
    """Each launch() between two events after flush(rep), as the tune's worker times. A sleep
    kernel first holds the GPU while the host enqueues every repetition, so that host time between
    the start event and the launch (Python's, in cutune.gemm) cannot count, as in the worker, whose
    C++ loop is always ahead of the GPU (measured 2026-12-04: the same medians without it)."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(repetitions)]
    torch.cuda._sleep(PRELOAD_CYCLES)
    for rep, (start, stop) in enumerate(events):
        flush(rep)
        start.record()
        launch()
        stop.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(stop) for start, stop in events]


def host_microseconds(launch, calls):
    """Host time per call, measured while a sleep kernel keeps the queue from filling up: whether
    cutune.gemm keeps ahead of the GPU (host time < kernel time) in a loop of back-to-back calls."""
    torch.cuda._sleep(PRELOAD_CYCLES)
    began = time.perf_counter()
    for _ in range(calls):
        launch()
    seconds = time.perf_counter() - began
    torch.cuda.synchronize()
    return seconds / calls * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=70)
    parser.add_argument("--out", default="gemm_check.json")
    args = parser.parse_args()
    figures = {"problem": PROBLEM, "gpu": torch.cuda.get_device_name(0)}
    failures = []
    started = time.time()

    # 1. Tune (or, when the tune cannot run, go on with the default config).
    tuned_ms = None
    try:
        report, decision = cutune.tune("gemm", problem=PROBLEM, budget=args.budget,
                                       seconds=args.seconds, db=args.db)
        tuned_ms = report["best"]["time_ms"] if report.get("best") else None
        figures.update(tune_seconds=report["seconds"], evaluated=report["evaluated"],
                       outcomes=report["outcomes"], tuned_ms=tuned_ms,
                       winner=decision["config"] if decision else None,
                       speedup_over_default=report.get("speedup_over_default"))
        print(f"tune: {report['evaluated']} configs in {report['seconds']:.1f} s, outcomes "
              f"{report['outcomes']}, winner {tuned_ms} ms", flush=True)
    except Exception:
        traceback.print_exc()
        failures.append("cutune.tune failed")

    # 2. Load it and check it.
    runtime = cutune.Runtime(db=args.db)
    torch.manual_seed(0)
    scale = K ** -0.25  # products of unit size
    a = (torch.randn(M, K, device="cuda") * scale).to(torch.bfloat16)
    b = (torch.randn(K, N, device="cuda") * scale).to(torch.bfloat16)
    found = runtime.lookup("gemm", PROBLEM)
    figures.update(config=found["config_name"], origin=found["origin"], warnings=found["warnings"])
    print(f"runtime: {found['config_name']} ({found['origin']})", flush=True)
    if figures.get("winner") is not None and found["config"] != figures["winner"]:
        failures.append("the runtime's config is not the tune's winner")
    c = runtime.gemm(a, b)
    reference = torch.matmul(a, b)
    torch.cuda.synchronize()
    difference = (c.float() - reference.float())
    figures["max_abs_error"] = difference.abs().max().item()
    figures["relative_error"] = (difference.norm() / reference.float().norm()).item()
    try:
        torch.testing.assert_close(c, reference, rtol=1.6e-2, atol=1e-2)
        figures["matches_torch"] = True
    except AssertionError as error:
        figures["matches_torch"] = False
        failures.append(f"cutune.gemm differs from torch.matmul: {error}")
    # The module-level call (the default store: CUTUNE_DB) launches the same kernel.
    os.environ["CUTUNE_DB"] = args.db
    if not torch.equal(cutune.gemm(a, b), c):
        failures.append("cutune.gemm (the default Runtime) gave another result")

    # 3. Time it in alternating blocks, so that every figure sees the same state of the card (an
    # absolute time moves by up to 10 % over seconds on this card, docs/perf.md): Python calls,
    # the C++ loop on the same tensors (the worker's timing loop), torch.matmul; Python also
    # after torch's zero_() as the flush.
    buffer = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8,
                         device="cuda")
    flush = worker_flush(buffer)
    runner = runtime._runner(a.device.index or 0)
    stream = torch.cuda.current_stream().cuda_stream
    out = torch.empty_like(c)
    python_call = lambda: runtime.gemm(a, b, out=out)  # noqa: E731
    event_times(python_call, flush, 20)  # warm-up, clock ramp
    runner.time_launches(a, b, out, 20, stream)
    samples = {name: [] for name in ("python", "cpp", "torch", "python_zero_flush")}
    for _ in range(5):
        samples["python"] += event_times(python_call, flush, 100)
        torch.cuda._sleep(PRELOAD_CYCLES)
        samples["cpp"] += runner.time_launches(a, b, out, 100, stream)
        samples["torch"] += event_times(lambda: torch.matmul(a, b, out=out), flush, 100)
        samples["python_zero_flush"] += event_times(python_call, torch_flush(buffer), 100)
    for name, values in samples.items():
        figures[f"{name}_ms"] = statistics.median(values)
    figures["host_us_per_call"] = host_microseconds(python_call, 200)
    figures["seconds"] = time.time() - started

    flop = 2 * M * N * K
    rows = [("cutune.gemm from Python (DLPack)", figures["python_ms"]),
            ("same kernel, C++ loop, this process", figures["cpp_ms"]),
            ("same kernel, cutune's tune (worker)", tuned_ms),
            ("torch.matmul, this process", figures["torch_ms"]),
            ("cutune.gemm, torch's zero_() as flush", figures["python_zero_flush_ms"])]
    print(f"\nS3 {M}x{N}x{K} bf16 on {figures['gpu']}: config {figures['config']} "
          f"({figures['origin']}); max |error| {figures['max_abs_error']:.3g}, relative "
          f"{figures['relative_error']:.3g} against torch.matmul")
    print(f"{'what':<38} {'median ms':>10} {'TFLOP/s':>8} {'python/it':>10}")
    for name, ms in rows:
        if ms is None:
            print(f"{name:<38} {'-':>10}")
            continue
        print(f"{name:<38} {ms:>10.4f} {flop / ms / 1e9:>8.1f} {figures['python_ms'] / ms:>10.3f}")
    print(f"host time per cutune.gemm call: {figures['host_us_per_call']:.1f} us "
          f"(the kernel: {figures['python_ms'] * 1e3:.1f} us)")
    # The bar: the binding adds no measurable cost. Against the C++ loop timed in the same rounds
    # (the worker's method, same tensors, same state of the card); the tune's own time, taken
    # minutes earlier in another process, is printed beside it.
    figures["ratio_to_cpp"] = figures["python_ms"] / figures["cpp_ms"]
    figures["ratio_to_tune"] = figures["python_ms"] / tuned_ms if tuned_ms else None
    print(f"bar: cutune.gemm within 2 % of the C++ loop in the same rounds: "
          f"{figures['ratio_to_cpp']:.3f} -> {'PASS' if figures['ratio_to_cpp'] <= 1.02 else 'FAIL'}"
          + (f"; against the tune's time {figures['ratio_to_tune']:.3f}" if tuned_ms else ""))
    if figures["ratio_to_cpp"] > 1.02:
        failures.append("cutune.gemm is more than 2 % slower than the C++ loop")
    figures["failures"] = failures
    with open(args.out, "w") as f:
        json.dump(figures, f, indent=2)
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
