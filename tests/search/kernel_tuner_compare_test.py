"""kernel_tuner_compare.py scores Kernel Tuner's distinct configs, as cutune counts evaluations,
gives each mean its standard error and a margin in standard errors, and keeps Kernel Tuner's
scores in a file under a key that names the recordings they were measured on."""
import importlib.util
import os
import sys
import tempfile

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

mean, se = compare.mean_se([1.0, 2.0, 3.0, 4.0])  # sample sd sqrt(5/3), over sqrt(4)
assert mean == 2.5 and abs(se - (5 / 3) ** 0.5 / 2) < 1e-12, (mean, se)
assert compare.mean_se([0.7]) == (0.7, 0.0)
# means 2.5 and 1.5, each se sqrt(5/3)/2: difference 1 over sqrt(2 * 5/12)
margin = compare.margin_in_se([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0])
assert abs(margin - 1 / (10 / 12) ** 0.5) < 1e-12, margin
doc = {"cache": {"1,1": {"time": 5.0}, "2,1": {"time": 1.0}}}
other = {"cache": {"1,1": {"time": 5.0}, "2,1": {"time": 2.0}}}
name = compare.space_set([("conv/A100", doc)])
assert name == compare.space_set([("conv/A100", doc)])
assert name != compare.space_set([("conv/A100", other)])  # other times, other recordings
assert name != compare.space_set([("conv/A4000", doc)])
assert compare.space_set([("a", doc), ("b", other)]) == compare.space_set([("b", other), ("a", doc)])
key = compare.score_key("nsga2", 25, 41, name)
assert key != compare.score_key("nsga2", 25, 40, name)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "kt.json")
    assert compare.load_scores(path) == {}  # no file yet: nothing to reuse
    compare.save_scores(path, {key: 0.625})
    assert compare.load_scores(path) == {key: 0.625}
    assert os.listdir(folder) == ["kt.json"]
print("ok")
