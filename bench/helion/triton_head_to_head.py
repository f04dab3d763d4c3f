"""cutune.triton.autotune against @triton.autotune on the same Triton kernels (a tutorial-form
matmul with Triton users' 14 configs, a row softmax with 14), on one GPU: each tunes on its first
call with a cold Triton cache, then both winners are timed together in paired rounds after an L2
flush (bench/gpu/peers.py's GraphTimer). One JSON line per kernel; OUT/triton_head_to_head.jsonl.

    python bench/helion/triton_head_to_head.py [--rounds 7] [--budget N (0: until a round finds nothing faster)] [--out DIR]
"""
import argparse
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "gpu")]

import torch  # noqa: E402

import triton_kernels as tk  # noqa: E402
from head_to_head import cold_triton_cache, error, paired  # noqa: E402


def first_call_seconds(fn) -> float:
    cold_triton_cache()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--budget", type=int, default=0)
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    opts = parser.parse_args()
    from peers import GraphTimer
    timer = GraphTimer()
    db = os.path.join(opts.out, "cutune-triton.db")
    a = torch.randn(2048, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
    c_theirs, c_ours = torch.empty(2048, 4096, **_like(a)), torch.empty(2048, 4096, **_like(a))
    s_theirs, s_ours = torch.empty_like(x), torch.empty_like(x)
    theirs_mm, ours_mm = tk.triton_matmul(), tk.cutune_matmul(db, opts.budget)
    theirs_sm, ours_sm = tk.triton_softmax(), tk.cutune_softmax(db)
    cases = {
        "matmul 2048x4096x4096 bf16": (
            lambda: tk.launch_matmul(theirs_mm, a, b, c_theirs),
            lambda: tk.launch_matmul(ours_mm, a, b, c_ours), c_theirs, c_ours,
            lambda: a.float() @ b.float(), ours_mm),
        "softmax 4096x8192 bf16": (
            lambda: tk.launch_softmax(theirs_sm, x, s_theirs),
            lambda: tk.launch_softmax(ours_sm, x, s_ours), s_theirs, s_ours,
            lambda: torch.softmax(x.float(), dim=1), ours_sm),
    }
    timer.ramp()
    for name, (theirs, ours, out_theirs, out_ours, reference, tuned) in cases.items():
        row = {"kernel": name, "device": torch.cuda.get_device_name()}
        row["triton_autotune_s"] = first_call_seconds(theirs)
        row["cutune_s"] = first_call_seconds(ours)
        if tuned.last is not None:
            report = tuned.last[1].report
            row["cutune_configs"], row["cutune_outcomes"] = report["evaluated"], report["outcomes"]
        ref = reference()
        row["triton_error"], row["cutune_error"] = error(out_theirs, ref), error(out_ours, ref)
        times = paired(timer, [ours, theirs], opts.rounds)
        row["speed_vs_triton_autotune"] = statistics.median(t[1] / t[0] for t in times)
        row["times_ms"] = {"cutune": statistics.median(t[0] for t in times),
                           "triton_autotune": statistics.median(t[1] for t in times)}
        print(json.dumps(row), flush=True)
        with open(os.path.join(opts.out, "triton_head_to_head.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")


def _like(t):
    return {"device": t.device, "dtype": t.dtype}


if __name__ == "__main__":
    main()
