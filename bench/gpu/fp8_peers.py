"""The fp8 GEMM peer table's columns (scripts/gpu/fp8-table.sh): per shape and scaling, in one
process on the same tensors, timer and check:

  scaled_mm         torch._scaled_mm (cuBLASLt), no fast accumulation: per-tensor scales (tensor),
                    per-row x per-column (row_col), and DeepSeek-V3's 1x128 / 128x128 blocks
                    (block) where this torch has the blockwise recipes on sm_90
  scaled_mm_fast    the same with use_fast_accum=True (tensor, row_col): the peer of a tuned
                    winner whose schedule accumulates fast
  deep_gemm         DeepGEMM's gemm_fp8_fp8_bf16_nt (block only; built from its source at the
                    commit bench/gpu/requirements-deep-gemm.txt names), where it imports: the
                    block-scaled GEMM DeepSeek-V3 is served with, and the block rows' peer
  triton_block      a Triton block-scaled fp8 GEMM autotuned over 8 tiles (bench/gpu/
                    fp8_triton_block.py, block only): the block rows' peer where DeepGEMM does not
                    run
  cutune_default    the family's default_config (its library, loaded with ctypes)
  cutune_tuned      the tune's winner, where FP8_TUNED names one for the shape and scaling
  cutune_cand_NAME  each candidate of the default rule (bench/gpu/gemm_fp8_candidates.txt) on
                    every shape of its scaling: FP8_LIBRARIES' lines of column cand_NAME

A is m x k row-major, B n x k row-major (x @ W.T with W the weight), each e4m3 or as FORMATS
says, D bf16. Inputs are torch.randn scaled to fill e4m3's range; scales are drawn in [2^-4, 4).
Each column is first checked against the fp32 product of the dequantized operands:
max|D - ref| / max|ref| under TOL (1e-2, the worker's kFp8Tolerance); a column that fails is
reported with its error, not timed.
Timing is peers.py's GraphTimer (an L2 flush before each launch, CUDA events, one-launch graph
replays; plain launches for a column a graph cannot capture, marked COLUMN_not_captured), ROUNDS
rounds, each timing every column REPS times, half in an order rotated by round and half in its
reverse (GraphTimer.round_there_and_back: a drift of the clocks then moves every column alike),
every ratio paired to scaled_mm within its round. The kernels cuBLASLt chose
for each scaled_mm column are recorded (COLUMN_kernels, from torch.profiler).

Environment: SHAPES (MxNxK,...), SCALINGS (tensor,row_col,block), FORMATS (A's and B's,
e4m3,e4m3; e5m2 on a side makes the problems' a_format or b_format), FP8_LIBRARIES (JSON lines of
bench/gpu/gemm_fp8_library: problem, column, config, library), FP8_TUNED (the same, column
"tuned"), REPS (30), ROUNDS (3), TOL, DEADLINE (epoch seconds: shapes after it are skipped), OUT
(folder for fp8_peers.jsonl). Prints one JSON line per shape and scaling. With `--table FILE`,
prints the markdown table of a run's fp8_peers.jsonl instead.
"""
import ctypes
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ["PEERS"] = "cublas"  # peers.py imports Helion at import time unless told otherwise
from peers import GraphTimer, error, kernels_of  # noqa: E402
import fp8_triton_block  # noqa: E402

SCALE_BLOCK = 128
ABI_VERSION = 2  # CUTUNE_GEMM_FP8_ABI_VERSION (src/families/gemm_fp8/gemm_fp8_abi.hpp)
SCALING_IDS = {"tensor": 0, "row_col": 1, "block": 2}
DTYPES = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
FORMAT_IDS = {torch.float8_e4m3fn: 0, torch.float8_e5m2: 1}  # rules::kFormatE4M3, kFormatE5M2


class Args(ctypes.Structure):
    """CutuneGemmFp8Args, field for field."""
    _fields_ = [("abi_version", ctypes.c_int), ("scaling", ctypes.c_int),
                ("a_format", ctypes.c_int), ("b_format", ctypes.c_int),
                ("m", ctypes.c_longlong), ("n", ctypes.c_longlong), ("k", ctypes.c_longlong),
                ("a", ctypes.c_void_p), ("b", ctypes.c_void_p), ("d", ctypes.c_void_p),
                ("scale_a", ctypes.c_void_p), ("scale_b", ctypes.c_void_p),
                ("sm_count", ctypes.c_int)]


