"""Runs one of Kernel Tuner's example tune scripts with Kernel Tuner itself, on a fixed budget,
and prints its best time as JSON: the Kernel Tuner side of scripts/gpu/kt-examples.sh.

    python kt_examples_run.py SCRIPT BUDGET LANG

The script runs as written, in its own folder, up to its first tune_kernel() call (the one
`cutune import-kt` reads); that call gets strategy random_sample with max_fevals BUDGET and the
CUDA backend LANG (nvcuda, whose cuda-python installs from PyPI, unlike pycuda), and the script
stops there.
"""
import json
import os
import runpy
import sys

import kernel_tuner
import kernel_tuner.interface


class FirstCallDone(Exception):
    pass


def main():
    script, budget, lang = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    original = kernel_tuner.interface.tune_kernel

    def tune_first_call(*args, **kwargs):
        if str(kwargs.get("lang", "CUDA")).lower() in ("cuda", "cupy", "nvcuda"):
            kwargs["lang"] = lang
        kwargs["strategy"] = "random_sample"
        kwargs["strategy_options"] = {"max_fevals": budget}
        kwargs["verbose"] = False
        results, _ = original(*args, **kwargs)
        raise FirstCallDone(results)

    kernel_tuner.tune_kernel = tune_first_call
    kernel_tuner.interface.tune_kernel = tune_first_call
    os.chdir(os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
        print(json.dumps({"error": "no tune_kernel() call ran"}))
    except FirstCallDone as done:
        results = done.args[0]
        times = [r["time"] for r in results if isinstance(r.get("time"), (int, float))]
        print(json.dumps({"best_ms": min(times) if times else None, "configs": len(results),
                          "valid": len(times)}))


if __name__ == "__main__":
    main()
