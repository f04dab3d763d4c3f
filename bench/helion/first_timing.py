"""How long a tune waited for its first timing: in Helion's autotune log (the CSV of
`autotune_log`, which cutune's adapter writes too), the seconds from the first config handed to
the benchmark worker ("started") to the first result. Helion 1.5.1 times configs in a spawned
worker process (`autotune_benchmark_subprocess`), a fresh Python that imports torch and Helion
before it can time anything: a tune whose worker is not yet running waits this long however well
it searches, and Helion's own tune starts a worker each time. Prints one line per log; the head
to head (head_to_head.py) records the same figure in each row.

    python bench/helion/first_timing.py autotune-*.csv
"""
import csv
import sys


def first_timing(path: str) -> dict:
    """{"wait_s": first result - first start, "first_result_s", "last_s"} from the log at `path`
    (seconds since the tune's log began), or {} when the log has no result."""
    started = result = last = None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            at = float(row["timestamp_s"])
            last = at
            if row["status"] == "started":
                started = at if started is None else started
            elif result is None:
                result = at
    if started is None or result is None:
        return {}
    return {"wait_s": result - started, "first_result_s": result, "last_s": last}


def main(paths: list) -> int:
    for path in paths:
        found = first_timing(path)
        if not found:
            print(f"{path}: no result logged")
            continue
        print(f"{path}: first timing {found['wait_s']:.2f} s after the first config was handed "
              f"over (at {found['first_result_s']:.2f} s of {found['last_s']:.2f} s logged)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
