#!/usr/bin/env python3
"""The bar of scripts/cpu/dispatch-check.sh, read from bench_runtime_shapes' summary line
"... held out: G over N shapes (F failed)": no held-out pick fails and the held-out geomean is at
least 0.95 of per-shape tuning. Exits 1 when the bar is not met or the line is missing.

    python3 bench/cpu/dispatch_bar.py OUTPUT.txt
"""
import re
import sys

BAR = 0.95


def verdict(text: str) -> tuple:
    """(message, ok)"""
    m = re.search(r"held out: ([0-9.na]+) over (\d+) shapes \((\d+) failed\)", text)
    if not m:
        return "dispatch-check: no summary line", False
    geomean, failed = float(m.group(1)), int(m.group(3))
    ok = failed == 0 and geomean >= BAR
    return (f"bar (no held-out pick fails, held-out geomean >= {BAR}): "
            f"{'met' if ok else 'NOT met'} (geomean {geomean:.4f}, {failed} failed)"), ok


if __name__ == "__main__":
    message, ok = verdict(open(sys.argv[1]).read())
    print("\n" + message)
    sys.exit(0 if ok else 1)
