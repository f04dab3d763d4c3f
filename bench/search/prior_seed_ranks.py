"""Where one device's fastest configs land on another device, for recordings of one kernel on
several devices (Kernel Tuner cache files, as data/spaces keeps them): per target and source, each
of the source's COUNT fastest configs as the fraction of the target's optimum it reaches and its
rank among the target's configs (top x %). It shows whether what the first seeds of a prior look
like on a device tells that the prior fits there (docs/strategies.md, the transfer bars).

    python3 bench/search/prior_seed_ranks.py data/spaces/convolution_milo [--count 6]
"""
import argparse
import bisect
import os

from kernel_tuner_compare import cache_files


def times_of(doc: dict) -> dict:
    """Config key -> time, the correct results of one Kernel Tuner cache file."""
    out = {}
    for key, row in doc["cache"].items():
        t = row.get("time")
        if isinstance(t, (int, float)) and t == t and t < 1e9:
            out[key] = t
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--count", type=int, default=6)
    opts = parser.parse_args()
    devices = {os.path.basename(label): times_of(doc) for label, doc in cache_files([opts.folder])}
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
