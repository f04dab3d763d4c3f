"""Checks cutune's Kernel Tuner exports with Kernel Tuner itself (run by kt_replay_test.sh).

  kt_replay_check.py CACHE T4 PROBLEM_SIZE [--failures]

For one exported cache and T4 file: the cache reads through Kernel Tuner's cache reader (the 1.1.0
cache schema is not in the pinned wheel, and the repository keeps no copy of another project's
files);
kernel_tuner.tune_cache, Kernel Tuner's simulation mode, replays every config with the time the
cache holds; the problem size is the integers PROBLEM_SIZE names ("64,48,32"), not text; every
correct config carries its timed repetitions (`times`, median = `time`) and a compile time; the T4
file validates against the T4 results schema Kernel Tuner ships, with `runtimes` filled. With
--failures the cache must also hold failed configs, under Kernel Tuner's markers.
"""

import json
import math
import statistics
import sys
from pathlib import Path

import jsonschema
import kernel_tuner
from kernel_tuner import file_utils, util


def fail(what):
    sys.exit(f"kt_replay_check: {what}")


def check_cache(path, problem_size):
    cache = json.loads(Path(path).read_text())
    if cache.get("schema_version") != "1.1.0":
        fail(f"{path}: schema_version {cache.get('schema_version')!r}, expected '1.1.0'")
    read = util.read_cache(path, open_cache=False)
    if read["cache"].keys() != cache["cache"].keys() or read["problem_size"] != cache["problem_size"]:
        fail(f"{path}: Kernel Tuner's cache reader reads something else than the JSON")
    expected = problem_size[0] if len(problem_size) == 1 else problem_size
    if cache["problem_size"] != expected:
        fail(f"{path}: problem_size {cache['problem_size']!r}, expected {expected!r}")
    ok = {k: v for k, v in cache["cache"].items() if not isinstance(v["time"], str)}
    if not ok:
        fail(f"{path}: no correct config")
    for key, entry in ok.items():
        times = entry.get("times", [])
        if not times or not math.isclose(statistics.median(times), entry["time"], rel_tol=1e-9):
            fail(f"{path}: config {key}: time {entry['time']} is not the median of times {times}")
        if entry["compile_time"] <= 0:
            fail(f"{path}: config {key}: compile_time {entry['compile_time']}")
    return cache


def check_replay(path, cache):
    # Kernel Tuner's own replay: arguments and restrictions inferred from the cache, every config
    # of the space served by its simulation runner.
    # Its restrictions admit the configs that did not fail, so those are what it replays.
    results, _ = kernel_tuner.tune_cache(path, strategy="brute_force", quiet=True)
    keys = cache["tune_params_keys"]
    replayed = {",".join(str(r[k]) for k in keys): r for r in results}
    ok = {k for k, v in cache["cache"].items() if not isinstance(v["time"], str)}
    if set(replayed) != ok:
        fail(f"{path}: simulation replayed {len(replayed)} configs, the cache holds {len(ok)} "
             f"correct ones: {sorted(set(replayed) ^ ok)[:5]}")
    for key in ok:
        if replayed[key]["time"] != cache["cache"][key]["time"]:
            fail(f"{path}: config {key}: replayed time {replayed[key]['time']}, "
                 f"cache says {cache['cache'][key]['time']}")
    return len(replayed)


def check_t4(path):
    t4 = json.loads(Path(path).read_text())
    _, schema = file_utils.output_file_schema("results")
    jsonschema.validate(t4, schema)
    correct = [r for r in t4["results"] if r["invalidity"] == "correct"]
    if not correct or any(not r["times"]["runtimes"] for r in correct):
        fail(f"{path}: a correct result without runtimes")


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["--failures"]):
        fail("usage: kt_replay_check.py CACHE T4 PROBLEM_SIZE [--failures]")
    cache_path, t4_path, problem = sys.argv[1:4]
    cache = check_cache(cache_path, [int(x) for x in problem.split(",")])
    markers = {v["time"] for v in cache["cache"].values() if isinstance(v["time"], str)}
    if sys.argv[4:] and not markers:
        fail(f"{cache_path}: no failed config, expected some")
    replayed = check_replay(cache_path, cache)
    check_t4(t4_path)
    print(f"kt_replay_check: {cache_path}: {replayed} of {len(cache['cache'])} configs replayed")


if __name__ == "__main__":
    main()
