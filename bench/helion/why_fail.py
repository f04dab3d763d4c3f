"""Why the configs a tune logged as failed did not run: Helion's benchmark result keeps no error
text, so each failed config of a tune's CSV log (Helion's `autotune_log` form, which cutune's
adapter writes too) is compiled and run once more here, in this process, and the exception's type
and last line are printed beside the config, with the registers, spills and shared memory of the
Triton kernels that did compile. What the space's rules should reject comes from this list.
With --replay (no GPU needed) it replays instead the rule by which cutune's Helion space learns
from a tune's failures (cutune/_helion_space.py, `demand`) over each log in its order: the failures
it would have skipped, and the configs that ran but that it would have rejected.

    python bench/helion/why_fail.py --kernel attention --log autotune-attention-cutune.csv [...]
    python bench/helion/why_fail.py --replay --log autotune-*.csv
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
from cutune._helion_space import demand, fails_alike, teaches  # noqa: E402
from kernels import cases  # noqa: E402

FAILED = {"error"}  # compile timeouts are known by their status; compiling them here would hang


def logged(path: str, statuses) -> list:
    """The rows of an autotune CSV log whose status is one of `statuses`, in the log's order."""
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if row["status"] in statuses]


def replay(path: str) -> str:
    """The space's failure rule over one log in its order, as one line."""
    rows = logged(path, ("ok", "error"))
    failed, skipped, rejected = [], 0, []
    for row in rows:
        asked = demand(dict(parsed(row["config"])))
        alike = fails_alike(asked, failed)
        if row["status"] == "ok":
            if alike:
                rejected.append(float(row["perf_ms"]))
        else:
            skipped += alike
            if teaches(asked):
                failed.append(asked)
    fastest = min((float(r["perf_ms"]) for r in rows if r["status"] == "ok"), default=0.0)
    lost = f", fastest of them {min(rejected):.4f} ms (the log's {fastest:.4f})" if rejected else ""
    errors = sum(r["status"] == "error" for r in rows)
    return f"{path}: {errors} errors, {skipped} skipped; {len(rejected)} that ran rejected{lost}"


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
    opts = parser.parse_args()
    if opts.replay:
        print("\n".join(replay(path) for path in opts.log))
        return
    if not opts.kernel:
        parser.error("--kernel names the kernel of the logs (bench/helion/kernels.py)")
    on_gpu = torch.cuda.is_available()  # off it, small problems under TRITON_INTERPRET=1
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
