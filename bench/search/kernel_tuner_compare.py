#!/usr/bin/env python3
"""Kernel Tuner's search strategies beside cutune's, on the same recorded spaces and budgets.

Kernel Tuner (PyPI kernel_tuner, pinned in bench/search/requirements-kernel-tuner.txt; installed
by `scripts/install-deps.sh --kernel-tuner` into .venv-kernel-tuner) runs each strategy in
simulation mode on each Kernel Tuner cache file: its strategy proposes configs, the cache answers
with the recorded time, nothing is compiled or run. Each (strategy, space, budget) is its own run
with strategy_options max_fevals = budget (many of its strategies plan with the budget), repeated
with seeds first-seed..first-seed+repeats-1 (numpy's and Python's generators, which its strategies
draw from; --first-seed, default 0, for another set of seeds). A run
is scored by the fraction of the optimum it reached, optimum / fastest recorded time among its
first `budget` distinct configs (Kernel Tuner's results list a revisited config again; cutune never
measures one twice, so only a config's first visit counts; failed configs count as evaluations, as
in cutune). A config the recording
lacks was illegal for the original tuner: a restriction keeps Kernel Tuner off it, as cutune's
space drops it before it costs an evaluation.

cutune runs `cutune bench-strategies` (the tune driver, --batch as given) over the same files,
once per repeat (--seed r --repeats 1); its strategies ignore the budget, so one run of the
largest budget gives every smaller one.

Prints one table: at each budget, mean ± standard error of the per-repeat score (the mean over
the spaces of repeat r's fraction of the optimum; the spaces are fixed, so the error is the
seeds'), cutune's strategies first, then each Kernel Tuner strategy as it finishes, then Kernel
Tuner's best at each budget, then the first cutune strategy minus that best in standard errors of
the difference, sqrt(se_a^2 + se_b^2): unpaired, since seed r of cutune and of Kernel Tuner
share nothing.

--kt-scores FILE keeps Kernel Tuner's per-seed scores (keyed by strategy, budget, seed and the set
of recordings): scores found there are reused instead of run again, the others are run and added,
so a change to cutune is measured against the same Kernel Tuner runs in seconds, not in minutes.

  .venv-kernel-tuner/bin/python bench/search/kernel_tuner_compare.py data/spaces \\
      --cutune build/release/bin/cutune [--budgets 25,50,100,200] [--repeats 10] [--first-seed 0]
      [--batch 32] [--kt-scores kt-scores.json]
"""
import argparse
import csv
import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time

# Kernel Tuner 1.5.0's strategies, less brute_force (exhaustive, not a search) and
# pyatf_strategies (a wrapper needing the separate pyATF package).
KT_STRATEGIES = [
    "adaptive_tabu_greywolf", "basinhopping", "bayes_opt", "diff_evo", "dual_annealing",
    "firefly_algorithm", "genetic_algorithm", "greedy_ils", "greedy_mls", "hybrid_vndx",
    "minimize", "mls", "nsga2", "nsga3", "ordered_greedy_mls", "pso", "random_sample",
    "simulated_annealing", "skopt",
]


def recorded_times(doc):
    """A cache file's configs and recorded times as text: equal for two files of one recording."""
    return json.dumps(sorted((k, str(v.get("time"))) for k, v in doc["cache"].items()))


def cache_files(inputs):
    """Kernel Tuner cache files (*.json, *.json.gz; T4 files skipped), each recording once."""
    files = []
    for path in inputs:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in names if n.endswith((".json", ".json.gz"))]
        else:
            files.append(path)
    seen, spaces = {}, []
    for path in sorted(files):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            doc = json.load(f)
        if "cache" not in doc:
            continue  # a T4 file: the same measurements are in the cache file beside it
        label = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path).split(".")[0]
        fingerprint = recorded_times(doc)
        if fingerprint in seen:
            print(f"skipping {label}: the same recording as {seen[fingerprint]}")
            continue
        seen[fingerprint] = label
        spaces.append((label, doc))
    return spaces


