"""The cutune columns of peers.py (its CUTUNE_TUNED file) from gemm_peer_bench's lines: per shape,
the tuned config and default_config with the cubins gemm_peer_bench timed, so that peers.py launches
the very cubins the C++ columns measured.

    python3 bench/gpu/cutune_columns.py OUT DTYPE_LAYOUT TARGET SHAPE...

Reads OUT/bench_SHAPE_DTYPE_LAYOUT.jsonl (e.g. DTYPE_LAYOUT bf16_layout0) and writes TARGET:
{shape: {"config", "cubin" (the tuned one, where a tune ran), "default": {"config", "cubin"}}}.
A shape without a passing default or tuned line is left out."""
import json
import os
import sys


def columns(out, dtype_layout, shapes):
    found = {}
    for shape in shapes:
        try:
            with open(os.path.join(out, f"bench_{shape}_{dtype_layout}.jsonl")) as f:
                lines = [json.loads(line) for line in f if line.startswith("{")]
        except OSError:
            continue
        for line in lines:
            if line.get("column") in ("tuned", "default") and line.get("outcome") == "ok":
                found.setdefault(shape, {})[line["column"]] = {"config": line["config"], "cubin": line["cubin"]}
    return {shape: dict(both.get("tuned", {}), default=both.get("default", {})) for shape, both in found.items()}


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: cutune_columns.py OUT DTYPE_LAYOUT TARGET SHAPE...")
    with open(argv[2], "w") as f:
        json.dump(columns(argv[0], argv[1], argv[3:]), f)


if __name__ == "__main__":
    main(sys.argv[1:])
