"""Merges the output folders of scripts/gpu/gemm-peers.sh and gemm-defaults.sh runs (say one with
SHAPES=first4 and one with SHAPES=last3) into one table: TFLOP/s and the ratio to cuBLAS for cutune
tuned, cutune default_config, the two Triton columns (the tutorial-form autotune and inductor's
max-autotune templates) and Helion, a row per shape, dtype, B layout and timing regime (flushed, or
back_to_back: gemm_peer_bench --flush 0, bench_TAG_b2b.jsonl; peers.py FLUSH=none); then the rule
candidates' ratios (gemm_peer_bench columns named cand_*), one row per shape. Our columns are divided by the cuBLASLt of the same
gemm_peer_bench process, the Python peers by torch's cuBLAS of the same peers.py process, each
ratio paired within timing rounds; "torch/C++" shows whether the two cuBLAS figures agree,
"gemmEx/Lt" whether torch's call (cublasGemmEx) and cuBLASLt's heuristic #1 differ in one C++
process, and "cutune (same harness)/torch" is the tuned config launched inside peers.py: the
ratio to compare with Triton's and Helion's; "default (same harness)/torch" is default_config there.
Where a shape was also tuned with the wide budget (gemm-defaults.sh TUNE_WIDE_SHAPES), "tuned/wide"
is the short tune's winner over the wide one's, both timed in one process.

    python3 bench/gpu/peer_table.py OUT [OUT...] [--write DIR]

Prints a markdown table and writes table.md and table.json to DIR (default: the first OUT).
Standard library only, so it runs anywhere.
"""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_shapes  # noqa: E402


SUITE = ["2048x4096x4096", "4096x4096x4096", "8192x8192x8192", "1024x8192x8192", "128x8192x8192",
         "8192x8192x1024", "4096x14336x4096"]


EXTENDED = [shape for shape, _, _ in gemm_shapes.load()]


def order(row):
    """The suite's order, then the extended list's, then any other shape; bf16 layout 0 first,
    each shape's flushed row before its back-to-back one."""
    known = SUITE + [shape for shape in EXTENDED if shape not in SUITE]
    rank = known.index(row["shape"]) if row["shape"] in known else len(known)
    return (row["dtype"] != "bf16", row["layout"], rank, row["shape"], row.get("timing", "flushed") != "flushed")


def new_row(rows, shape, dtype, layout, timing):
    return rows.setdefault((shape, dtype, layout, timing),
                           {"shape": shape, "dtype": dtype, "layout": layout, "timing": timing})


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def collect(folders):
    rows = {}  # (shape, dtype, layout, timing) -> merged fields; a later folder overrides an earlier one
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "bench_*.jsonl"))):
            tag = os.path.basename(path)[len("bench_"):-len(".jsonl")]
            shape, dtype, layout, *regime = tag.split("_")
            timing = "back_to_back" if regime == ["b2b"] else "flushed"
            row = new_row(rows, shape, dtype, layout[-1], timing)
            for line in read_lines(path):
                column = line["column"]
                for field in ("tflops", "vs_cublas", "config", "outcome", "detail", "max_rel_error"):
                    if field in line:
                        row[f"{column}_{field}"] = line[field]
            for prefix, suffix in (("", ""), ("wide_", "_wide")):
                try:
                    with open(os.path.join(folder, f"tune_{tag}{suffix}.json")) as f:
                        tune = json.load(f)
                    row[f"{prefix}tune_s"] = tune.get("seconds")
                    row[f"{prefix}tune_configs"] = tune.get("evaluated")
                    row[f"{prefix}tune_within_2pct_s"] = tune.get("seconds_to_within_2pct")
                except (OSError, ValueError):
                    pass
        peers = os.path.join(folder, "peers.jsonl")
        if os.path.exists(peers):
            for line in read_lines(peers):
                if "shape" not in line:
                    continue
                # Rows of runs before peers.py took DTYPE and LAYOUT name neither: bf16, layout 0.
                dtype, layout = line.get("dtype", "bf16"), str(line.get("layout", 0))
                timing = "back_to_back" if line.get("flush") == "none" else "flushed"
                row = new_row(rows, line["shape"], dtype, layout, timing)
                row.update({f"py_{key}": value for key, value in line.items()
                            if key not in ("shape", "dtype", "layout")})
    return sorted(rows.values(), key=order)


def cell(row, key, digits):
    value = row.get(key)
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


COLUMNS = [  # header, key, digits
    ("shape", "shape", None), ("dtype", "dtype", None), ("B", "layout", None), ("timing", "timing", None),
    ("cuBLASLt (C++) TF/s", "cublas_tflops", 0), ("gemmEx/Lt (C++)", "cublas_gemm_ex_vs_cublas", 3),
    ("tuned TF/s", "tuned_tflops", 0), ("tuned/cuB", "tuned_vs_cublas", 3),
    ("default TF/s", "default_tflops", 0), ("default/cuB", "default_vs_cublas", 3),
    ("cuBLAS (torch) TF/s", "py_cublas_tflops", 0), ("torch/C++ cuB", "torch_vs_cpp", 3),
    ("cutune (same harness) TF/s", "py_cutune_tflops", 0),
    ("cutune (same harness)/torch", "py_cutune_vs_cublas", 3),
    ("default (same harness)/torch", "py_default_vs_cublas", 3),
    ("Triton tutorial TF/s", "py_triton_tflops", 0), ("Triton tutorial/cuB", "py_triton_vs_cublas", 3),
    ("inductor Triton TF/s", "py_inductor_tflops", 0), ("inductor Triton/cuB", "py_inductor_vs_cublas", 3),
    ("Helion TF/s", "py_helion_tflops", 0), ("Helion/cuB", "py_helion_vs_cublas", 3),
    ("tune s", "tune_s", 1), ("configs", "tune_configs", 0), ("tuned config", "tuned_config", None),
    ("wide tune/cuB", "tuned_wide_vs_cublas", 3), ("wide configs", "wide_tune_configs", 0),
    ("tuned/wide", "tuned_vs_wide", 3),
]


