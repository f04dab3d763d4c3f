"""scripts/gpu/kt_examples_run.py, Kernel Tuner's side of the examples table, run for real under
the pinned Kernel Tuner (.venv-kernel-tuner) on a C kernel (lang="C", no GPU): a config that
does nothing reports the shortest time, as a CUDA launch that failed unnoticed does, and Kernel
Tuner, given no `answer`, takes it as its best. The runner must check the fastest configs'
outputs against cutune's default config and report the fastest that agrees. The kernel returns
its own "time" (Kernel Tuner's C backend takes the function's return value), so the order of the
configs does not depend on how busy the machine is.

    python kt_examples_run_test.py RUNNER"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

RUNNER = sys.argv.pop(1) if len(sys.argv) > 1 else None

SCRIPT = '''
import numpy
from kernel_tuner import tune_kernel

kernel = """
extern "C" float scale(float *out, float *in, int n) {
    if (skip) return 0.5f;  /* does nothing: the fastest "time" of all */
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) out[i] = 2.0f * in[i];
    return (float)reps;
}
"""
n = 1024
x = numpy.arange(n, dtype=numpy.float32)
out = numpy.zeros_like(x)
tune_kernel("scale", kernel, n, [out, x, numpy.int32(n)], {"reps": [2, 1, 4], "skip": [0, 1]},
            lang="C")
'''

# Partial sums of `in`, one per chunk (expdist's per-block `cost`): 2 and 4 chunks agree with 1 on
# the total only; 5 drops the remainder of n = 1001 and reports the fastest time, 2 the next.
PARTIAL_SUMS = '''
import numpy
from kernel_tuner import tune_kernel

kernel = """
extern "C" float chunk_sums(float *cost, float *in, int n) {
    int per = n / chunks;
    for (int c = 0; c < chunks; c++) {
        float sum = 0.0f;
        int end = c == chunks - 1 && chunks != 5 ? n : (c + 1) * per;
        for (int i = c * per; i < end; i++) sum += in[i];
        cost[c] = sum;
    }
    return chunks == 5 ? 0.5f : chunks == 2 ? 1.0f : 2.0f + chunks;
}
"""
n = 1001
x = numpy.arange(n, dtype=numpy.float32) / n
cost = numpy.zeros(8, dtype=numpy.float32)
tune_kernel("chunk_sums", kernel, n, [cost, x, numpy.int32(n)], {"chunks": [1, 2, 4, 5]},
            lang="C")
'''

# A script whose answer comes from its own run_kernel() call on a backend named in the script
# (CuPy): the runner makes that call on its backend too, here Kernel Tuner's C backend.
ANSWER_ON_ITS_BACKEND = SCRIPT.replace("from kernel_tuner import tune_kernel",
                                       "from kernel_tuner import run_kernel, tune_kernel").replace(
    'tune_kernel("scale"',
    'answer = run_kernel("scale", kernel, n, [numpy.zeros_like(x), x, numpy.int32(n)],\n'
    '                    {"reps": 1, "skip": 0}, lang="cupy")\n'
    'tune_kernel("scale"').replace('lang="C")', 'lang="cupy", answer=[answer[0], None, None])')

SCALE_BUFFERS = [{"name": "out", "role": "inout"}, {"name": "in", "role": "input"}]


class CheckedBest(unittest.TestCase):
    def run_runner(self, folder, default, script_text=SCRIPT, buffers=SCALE_BUFFERS,
                   lang="nvcuda"):
        script = os.path.join(folder, "scale.py")
        with open(script, "w") as f:
            f.write(script_text)
        spec = os.path.join(folder, "spec.json")
        with open(spec, "w") as f:
            json.dump({"buffers": buffers, "arguments": [
                {"buffer": buffers[0]["name"]}, {"buffer": "in"}, {"scalar": "n"}]}, f)
        cutune = os.path.join(folder, "cutune.json")
        with open(cutune, "w") as f:
            f.write("cutune: a line before the report\n"
                    + json.dumps({"default": {"config": default}}))
        done = subprocess.run([sys.executable, RUNNER, script, "20", lang, "60", spec, cutune],
                              capture_output=True, text=True, timeout=240)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = done.stdout
        return json.loads(text[text.rindex("\n{") + 1:] if "\n{" in text else text)

    def test_a_config_that_does_nothing_is_not_the_best(self):
        with tempfile.TemporaryDirectory() as folder:
            result = self.run_runner(folder, {"reps": 2, "skip": 0})
        self.assertEqual(result["fastest_unchecked_ms"], 0.5)
        self.assertEqual(result["best_ms"], 1.0)
        self.assertEqual(result["best_config"], {"reps": 1, "skip": 0})
        self.assertEqual(result["rejected"], 3)  # skip = 1 at each of the three reps
        self.assertEqual(result["valid"], 6)

    def test_partial_sums_are_checked_by_their_total(self):
        with tempfile.TemporaryDirectory() as folder:
            result = self.run_runner(folder, {"chunks": 1}, PARTIAL_SUMS,
                                     [{"name": "cost", "role": "partial_sums"},
                                      {"name": "in", "role": "input"}])
        self.assertEqual(result["fastest_unchecked_ms"], 0.5)
        self.assertEqual(result["best_config"], {"chunks": 2})  # its cost differs from chunks 1's
        self.assertEqual(result["rejected"], 1)  # chunks = 5 only

    def test_the_scripts_own_runs_take_the_runners_backend(self):
        with tempfile.TemporaryDirectory() as folder:
            result = self.run_runner(folder, {"reps": 2, "skip": 0}, ANSWER_ON_ITS_BACKEND, lang="C")
        self.assertEqual(result["wrong"], 3)  # skip = 1 leaves the answer's output unwritten
        self.assertEqual(result["best_config"], {"reps": 1, "skip": 0})


if __name__ == "__main__":
    unittest.main()
