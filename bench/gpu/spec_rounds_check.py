#!/usr/bin/env python3
"""The checks of scripts/gpu/spec-rounds.sh on a CUDA spec tune's report (`cutune tune --json`):
the worker's warm-up ran, the steady state settled on the first config, the SM clock was read
every round, every finalist was timed, and the winner is at least as fast as the default. Prints
PASS / FAIL per check and the tournament's share of the tune; exits 1 if any check fails.

    python3 bench/gpu/spec_rounds_check.py REPORT.json
"""
import json
import sys


def checks(report: dict) -> list:
    """[(name, ok, what was seen)]"""
    t = report["tournament"]
    r = t["rounds"]
    return [
        ("worker warm-up ran (3..40 rounds)", 3 <= r["warmup_rounds"] <= 40, r["warmup_rounds"]),
        ("steady state settles on the first config", r["steady_state"].startswith(
            "untimed rounds until the first config's time"), r["steady_state"]),
        ("SM clock read every round", all(c for c in r["sm_clock_mhz"]), r["sm_clock_mhz"][:5]),
        ("every finalist timed", all(f["outcome"] == "ok" for f in t["finalists"]),
         [f["outcome"] for f in t["finalists"]]),
        ("winner / default >= 1", report.get("speedup_over_default", 0) >= 1.0,
         (report.get("speedup_over_default"), report.get("speedup_interval"))),
    ]


if __name__ == "__main__":
    report = json.load(open(sys.argv[1]))
    results = checks(report)
    for name, ok, seen in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {seen}")
    t = report["tournament"]
    print(f"tournament {t['seconds']:.2f} s, {t['share_of_wall_time'] * 100:.1f} % of the tune")
    sys.exit(0 if all(ok for _, ok, _ in results) else 1)