def geomean(values):
    values = [v for v in values if isinstance(v, (int, float)) and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def columns_of(row):
    """The cutune columns gemm_peer_bench measured in `row`: tuned, default, cand_*."""
    return sorted({key[:-len("_outcome")] for key in row if key.endswith("_outcome")})


def wide_summary(rows):
    """How close each TUNE_BUDGET tune came to the wide one of the same shape (both winners timed in
    one process): the worst shape and the geomean, the bar a short tune is held to."""
    paired = [r for r in rows if isinstance(r.get("tuned_vs_wide"), float)]
    if not paired:
        return []
    worst = min(paired, key=lambda r: r["tuned_vs_wide"])
    return ["", f"tuned/wide over {len(paired)} shapes: geomean "
            f"{geomean([r['tuned_vs_wide'] for r in paired]):.3f}, lowest {worst['tuned_vs_wide']:.3f} "
            f"({worst['shape']} {worst['timing']})"]


def candidate_table(rows):
    """The rule candidates (cand_* columns) as ratios to cuBLASLt, a row per shape and regime, the
    best marked: the data that ranks the default rule's choices."""
    names = sorted({c for r in rows for c in columns_of(r) if c.startswith("cand_")})
    if not names:
        return []
    out = ["", "| shape | dtype | B | timing | default | " + " | ".join(n[len("cand_"):] for n in names) + " |",
           "|" + "---|" * (len(names) + 5)]
    for r in rows:
        values = {n: r.get(f"{n}_vs_cublas") for n in names}
        if not any(isinstance(v, (int, float)) for v in values.values()):
            continue
        best = max((v for v in values.values() if isinstance(v, (int, float))), default=None)
        cells = [("**%.3f**" if v == best else "%.3f") % v if isinstance(v, (int, float)) else "-"
                 for v in values.values()]
        out.append(f"| {r['shape']} | {r['dtype']} | {r['layout']} | {r['timing']} | "
                   f"{cell(r, 'default_vs_cublas', 3)} | " + " | ".join(cells) + " |")
    return out


def main(argv):
    write = None
    if "--write" in argv:
        index = argv.index("--write")
        write = argv[index + 1]
        argv = argv[:index] + argv[index + 2:]
    if not argv:
        sys.exit("usage: peer_table.py OUT [OUT...] [--write DIR]")
    rows = collect(argv)
    for row in rows:
        if row.get("py_cublas_tflops") and row.get("cublas_tflops"):
            row["torch_vs_cpp"] = row["py_cublas_tflops"] / row["cublas_tflops"]
        # peers.py times default_config as a column of its own only where the tune crowned another.
        if row.get("tuned_tflops") and row.get("tuned_wide_tflops"):
            row["tuned_vs_wide"] = row["tuned_tflops"] / row["tuned_wide_tflops"]
        row["py_default_vs_cublas"] = row.get("py_cutune_default_vs_cublas")
        if row["py_default_vs_cublas"] is None and row.get("py_cutune_config") is not None and \
                row.get("py_cutune_config") == row.get("default_config"):
            row["py_default_vs_cublas"] = row.get("py_cutune_vs_cublas")
    lines = ["| " + " | ".join(header for header, _, _ in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append("| " + " | ".join(str(row.get(key, "-")) if digits is None else cell(row, key, digits)
                                       for _, key, digits in COLUMNS) + " |")
    for dtype_layout in sorted({(r["dtype"], r["layout"], r["timing"]) for r in rows}):
        group = [r for r in rows if (r["dtype"], r["layout"], r["timing"]) == dtype_layout]
        summary = {key: geomean([r.get(key) for r in group])
                   for key in ("tuned_vs_cublas", "default_vs_cublas", "cublas_gemm_ex_vs_cublas",
                               "py_cutune_vs_cublas", "py_default_vs_cublas", "py_triton_vs_cublas",
                               "py_inductor_vs_cublas", "py_helion_vs_cublas")}
        lines.append("")
        regime = "" if dtype_layout[2] == "flushed" else f", {dtype_layout[2]}"
        lines.append(f"geomean over {len(group)} shapes, {dtype_layout[0]}, B layout {dtype_layout[1]}{regime}: " +
                     ", ".join(f"{key} {value:.3f}" for key, value in summary.items() if value))
    lines += wide_summary(rows)
    lines += candidate_table(rows)
    failures = [f"{r['shape']} {column}: {r[column + '_outcome']} {r.get(column + '_detail', '')}"
                for r in rows for column in columns_of(r) if r.get(column + "_outcome", "ok") != "ok"]
    lines += [""] + ["failed: " + text for text in failures] if failures else []
    text = "\n".join(lines) + "\n"
    print(text, end="")
    target = write or argv[0]
    with open(os.path.join(target, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(target, "table.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
