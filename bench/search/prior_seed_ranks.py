"""Where one device's fastest configs land on another device, for recordings of one kernel on
several devices (Kernel Tuner cache files, as data/spaces keeps them): per target and source, each
of the source's COUNT fastest configs as the fraction of the target's optimum it reaches and its
rank among the target's configs (top x %). It shows whether what the first seeds of a prior look
like on a device tells that the prior fits there (docs/strategies.md, the transfer bars).

    python3 bench/search/prior_seed_ranks.py data/spaces/convolution_milo [--count 6]
"""
import argparse
import bisect
import gzip
import json
import os


def times_of(path: str):
    """Config key -> time, the correct results of one recording; None for a file in another
    format than Kernel Tuner's cache (a T4 results file)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        cache = json.load(f).get("cache")
    if cache is None:
        return None
    out = {}
    for key, row in cache.items():
        t = row.get("time")
        if isinstance(t, (int, float)) and t == t and t < 1e9:
            out[key] = t
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--count", type=int, default=6)
    opts = parser.parse_args()
    names = sorted(n for n in os.listdir(opts.folder) if n.endswith((".json", ".json.gz")))
    devices = {n.split(".")[0]: times_of(os.path.join(opts.folder, n)) for n in names}
    devices = {name: times for name, times in devices.items() if times is not None}
    print("| target | from | " + " | ".join(f"#{i + 1}" for i in range(opts.count)) + " |")
    print("| --- | --- |" + " --- |" * opts.count)
    for target, times in devices.items():
        ordered = sorted(times.values())
        for source, theirs in devices.items():
            if source == target:
                continue
            cells = []
            for key in sorted(theirs, key=theirs.get)[:opts.count]:
                if key not in times:
                    cells.append("absent")
                    continue
                rank = bisect.bisect_left(ordered, times[key]) / len(ordered)
                cells.append(f"{ordered[0] / times[key]:.2f}, top {100 * rank:.1f} %")
            print(f"| {target} | {source} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
