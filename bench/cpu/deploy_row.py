#!/usr/bin/env python3
"""One row of scripts/cpu/deploy-check.sh: whether what a store deploys (`cutune show --json`,
`cutune export --json`) is the winner its tune reported (`cutune tune --json`), with the winner's
paired speedup over the default, its interval, rounds and the tournament's share of the tune.
Exits 1 when the deployed config is not the winner or the speedup is under 1.

    python3 bench/cpu/deploy_row.py REPORT.json SHOW.json EXPORT.json RUN
"""
import json
import sys


def row(report: dict, shown: list, exported: list, run: str) -> tuple:
    """(line, ok)"""
    winner = report["best"]["config"]
    same = len(shown) == 1 and shown[0]["config"] == winner and exported[0]["config"] == winner
    t = report["tournament"]
    f = t["finalists"][t["winner"]]
    low, high = report["speedup_interval"]
    line = (f"{run:<4} {'yes' if same else 'NO':<8} "
            f"{report['speedup_over_default']:.3f} [{low:.3f}, {high:.3f}]{'':<5} "
            f"{f['rounds']:<8} {100 * t['share_of_wall_time']:5.1f}%  {len(t['finalists']):<9} "
            f"{f['role']} {json.dumps(winner, separators=(',', ':'))}")
    return line, same and report["speedup_over_default"] >= 1.0


def main(argv):
    report, show, export, run = argv
    line, ok = row(json.load(open(report)), json.load(open(show))["results"],
                   json.load(open(export))["results"], run)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
