"""Runs one of Kernel Tuner's example tune scripts with Kernel Tuner itself, on a fixed budget,
and prints its best time as JSON: the Kernel Tuner side of scripts/gpu/kt-examples.sh.

    python kt_examples_run.py SCRIPT BUDGET LANG SECONDS [KNOB=VALUE ...]

The script runs as written, in its own folder, up to its first tune_kernel() call (the one
`cutune import-kt` reads); that call gets strategy random_sample with max_fevals BUDGET and
time_limit SECONDS (so that a slow example ends with its best so far rather than nothing), the
CUDA backend LANG (nvcuda, whose cuda-python installs from PyPI, unlike pycuda) and each KNOB
held at VALUE (a JSON value; kt-examples.sh pins a knob for cutune alike), and the script stops
there. A config whose output fails the script's answer is a failed config, as in cutune, instead
of the exception that ends Kernel Tuner's tune.
"""
import json
import os
import runpy
import sys

import kernel_tuner
import kernel_tuner.interface
from kernel_tuner import core, util


class FirstCallDone(Exception):
    pass


def count_wrong_results_as_failures():
    compile_and_benchmark = core.DeviceInterface.compile_and_benchmark

    def checked(self, *args, **kwargs):
        try:
            return compile_and_benchmark(self, *args, **kwargs)
        except RuntimeError as error:
            if "verification failed" not in str(error):
                raise
            return {"__error__": util.RuntimeFailedConfig(), "wrong_result": True,
                    "compile_time": 0, "verification_time": 0, "benchmark_time": 0}

    core.DeviceInterface.compile_and_benchmark = checked


def main():
    script, budget, lang, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    pins = {name: json.loads(value) for name, value in (p.split("=", 1) for p in sys.argv[5:])}
    original = kernel_tuner.interface.tune_kernel
    count_wrong_results_as_failures()

    def tune_first_call(*args, **kwargs):
        params = dict(args[4] if len(args) > 4 else kwargs["tune_params"])
        for name, value in pins.items():
            if name not in params:
                raise SystemExit("kt_examples_run.py: no knob %s to pin (knobs: %s)"
                                 % (name, ", ".join(params)))
            params[name] = [value]
        if len(args) > 4:
            args = args[:4] + (params,) + args[5:]
        else:
            kwargs["tune_params"] = params
        if str(kwargs.get("lang", "CUDA")).lower() in ("cuda", "cupy", "nvcuda"):
            kwargs["lang"] = lang
        kwargs["strategy"] = "random_sample"
        kwargs["strategy_options"] = {"max_fevals": budget, "time_limit": seconds}
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
                          "valid": len(times),
                          "wrong": sum(1 for r in results if r.get("wrong_result"))}))


if __name__ == "__main__":
    main()
