"""kernel_tuner_compare.py scores Kernel Tuner's distinct configs, as cutune counts evaluations."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("compare", sys.argv[1])
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

keys = ["x", "y"]
results = [
    {"x": 1, "y": 1, "time": 5.0},
    {"x": 1, "y": 1, "time": 5.0},  # revisited: no evaluation
    {"x": 2, "y": 1, "time": "CompilationFailedConfig"},  # failed: one evaluation
    {"x": 2, "y": 1, "time": "CompilationFailedConfig"},
    {"x": 3, "y": 1, "time": 1.0},
    {"x": 4, "y": 1, "time": 0.5},
]
first3 = compare.distinct_prefix(results, keys, 3)
assert [(r["x"], r["y"]) for r in first3] == [(1, 1), (2, 1), (3, 1)], first3
assert len(compare.distinct_prefix(results, keys, 10)) == 4
print("ok")