class CutuneFp8:
    """One config's library prepared on one problem's tensors; call() enqueues it."""

    def __init__(self, library, scaling, a, b, d, scale_a, scale_b):
        lib = ctypes.CDLL(library, mode=os.RTLD_LOCAL)
        lib.cutune_gemm_fp8_workspace.restype = ctypes.c_ulonglong
        lib.cutune_gemm_fp8_workspace.argtypes = [ctypes.POINTER(Args)]
        lib.cutune_gemm_fp8_prepare.restype = ctypes.c_void_p
        lib.cutune_gemm_fp8_prepare.argtypes = [ctypes.POINTER(Args), ctypes.c_void_p,
                                                ctypes.c_char_p, ctypes.c_int]
        lib.cutune_gemm_fp8_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib = lib
        m, k = a.shape
        self.args = Args(ABI_VERSION, SCALING_IDS[scaling], FORMAT_IDS[a.dtype],
                         FORMAT_IDS[b.dtype], m, b.shape[0], k, a.data_ptr(),
                         b.data_ptr(), d.data_ptr(), scale_a.data_ptr(), scale_b.data_ptr(),
                         torch.cuda.get_device_properties(0).multi_processor_count)
        size = lib.cutune_gemm_fp8_workspace(ctypes.byref(self.args))
        self.workspace = torch.empty(max(int(size), 1), dtype=torch.uint8, device="cuda")
        reason = ctypes.create_string_buffer(256)
        self.handle = lib.cutune_gemm_fp8_prepare(ctypes.byref(self.args),
                                                  self.workspace.data_ptr(), reason, 256)
        if not self.handle:
            raise RuntimeError(f"{library}: {reason.value.decode()}")

    def __call__(self):
        code = self.lib.cutune_gemm_fp8_launch(ctypes.c_void_p(self.handle),
                                               ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        if code != 0:
            raise RuntimeError(f"cutune fp8 launch: cudaError {code}")


class Launches:
    """A column CUDA graphs cannot capture, replayed as plain launches (GraphTimer.time calls
    replay())."""

    def __init__(self, fn):
        self.replay = fn


def operands(m, n, k, scaling, formats=("e4m3", "e4m3")):
    """A, B (of `formats`), the scales as the cutune ABI lays them out, and the fp32 reference."""
    a = (torch.randn(m, k, device="cuda") * 64).clamp(-448, 448).to(DTYPES[formats[0]])
    b = (torch.randn(n, k, device="cuda") * 64).clamp(-448, 448).to(DTYPES[formats[1]])
    kb, nb = -(-k // SCALE_BLOCK), -(-n // SCALE_BLOCK)
    shapes = {"tensor": ((1,), (1,)), "row_col": ((m,), (n,)), "block": ((kb, m), (kb, nb))}[scaling]
    scale_a, scale_b = (torch.exp2(torch.rand(s, device="cuda") * 6 - 4) for s in shapes)
    if scaling == "tensor":
        sa, sb = scale_a, scale_b
    elif scaling == "row_col":
        sa, sb = scale_a[:, None], scale_b[:, None]
    else:  # per (row, k-block) of A, per (128 columns, k-block) of B
        sa = scale_a.t().repeat_interleave(SCALE_BLOCK, dim=1)[:, :k]
        sb = scale_b.t().repeat_interleave(SCALE_BLOCK, 0)[:n].repeat_interleave(SCALE_BLOCK, 1)[:, :k]
    ref = (a.float() * sa) @ (b.float() * sb).t()
    return a, b, scale_a, scale_b, ref


def scaled_mm(a, b, scale_a, scale_b, scaling, fast=False):
    """torch._scaled_mm's call for the scaling, with its own scale shapes."""
    if scaling == "tensor":
        sa, sb = scale_a.reshape(()), scale_b.reshape(())
    elif scaling == "row_col":
        sa, sb = scale_a[:, None], scale_b[None, :]
    else:  # torch's blockwise recipes: A (m, k/128) outer-dim-major, B (k/128, n/128) likewise
        sa, sb = scale_a.t(), scale_b
    return lambda: torch._scaled_mm(a, b.t(), sa, sb, out_dtype=torch.bfloat16,
                                    use_fast_accum=fast)


def deep_gemm_block(a, b, scale_a, scale_b, d):
    """DeepGEMM's call on the same operands and block scales, as its users make it on sm_90
    (requirements-deep-gemm.txt's commit): fp32 scales, A's per (row, k-block) in the column-major
    TMA-aligned layout its own tests prepare ahead of the call, B's per 128 x 128 block k-minor.
    Its first call compiles the kernel (nvcc) here, so no timing holds a compile."""
    import deep_gemm
    sfa = deep_gemm.get_col_major_tma_aligned_tensor(scale_a.t().contiguous())
    sfb = scale_b.t().contiguous()

    def call():
        deep_gemm.gemm_fp8_fp8_bf16_nt((a, sfa), (b, sfb), d)
    call()
    return call


def problem_text(shape, scaling, formats):
    """The family's canonical problem text (keys in order), as gemm_fp8_library writes it."""
    named = "".join(f"{side}_format={f}," for side, f in zip("ab", formats) if f != "e4m3")
    return f"{named}k={shape[2]},m={shape[0]},n={shape[1]},scaling={scaling}"


def measure(shape, scaling, libraries, timer, reps, rounds, tol, formats=("e4m3", "e4m3")):
    m, n, k = shape
    row = {"shape": f"{m}x{n}x{k}", "scaling": scaling, "tolerance": tol}
    if formats != ("e4m3", "e4m3"):
        row["formats"] = ",".join(formats)
    a, b, scale_a, scale_b, ref = operands(m, n, k, scaling, formats)
    columns = {}
    try:
        columns["scaled_mm"] = scaled_mm(a, b, scale_a, scale_b, scaling)
        if scaling != "block":
            columns["scaled_mm_fast"] = scaled_mm(a, b, scale_a, scale_b, scaling, fast=True)
    except Exception as exc:  # a recipe this torch lacks is reported, not fatal
        row["scaled_mm_unavailable"] = repr(exc)[:300]
    outputs = {}
    if scaling == "block":
        outputs["deep_gemm"] = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        try:
            columns["deep_gemm"] = deep_gemm_block(a, b, scale_a, scale_b, outputs["deep_gemm"])
        except Exception as exc:  # not installed, or refuses the shape: reported, not fatal
            row["deep_gemm_unavailable"] = repr(exc)[:700]
        outputs["triton_block"] = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        try:  # its first call (the autotune) comes with the check below, before any timing
            columns["triton_block"] = fp8_triton_block.peer(a, b, scale_a, scale_b,
                                                            outputs["triton_block"])
        except Exception as exc:
            row["triton_block_unavailable"] = repr(exc)[:300]
    for column, entry in libraries.items():
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        try:
            run = CutuneFp8(entry["library"], scaling, a, b, d, scale_a, scale_b)
        except Exception as exc:
            row[f"{column}_unavailable"] = repr(exc)[:300]
            continue
        row[f"{column}_config"] = entry["config"]
        columns[column] = run
        outputs[column] = d
    graphs = {}
    for column, fn in list(columns.items()):
        try:
            if column.startswith("scaled_mm"):
                out = fn()
            else:
                fn()
                out = outputs[column]
            torch.cuda.synchronize()
            row[f"{column}_error"] = error(out, ref)
            if not row[f"{column}_error"] <= tol:
                continue
            if column.startswith("scaled_mm"):
                row[f"{column}_kernels"] = kernels_of(fn)
        except Exception as exc:
            row[f"{column}_unavailable"] = repr(exc)[:300]
            continue
        try:
            graphs[column] = GraphTimer.capture(fn)
        except Exception as exc:  # timed as plain launches instead, and said so
            torch.cuda.synchronize()
            row[f"{column}_not_captured"] = repr(exc)[:300]
            graphs[column] = Launches(fn)
    times = {column: [] for column in graphs}
    for r in range(rounds):
        for column, median in timer.round_there_and_back(graphs, reps, rotate=r).items():
            times[column].append(median)
    for column, values in times.items():
        row[f"{column}_ms"] = statistics.median(values)
        row[f"{column}_tflops"] = 2e-9 * m * n * k / row[f"{column}_ms"]
        for peer in ("scaled_mm", "scaled_mm_fast", "deep_gemm", "triton_block"):
            if peer in times and column.startswith("cutune"):
                ratios = [s / c for s, c in zip(times[peer], values)]
                row[f"{column}_vs_{peer}"] = statistics.median(ratios)
    return row


def peer_of(scaling, rows=()):
    """The column a scaling's cutune columns are held against: for the block rows (torch 2.11
    refuses block scales on sm_90) DeepGEMM, or the Triton kernel where no row has DeepGEMM timed;
    cuBLASLt's scaled_mm for the others."""
    if scaling != "block":
        return "scaled_mm"
    return "deep_gemm" if any("deep_gemm_ms" in r for r in rows) else "triton_block"


def fast(row, column):
    """Whether the column's config accumulates fast (held against scaled_mm_fast, not the
    peer)."""
    return any(f"_{tag}_" in row.get(f"{column}_config", "") for tag in ("coopfa", "pingfa"))


def best_candidate(row, peer):
    """The accurate candidate column with the highest ratio to the peer in `row`, or None."""
    key = f"_vs_{peer}"
    ratios = {c[:-len(key)]: v for c, v in row.items()
              if c.startswith("cutune_cand_") and c.endswith(key) and not fast(row, c[:-len(key)])}
    return max(ratios, key=ratios.get) if ratios else None


def table(path):
    """Markdown of fp8_peers.jsonl: a row per shape and scaling, and per scaling the geomean and
    the lowest of each cutune column's ratio to its peer (the issue's bars: tuned >= 1.05x
    scaled_mm geomean, no shape under 0.95x, default >= 0.95x everywhere; block: at or above
    DeepGEMM)."""
    rows = [json.loads(line) for line in open(path)]
    scalings = {r["scaling"] for r in rows}
    peers = {s: peer_of(s, [r for r in rows if r["scaling"] == s]) for s in scalings}
    columns = ("cutune_default", "cutune_tuned")
    lines = ["| shape | scaling | peer | peer TFLOP/s | default / peer | tuned / peer | "
             "tuned / scaled_mm fast | best candidate / peer | "
             "errors (peer, scaled_mm fast, default, tuned) |",
             "|---|---|---|---|---|---|---|---|---|"]
    nan = float("nan")
    for r in rows:
        peer = peers[r["scaling"]]
        best = best_candidate(r, peer)
        if best:
            r["cutune_best_candidate" + f"_vs_{peer}"] = r[best + f"_vs_{peer}"]
        cells = [f"{r.get(f'{c}_vs_{peer}', nan):.3f}" for c in columns]
        cells.append(f"{r.get('cutune_tuned_vs_scaled_mm_fast', nan):.3f}")
        cells.append(f"{r[best + f'_vs_{peer}']:.3f} ({best[len('cutune_cand_'):]})" if best
                     else "-")
        errors = ", ".join(f"{r.get(c + '_error', nan):.1e}"
                           for c in (peer, "scaled_mm_fast") + columns)
        lines.append(f"| {r['shape']} | {r['scaling']} | {peer} | "
                     f"{r.get(peer + '_tflops', nan):.0f} | {' | '.join(cells)} | {errors} |")
    lines.append("")
    for scaling in sorted({r["scaling"] for r in rows}):
        names = sorted({c[:-len("_config")] for r in rows if r["scaling"] == scaling for c in r
                        if c.startswith("cutune_cand_") and c.endswith("_config")})
        for column in columns + ("cutune_best_candidate",) + tuple(names):
            peer = peers[scaling]
            if column in names and any(fast(r, column) for r in rows if r["scaling"] == scaling):
                peer = "scaled_mm_fast"
            ratios = [r[f"{column}_vs_{peer}"] for r in rows
                      if r["scaling"] == scaling and f"{column}_vs_{peer}" in r]
            if ratios:
                geomean = statistics.geometric_mean(ratios)
                lines.append(f"{scaling} {column} / {peer}: geomean {geomean:.3f}, "
                             f"lowest {min(ratios):.3f} over {len(ratios)} shapes")
    return "\n".join(lines)


def main():
    if sys.argv[1:2] == ["--table"]:
        print(table(sys.argv[2]))
        return
    shapes = [tuple(int(x) for x in s.split("x")) for s in os.environ["SHAPES"].split(",") if s]
    scalings = os.environ.get("SCALINGS", "tensor,row_col,block").split(",")
    formats = tuple(os.environ.get("FORMATS", "e4m3,e4m3").split(","))
    if len(formats) != 2 or not set(formats) <= set(DTYPES):
        sys.exit(f"fp8_peers.py: FORMATS must be A's and B's format, each e4m3 or e5m2; "
                 f"got {formats}")
    libraries = {}  # problem text -> {column: {"config", "library"}}
    candidates = {}  # scaling -> {column: ...}: a candidate runs every shape of its scaling
    for variable in ("FP8_LIBRARIES", "FP8_TUNED"):
        path = os.environ.get(variable)
        if path and os.path.exists(path):
            for line in open(path):
                entry = json.loads(line)
                if "library" not in entry:
                    continue
                column = f"cutune_{entry['column']}"
                if entry["column"].startswith("cand_"):
                    scaling = entry["problem"].split("scaling=")[1].split(",")[0]
                    candidates.setdefault(scaling, {})[column] = entry
                else:
                    libraries.setdefault(entry["problem"], {})[column] = entry
    timer = GraphTimer("driver")
    timer.ramp()
    deadline = float(os.environ.get("DEADLINE", "inf"))
    out = os.environ.get("OUT", ".")
    with open(os.path.join(out, "fp8_peers.jsonl"), "a") as sink:
        for shape in shapes:
            for scaling in scalings:
                if time.time() > deadline:
                    continue
                problem = problem_text(shape, scaling, formats)
                columns = {**candidates.get(scaling, {}), **libraries.get(problem, {})}
                row = measure(shape, scaling, columns, timer,
                              int(os.environ.get("REPS", "30")), int(os.environ.get("ROUNDS", "3")),
                              float(os.environ.get("TOL", "1e-2")), formats)
                print(json.dumps(row), flush=True)
                sink.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
