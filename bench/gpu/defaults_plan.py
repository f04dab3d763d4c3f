"""The configs scripts/gpu/gemm-defaults.sh times on one problem: default_config as `cutune space`
computes it for the H200's description (the same seeds and rules as a tune's default, the runtime's
untuned answer), then the rule candidates of gemm_candidates.txt that the problem can hold.

    python3 bench/gpu/defaults_plan.py CUTUNE PROBLEM [--candidates]

Prints NAME=JSON lines for gemm_peer_bench --config: `default` first, then `cand_NAME`. A candidate
whose cluster is wider than the problem's grid of tiles is left out, as the space's
cluster_fits_tile_grid constraint would repair it."""
import json
import os
import subprocess
import sys

CANDIDATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_candidates.txt")


def problem_dims(problem):
    args = dict(item.split("=", 1) for item in problem.split(","))
    return int(args["m"]), int(args["n"])


def candidates(problem, path=CANDIDATES):
    """[(name, config dict)] of the candidates whose clusters fit `problem`'s tile grid."""
    m, n = problem_dims(problem)
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, text = line.split(None, 1)
            config = json.loads(text)
            tiles_m = -(-m // config["tile_m"])
            tiles_n = -(-n // config["tile_n"])
            if config["cluster_m"] <= tiles_m and config["cluster_n"] <= tiles_n:
                out.append((name, config))
    return out


def default_config(cutune, problem):
    report = subprocess.run([cutune, "space", "gemm", "--problem", problem, "--json", "--draws", "1"],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(report)["default_config"]


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--candidates"):
        sys.exit("usage: defaults_plan.py CUTUNE PROBLEM [--candidates]")
    print("default=" + json.dumps(default_config(argv[0], argv[1]), separators=(",", ":")))
    if len(argv) == 3:
        for name, config in candidates(argv[1]):
            print(f"cand_{name}=" + json.dumps(config, separators=(",", ":")))


if __name__ == "__main__":
    main(sys.argv[1:])