def space_set(spaces):
    """A name for a set of recordings: a digest of their labels and recorded times."""
    digest = hashlib.sha256()
    for label, doc in sorted(spaces, key=lambda s: s[0]):
        digest.update(label.encode())
        digest.update(recorded_times(doc).encode())
    return digest.hexdigest()[:16]


def score_key(strategy, budget, seed, spaces_name):
    return f"{strategy}|{budget}|{seed}|{spaces_name}"


def load_scores(path):
    """Saved Kernel Tuner scores (score_key -> score); none when the file does not exist yet."""
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def save_scores(path, scores):
    """Writes through a temporary file, so an interrupted run leaves the previous file whole."""
    with open(path + ".tmp", "w") as f:
        json.dump(scores, f, indent=0, sort_keys=True)
    os.replace(path + ".tmp", path)


def optimum(doc):
    return min(v["time"] for v in doc["cache"].values() if isinstance(v.get("time"), (int, float)))


def run_kernel_tuner(kt, doc, cache_path, strategy, budget, seed):
    keys = doc["tune_params_keys"]
    import numpy as np  # late: distinct_prefix is tested without Kernel Tuner's environment
    legal = set(doc["cache"].keys())
    random.seed(seed)
    np.random.seed(seed)

    # A named function: Kernel Tuner rewrites a lambda's source text into a restriction string.
    def recorded(params):
        return ",".join(str(params[k]) for k in keys) in legal

    results, _ = kt.tune_kernel(
        doc["kernel_name"], "", doc["problem_size"], [], doc["tune_params"],
        cache=cache_path, simulation_mode=True, strategy=strategy,
        strategy_options={"max_fevals": budget},
        restrictions=recorded,
        verbose=False, quiet=True)
    times = [r["time"] for r in distinct_prefix(results, keys, budget)
             if isinstance(r.get("time"), (int, float))]
    return optimum(doc) / min(times) if times else 0.0


def distinct_prefix(results, keys, budget):
    """The first `budget` results of distinct configs (failed ones included), in visiting order."""
    seen, out = set(), []
    for r in results:
        config = tuple(str(r.get(k)) for k in keys)
        if config in seen:
            continue
        seen.add(config)
        out.append(r)
        if len(out) == budget:
            break
    return out


