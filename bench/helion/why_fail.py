"""Why the configs a tune logged as failed did not run: Helion's benchmark result keeps no error
text, so each failed config of a tune's CSV log (Helion's `autotune_log` form, which cutune's
adapter writes too) is compiled and run once more here, in this process, and the exception's type
and last line are printed beside the config, with the registers, spills and shared memory of the
Triton kernels that did compile. What the space's rules should reject comes from this list.
With --replay (no GPU needed) it replays instead what cutune's Helion space learns from a tune's
compiles (cutune/_compile_lessons.py) over each log, round by round (a round: the configs compiled
together, then benchmarked one after another; a gap over ROUND_GAP_S between two benchmarks starts
the next): the failures it would have refused, and the configs that ran but that it would have
refused, with the best one's rank among those that ran; with --kernel, each config's footprint
worked out as the tune works it out (on a card with --shared-memory bytes). An estimate: a refused
config's slot would have gone to another config, which the log cannot say.

    python bench/helion/why_fail.py --kernel attention --log autotune-attention-cutune.csv [...]
    python bench/helion/why_fail.py --replay [--kernel matmul] --log autotune-*.csv
"""
import argparse
import ast
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here]

import torch  # noqa: E402

import cutune.helion  # noqa: E402,F401  (before helion: it makes helion importable on torch 2.11)
import helion  # noqa: E402
from cutune._compile_lessons import CompileLessons, demand  # noqa: E402
from cutune._footprint import Footprint  # noqa: E402
from kernels import cases  # noqa: E402

FAILED = {"error"}  # compile timeouts are known by their status; compiling them here would hang
# A round's rows follow each other within a hundredth of a second; the next round's (or wave's)
# compiles take a quarter of a second or more (a matmul's), seconds for attention's.
ROUND_GAP_S = 0.05
HOPPER_SHARED_MEMORY = 227 * 1024  # bytes a program may ask for on an H100 or H200


def logged(path: str, statuses) -> list:
    """The rows of an autotune CSV log whose status is one of `statuses`, in the log's order."""
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if row["status"] in statuses]


def rounds(path: str) -> list:
    """The results of an autotune CSV log (its rows but "started"), round by round."""
    out, last = [], None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            stamp = float(row["timestamp_s"])
            if row["status"] != "started":
                out[-1].append(row)
                last = stamp
            elif last is None or stamp - last > ROUND_GAP_S:
                out.append([])
    return out


def replay_round(lessons: CompileLessons, round_: list, footprint) -> list:
    """The rows of one logged round that `lessons` refuse: before the round, then as
    cutune.helion's measure compiles it (CompileLessons.in_waves), each compile's outcome the
    log's."""
    demands = [demand(parsed(row["config"]), footprint) for row in round_]
    admitted = [i for i, d in enumerate(demands) if not lessons.refuses(d)]

    def compile_wave(wave):
        for i in (admitted[j] for j in wave):
            if round_[i]["status"] in ("ok", "error"):
                lessons.learn(demands[i], round_[i]["status"] == "ok")
    dropped = lessons.in_waves([demands[i] for i in admitted], compile_wave)
    return ([row for i, row in enumerate(round_) if i not in admitted]
            + [round_[admitted[j]] for j in dropped])


def replay(path: str, footprint, shared_memory: float) -> str:
    """What the space learns over one log, as one line."""
    log = rounds(path)
    ran = sorted(float(r["perf_ms"]) for round_ in log for r in round_ if r["status"] == "ok")
    lessons, refused = CompileLessons(shared_memory), []
    for round_ in log:
        refused += replay_round(lessons, round_, footprint)
    refused_errors = sum(r["status"] == "error" for r in refused)
    refused_ran = [ran.index(float(r["perf_ms"])) + 1 for r in refused if r["status"] == "ok"]
    errors = sum(r["status"] == "error" for round_ in log for r in round_)
    best = f", the best of them the log's {min(refused_ran)}." if refused_ran else ""
    return (f"{path}: {len(ran)} ran, {errors} errors, {refused_errors} of them refused; "
            f"{len(refused_ran)} that ran refused{best}")


def failed_configs(paths) -> list:
    """The distinct configs the logs hold as failed, in their order."""
    return list(dict.fromkeys(row["config"] for path in paths for row in logged(path, FAILED)))


def parsed(text: str) -> helion.Config:
    """The log's repr of a helion.Config, `Config(key=literal, ...)`, read without running it."""
    call = ast.parse(text, mode="eval").body
    return helion.Config(**{k.arg: ast.literal_eval(k.value) for k in call.keywords})


def resources(fn):
    """Registers, spills and shared bytes of each Triton kernel the compiled config has loaded."""
    from triton.runtime.jit import JITFunction
    found = []
    for value in getattr(fn, "__globals__", {}).values():
        if isinstance(value, JITFunction):
            for caches in value.device_caches.values():
                for kernel in caches[0].values():
                    found.append((getattr(kernel, "n_regs", None),
                                  getattr(kernel, "n_spills", None), kernel.metadata.shared))
    return found


def last_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [""]
    said = lines[0][:200] + (f" ... {lines[-1][:200]}" if len(lines) > 1 else "")
    return f"{type(error).__name__}: {said}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel")
    parser.add_argument("--log", nargs="+", required=True, help="autotune CSV logs")
    parser.add_argument("--replay", action="store_true", help="replay the space's failure rule")
    parser.add_argument("--shared-memory", type=int, default=HOPPER_SHARED_MEMORY,
                        help="bytes of shared memory a program may ask for (--replay)")
    opts = parser.parse_args()
    on_gpu = torch.cuda.is_available()  # off it, small problems under TRITON_INTERPRET=1
    if opts.replay:
        footprint = None
        if opts.kernel:  # the logged problem's footprint, whose bound kernel needs no GPU
            maker, make_args, _, _ = cases("cuda" if on_gpu else "cpu")[opts.kernel]
            bound = maker().bind(make_args())
            footprint = Footprint(bound.config_spec, bound.env)
        print("\n".join(replay(path, footprint, opts.shared_memory) for path in opts.log))
        return
    if not opts.kernel:
        parser.error("--kernel names the kernel of the logs (bench/helion/kernels.py)")
    maker, make_args, _, problem = cases("cuda" if on_gpu else "cpu", small=not on_gpu)[opts.kernel]
    args = make_args()
    bound = maker().bind(args)
    configs = failed_configs(opts.log)
    card = torch.cuda.get_device_name() if on_gpu else "CPU"
    print(f"{opts.kernel} {problem} on {card}: {len(configs)} failed configs")
    for text in configs:
        config = parsed(text)
        fn = None
        try:
            fn = bound.compile_config(config)
            fn(*args)
            if on_gpu:
                torch.cuda.synchronize()
            verdict = "ran here"
        except Exception as error:  # every failure is what this script reports
            verdict = last_line(error)
        made = resources(fn)
        print(f"[error] {verdict}\n    resources (regs, spills, smem): {made}\n    {text}")


if __name__ == "__main__":
    main()
