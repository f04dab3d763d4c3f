"""Runs one of Kernel Tuner's example tune scripts with Kernel Tuner itself, on a fixed budget,
and prints its best time as JSON: the Kernel Tuner side of scripts/gpu/kt-examples.sh.

    python kt_examples_run.py SCRIPT BUDGET LANG SECONDS SPEC CUTUNE_JSON [KNOB=VALUE ...]

The script runs as written, in its own folder, up to its first tune_kernel() call (the one
`cutune import-kt` reads); that call gets strategy random_sample with max_fevals BUDGET and
time_limit SECONDS (so that a slow example ends with its best so far rather than nothing), the
CUDA backend LANG (nvcuda with NVRTC, or pycuda with nvcc; the script's run_kernel() calls too)
and each KNOB
held at VALUE (a JSON value; kt-examples.sh pins a knob for cutune alike), and the script stops
there. A config whose output fails the script's answer is a failed config, as in cutune, instead
of the exception that ends Kernel Tuner's tune.

Kernel Tuner checks a config only against an `answer` the script gives, and a config that fails
to launch can come back with the time of a launch that did nothing. So its best is checked as
cutune checks every config: from the fastest down, each config's outputs (run_kernel) against the
script's answer, else against the config cutune's tune took as its default (CUTUNE_JSON), with
cutune's normwise tolerance per element type, scratch buffers of SPEC (the imported spec) left
out and its partial_sums buffers compared by their totals; the first that passes is Kernel
Tuner's best, the ones above it are counted as rejected.
"""
import inspect
import json
import os
import runpy
import sys

import numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                                "gpu"))
from kt_examples_rows import load_json_tail  # noqa: E402

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


# run_kernel's arguments among tune_kernel's: how the checked config is launched.
RUN_ARGUMENTS = ("grid_div_x", "grid_div_y", "grid_div_z", "lang", "device", "platform",
                 "smem_args", "cmem_args", "texmem_args", "compiler", "compiler_options", "defines",
                 "block_size_names")
# cutune's default tolerance per element kind (docs/spec-format.md, "Check and tolerance").
TOLERANCE = {"f": 1e-4, "d": 1e-9}


def agrees(out, ref, summed=False) -> bool:
    """cutune's normwise check: max |out - ref| / max |ref| within the element type's tolerance;
    for partial sums (`summed`), |sum(out) - sum(ref)| / sum|ref|."""
    out, ref = numpy.asarray(out), numpy.asarray(ref)
    if out.shape != ref.shape:
        return False
    tolerance = TOLERANCE.get(ref.dtype.char, 1e-4 if ref.dtype.kind == "f" else 0.0)
    out, ref = out.astype(numpy.float64), ref.astype(numpy.float64)
    if not numpy.isfinite(out).all():
        return False
    if summed:
        return abs(out.sum() - ref.sum()) <= tolerance * numpy.abs(ref).sum()
    scale = numpy.abs(ref).max() if ref.size else 0.0
    if scale == 0:
        return numpy.array_equal(out, ref)
    return numpy.abs(out - ref).max() <= tolerance * scale


def copies(arguments):
    """The arguments with every array copied: a backend may run the kernel on the caller's arrays
    (the C one does), and an output left from an earlier run would hide a config that writes
    nothing."""
    return [a.copy() if isinstance(a, numpy.ndarray) else a for a in arguments]


def checked_best(results, call, spec_path, cutune_path):
    """(time, config, rejected): the fastest config whose outputs agree with the reference.
    `call`: tune_kernel()'s arguments by name, its arrays as they were before the tune."""
    name, source, size, arguments, params = (call[k] for k in (
        "kernel_name", "kernel_source", "problem_size", "arguments", "tune_params"))
    options = {k: v for k, v in call.items() if k in RUN_ARGUMENTS}

    def run(config):
        return kernel_tuner.run_kernel(name, source, size, copies(arguments), config, quiet=True,
                                       **options)

    spec = json.load(open(spec_path))
    roles = {b["name"]: b.get("role") for b in spec["buffers"]}
    role = {i: roles.get(a.get("buffer")) for i, a in enumerate(spec.get("arguments", []))}
    reference = call.get("answer")
    if reference is None:
        default = load_json_tail(cutune_path)["default"]["config"]
        reference = run({k: default[k] if k in default else v[0] for k, v in params.items()})
    timed = sorted((r for r in results if isinstance(r.get("time"), (int, float))),
                   key=lambda r: r["time"])
    for rejected, r in enumerate(timed):
        try:
            outputs = run({k: r[k] for k in params})
        except Exception:  # a config that does not run is not a best
            continue
        if all(role.get(i) == "scratch" or not isinstance(ref, numpy.ndarray)
               or agrees(out, ref, role.get(i) == "partial_sums")
               for i, (out, ref) in enumerate(zip(outputs, reference))):
            return r["time"], {k: r[k] for k in params}, rejected
    return None, None, len(timed)


def on_backend(kwargs: dict, lang: str) -> None:
    """A CUDA call of the script (CUDA, CuPy or nvcuda by its `lang`) made on the backend LANG:
    every run of one example on one backend, so a backend the GPU's image cannot start (CuPy's,
    where its device-properties call disagrees with Python's uuid) stops no example."""
    if str(kwargs.get("lang", "CUDA")).lower() in ("cuda", "cupy", "nvcuda"):
        kwargs["lang"] = lang


def main():
    script, budget, lang, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    spec_path, cutune_path = sys.argv[5], sys.argv[6]
    pins = {name: json.loads(value) for name, value in (p.split("=", 1) for p in sys.argv[7:])}
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
        on_backend(kwargs, lang)
        kwargs["strategy"] = "random_sample"
        kwargs["strategy_options"] = {"max_fevals": budget, "time_limit": seconds}
        kwargs["verbose"] = False
        call = inspect.signature(original).bind(*args, **kwargs).arguments
        before = copies(call["arguments"])
        results, _ = original(*args, **kwargs)
        call["arguments"] = before
        raise FirstCallDone(results, call)

    run_kernel = kernel_tuner.run_kernel

    def run_on_backend(*args, **kwargs):  # the script's own runs: a reference kernel's answer
        on_backend(kwargs, lang)
        return run_kernel(*args, **kwargs)

    kernel_tuner.tune_kernel = tune_first_call
    kernel_tuner.run_kernel = run_on_backend
    kernel_tuner.interface.tune_kernel = tune_first_call
    os.chdir(os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
        print(json.dumps({"error": "no tune_kernel() call ran"}))
    except FirstCallDone as done:
        results, call = done.args
        times = [r["time"] for r in results if isinstance(r.get("time"), (int, float))]
        best, config, rejected = checked_best(results, call, spec_path, cutune_path)
        print(json.dumps({"best_ms": best, "best_config": config, "rejected": rejected,
                          "fastest_unchecked_ms": min(times) if times else None,
                          "configs": len(results), "valid": len(times),
                          "wrong": sum(1 for r in results if r.get("wrong_result"))}))


if __name__ == "__main__":
    main()