def mean_se(xs):
    """Mean and standard error (sample standard deviation / sqrt(n)); se 0 for one value."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, 0.0
    return mean, (sum((x - mean) ** 2 for x in xs) / (n - 1) / n) ** 0.5


def margin_in_se(a, b):
    """(mean(a) - mean(b)) / sqrt(se_a^2 + se_b^2), a and b independent samples."""
    (ma, sa), (mb, sb) = mean_se(a), mean_se(b)
    se = (sa * sa + sb * sb) ** 0.5
    return (ma - mb) / se if se > 0 else float("inf") if ma > mb else 0.0


def cell(xs):
    mean, se = mean_se(xs)
    return f"{mean:.4f} ± {se:.4f}".rjust(17)


def run_cutune(binary, inputs, budgets, seeds, batch, strategies):
    """strategy -> one list a budget of per-seed scores (mean over spaces)."""
    table = {"cutune " + name: [[] for _ in budgets] for name in strategies}
    for seed in seeds:
        out = tempfile.mkdtemp(prefix="cutune-compare-")
        subprocess.run([binary, "bench-strategies", *inputs, "--budget", str(max(budgets)),
                        "--repeats", "1", "--seed", str(seed), "--batch", str(batch),
                        "--strategies", ",".join(strategies), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
        curves = {}  # strategy -> space -> curve
        with open(os.path.join(out, "strategy_curves.csv")) as f:
            for row in csv.DictReader(f):
                curves.setdefault(row["strategy"], {}).setdefault(row["space"], []).append(
                    float(row["mean_fraction_of_optimum"]))
        for name in strategies:
            spaces = curves[name]
            for i, b in enumerate(budgets):
                table["cutune " + name][i].append(
                    sum(curve[b - 1] for curve in spaces.values()) / len(spaces))
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("spaces", nargs="+", help="recorded space files or folders of them")
    parser.add_argument("--cutune", default="build/release/bin/cutune")
    parser.add_argument("--budgets", default="25,50,100,200")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds first-seed..first-seed+repeats-1, the same for both tuners")
    parser.add_argument("--batch", type=int, default=32, help="cutune's candidates per round")
    parser.add_argument("--strategies", default=",".join(KT_STRATEGIES),
                        help="Kernel Tuner strategies (comma-separated)")
    parser.add_argument("--ours", default="lfbo,pattern,random",
                        help="cutune strategies (comma-separated)")
    parser.add_argument("--kt-scores", metavar="FILE",
                        help="Kernel Tuner's per-seed scores: reused from FILE, new ones added")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    import kernel_tuner as kt  # late: --help works without it
    spaces = cache_files(args.spaces)
    seeds = range(args.first_seed, args.first_seed + args.repeats)
    table = run_cutune(args.cutune, args.spaces, budgets, seeds, args.batch, args.ours.split(","))
    head = "".join(f"{'@' + str(b):>17}" for b in budgets)
    print(f"{len(spaces)} spaces x {args.repeats} repeats; cutune at batch {args.batch}; "
          "fraction of the optimum, mean ± standard error over repeats of the mean over spaces")
    print(f"{'strategy':<38}{head}")
    for name, row in table.items():
        print(f"{name:<38}" + "".join(cell(xs) for xs in row), flush=True)
    lead_name = "cutune " + args.ours.split(",")[0]
    lead = table[lead_name]
    scratch = tempfile.mkdtemp(prefix="kt-compare-")
    saved = load_scores(args.kt_scores)
    spaces_name = space_set(spaces)
    best = [None] * len(budgets)  # per budget: (name, per-repeat scores) of the highest mean
    finished = 0
    for strategy in args.strategies.split(","):
        started = time.time()
        row = []
        try:
            for budget in budgets:
                scores = []
                for seed in seeds:
                    key = score_key(strategy, budget, seed, spaces_name)
                    if key in saved:
                        scores.append(saved[key])
                        continue
                    fractions = []
                    for label, doc in spaces:
                        # Kernel Tuner appends to its cache file: each run gets a fresh copy.
                        path = os.path.join(scratch, "cache.json")
                        with open(path, "w") as f:
                            json.dump(doc, f)
                        fractions.append(run_kernel_tuner(kt, doc, path, strategy, budget, seed))
                    scores.append(sum(fractions) / len(fractions))
                    saved[key] = scores[-1]
                row.append(scores)
            if args.kt_scores:
                save_scores(args.kt_scores, saved)
        except Exception as error:  # a strategy that breaks inside Kernel Tuner loses its row only
            print(f"{'kernel_tuner ' + strategy:<38} failed at budget {budget}, {label}, seed "
                  f"{seed}: {type(error).__name__}: {error}", flush=True)
            continue
        best = [b if b and mean_se(b[1])[0] >= mean_se(xs)[0] else (strategy, xs)
                for b, xs in zip(best, row)]
        finished += 1
        # Rows appear as they finish (some strategies take minutes), each with its run time.
        print(f"{'kernel_tuner ' + strategy:<38}" + "".join(cell(xs) for xs in row)
              + f"   ({time.time() - started:.0f} s)", flush=True)
    if finished == 0:
        print("no Kernel Tuner strategy finished: nothing to compare")
        return
    print(f"{'kernel_tuner best':<38}" + "".join(cell(xs) for _, xs in best))
    print("  (" + ", ".join(f"@{b} {name}" for b, (name, _) in zip(budgets, best)) + ")")
    margins = [margin_in_se(a, xs) for a, (_, xs) in zip(lead, best)]
    print(f"{lead_name + ' minus best, in se':<38}" + "".join(f"{m:>17.1f}" for m in margins))
    ahead = all(m >= 2 for m in margins)
    print(f"\n{lead_name} ahead of every Kernel Tuner strategy that finished ({finished}) by at "
          f"least two standard errors at every budget: {'yes' if ahead else 'no'}")


if __name__ == "__main__":
    main()
