"""The Python columns of the GEMM peer table (scripts/gpu/gemm-peers.sh): torch.matmul (cuBLAS),
a 14-config Triton autotune, Helion's autotuner and cutune's tuned config (its cubin launched
through libcutune_gemm_capi with ctypes, bench/gpu/cutune_gemm.py: the same tensors, timer and check
as the others, so its ratio to torch needs no cross-harness assumption), row-major A (M x K) times B
(K x N; LAYOUT=1: B is N x K and the product is A @ B.T, x @ W.T), in bf16 or fp16 (DTYPE).

Timed close to the tuner's worker and gemm_peer_bench (bench/gpu/graph_timer.hpp): a fill of twice
the L2 before each launch to flush it (FLUSH=driver, the default: the worker's own 32-bit driver
memset; FLUSH=torch: torch's fill_, a kernel after which a GEMM ran 2.2 % slower, docs/perf.md issue
14), CUDA events around the launch, after a clock ramp; but each
launch is a replay of a one-launch CUDA graph, because Python enqueues a Triton or Helion launch
more slowly than the flush runs (the replay is within 1 us of a plain launch for cuBLASLt in C++). ROUNDS rounds each time every peer REPS times, so that each ratio to cuBLAS is
paired within a round: compare peers by those ratios, not by absolute times, which move by up to
20 % with the card's state. Each peer's output is checked against an fp32
product first.

Environment: SHAPES (MxNxK,...), DTYPE (bf16 | fp16), LAYOUT (0 | 1), PEERS (cublas,triton,helion;
cuBLAS is always timed), HELION_SHAPES (the shapes Helion tunes at, bf16 and layout 0 only; its
autotune costs about 80 s each; default S3), HELION_EFFORT (quick), REPS (30), ROUNDS (5), FLUSH
(driver | torch), OUT (folder for peers.jsonl); for the cutune columns CUTUNE_GEMM_LIB (the library)
and CUTUNE_TUNED (a JSON file: shape MxNxK -> {"config": name as gemm::to_string writes it,
"cubin": path, "default": the same two for default_config, timed as the column cutune_default
where the tune crowned another config}, as gemm-peers.sh writes it from gemm_peer_bench).
Prints one JSON line per shape. The timing sits under a main guard: Helion's benchmark workers
import this file again.
"""
import ctypes
import json
import os
import statistics
import sys
import time

import torch

# Helion's benchmark workers import this file from elsewhere: its folder is not always on the path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cutune_gemm import CutuneGemm, load  # noqa: E402

# The 14 configs of the Triton column as the 2026-12-03 anchor ran them: (BM, BN, BK, stages, warps).
TRITON_CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                  (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
                  (128, 256, 64, 4, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8),
                  (256, 128, 64, 4, 8), (128, 256, 64, 3, 4)]


def triton_matmul():
    import triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BM": m, "BN": n, "BK": k, "GROUP": 8}, num_stages=s, num_warps=w)
                              for m, n, k, s, w in TRITON_CONFIGS], key=["M", "N", "K", "stride_bk"])
    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_bk, stride_bn, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, GROUP: tl.constexpr):
        # Tiles in groups of GROUP rows of tiles, so that neighbours in launch order share operands in L2.
        tile = tl.program_id(0)
        rows, cols = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = tile // (GROUP * cols)
        first_row = group * GROUP
        height = min(rows - first_row, GROUP)
        row = first_row + (tile % (GROUP * cols)) % height
        col = (tile % (GROUP * cols)) // height
        # Rows and columns past the edge wrap around: in bounds to load, masked at the store.
        offs_m = (row * BM + tl.arange(0, BM)) % M
        offs_n = (col * BN + tl.arange(0, BN)) % N
        offs_k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k0 + offs_k)[None, :],
                        mask=(k0 + offs_k)[None, :] < K, other=0.0)
            b = tl.load(b_ptr + (k0 + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                        mask=(k0 + offs_k)[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        offs_m = row * BM + tl.arange(0, BM)
        offs_n = col * BN + tl.arange(0, BN)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    def matmul(a, b, c):
        """c = a @ b for b of shape K x N, contiguous or a transposed N x K (x @ W.T)."""
        M, K = a.shape
        N = b.shape[1]
        kernel[lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)](
            a, b, c, M, N, K, b.stride(0), b.stride(1))
        return c

    return matmul


WANTED = os.environ.get("PEERS", "cublas,triton,helion").split(",")
DTYPES_BY_TORCH = {torch.bfloat16: "bf16", torch.float16: "fp16"}
HELION_UNAVAILABLE = None
# At module level, not in a function: Helion's autotuner workers import this file again and find
# the kernel by its name here.
if "helion" in WANTED:
    try:
        import torch._inductor.runtime.triton_compat as compat
        if not hasattr(compat, "IntelGPUError"):  # helion 1.5.1 imports it; torch 2.11 lacks it
            compat.IntelGPUError = type("IntelGPUError", (Exception,), {})
        import helion
        import helion.language as hl

        @helion.kernel(autotune_effort=os.environ.get("HELION_EFFORT", "quick"))
        def helion_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            m, k = x.size()
            _, n = y.size()
            out = torch.empty([m, n], dtype=x.dtype, device=x.device)
            for tm, tn in hl.tile([m, n]):
                acc = hl.zeros([tm, tn], dtype=torch.float32)
                for tk in hl.tile(k):
                    acc = torch.addmm(acc, x[tm, tk], y[tk, tn])
                out[tm, tn] = acc.to(x.dtype)
            return out
    except Exception as exc:  # a peer that cannot run is reported, not fatal
        HELION_UNAVAILABLE = repr(exc)[:300]


class GraphTimer:
    def __init__(self, flush="driver"):
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush = torch.empty(2 * max(l2, 1), dtype=torch.uint8, device="cuda")
        if flush == "driver":
            driver = ctypes.CDLL("libcuda.so.1")
            driver.cuMemsetD32Async.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t,
                                                ctypes.c_void_p]
            self.flush_before = lambda rep: self._memset(driver, rep)
        elif flush == "torch":
            self.flush_before = lambda rep: self.flush.fill_(rep & 0xFF)
        else:
            raise ValueError(f"FLUSH={flush!r}: expected 'driver' or 'torch'")

    def _memset(self, driver, rep):
        stream = torch.cuda.current_stream().cuda_stream
        code = driver.cuMemsetD32Async(self.flush.data_ptr(), rep, self.flush.numel() // 4, stream)
        if code != 0:
            raise RuntimeError(f"cuMemsetD32Async failed: CUresult {code}")

    @staticmethod
    def capture(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        return graph

    def time(self, graph, reps):
        for _ in range(3):
            graph.replay()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(reps)]
        for i, (start, end) in enumerate(events):
            self.flush_before(i)
            start.record()
            graph.replay()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in events]

    @staticmethod
    def ramp(seconds=2.0):
        x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        stop = time.time() + seconds
        while time.time() < stop:
            x @ x
        torch.cuda.synchronize()


def error(out, ref):
    """max|out - ref| / max|ref|, as the C++ check (inf when out has a non-finite value)."""
    out = out.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).abs().max() / ref.abs().max()).item()


def measure(shape, peers, helion_shapes, timer, reps, rounds, dtype, layout):
    m, n, k = shape
    name = f"{m}x{n}x{k}"
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    # Layout 1 stores B as N x K (a weight W) and multiplies by its transpose, a view: torch and
    # Triton read the same bytes that cutune's n_by_k kernel reads.
    stored = torch.randn(k, n, device="cuda", dtype=dtype) if layout == 0 else \
        torch.randn(n, k, device="cuda", dtype=dtype)
    b = stored if layout == 0 else stored.t()
    ref = a.float() @ b.float()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    row = {"shape": name, "dtype": DTYPES_BY_TORCH[dtype], "layout": layout,
           "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "flush": os.environ.get("FLUSH", "driver")}
    fns = {"cublas": lambda: torch.matmul(a, b, out=c)}
    if "triton" in peers:
        fns["triton"] = lambda: peers["triton"](a, b, c)
    if "helion" in peers and name in helion_shapes and dtype == torch.bfloat16 and layout == 0:
        fns["helion"] = lambda: peers["helion"](a, b)
    if "cutune" in peers and name in peers["cutune"][1]:
        library, tuned = peers["cutune"]
        # The tuned config, and default_config where the tune crowned another one.
        columns = {"cutune": tuned[name]}
        if tuned[name].get("default", {}).get("config") not in (None, tuned[name]["config"]):
            columns["cutune_default"] = tuned[name]["default"]
        for column, entry in columns.items():
            row[f"{column}_config"] = entry["config"]
            try:
                gemm = CutuneGemm(library, entry["cubin"], entry["config"], m, n, k, a.data_ptr(),
                                  stored.data_ptr(), c.data_ptr(),
                                  dtype=0 if dtype == torch.bfloat16 else 1, b_layout=layout)
                fns[column] = lambda gemm=gemm: (gemm.launch(torch.cuda.current_stream().cuda_stream), c)[1]
            except (OSError, ValueError) as exc:
                row[f"{column}_failed"] = repr(exc)[:300]
    graphs = {}
    for peer, fn in fns.items():
        try:
            start = time.time()
            c.fill_(float("nan"))
            out = fn()
            torch.cuda.synchronize()
            row[f"{peer}_tune_s"] = time.time() - start
            row[f"{peer}_err"] = error(out, ref)
            graphs[peer] = timer.capture(fn)
        except Exception as exc:  # a peer that fails is a value in the row, not the end of the run
            row[f"{peer}_failed"] = repr(exc)[:300]
    times = {peer: [] for peer in graphs}
    ratios = {peer: [] for peer in graphs}
    for _ in range(rounds):
        medians = {}
        for peer, graph in graphs.items():
            sample = timer.time(graph, reps)
            times[peer] += sample
            medians[peer] = statistics.median(sample)
        for peer in graphs:
            ratios[peer].append(medians["cublas"] / medians[peer])
    for peer in graphs:
        ms = statistics.median(times[peer])
        row[f"{peer}_ms"] = ms
        row[f"{peer}_tflops"] = 2.0 * m * n * k / ms * 1e-9
        row[f"{peer}_vs_cublas"] = statistics.median(ratios[peer])
    return row


def main():
    shapes = [tuple(int(x) for x in s.split("x")) for s in os.environ.get("SHAPES", "2048x4096x4096").split(",")]
    dtype = {name: value for value, name in DTYPES_BY_TORCH.items()}.get(os.environ.get("DTYPE", "bf16"))
    layout = os.environ.get("LAYOUT", "0")
    if dtype is None or layout not in ("0", "1"):
        raise SystemExit(f"peers.py: DTYPE={os.environ.get('DTYPE')!r} LAYOUT={layout!r}: expected "
                         "DTYPE bf16 or fp16 and LAYOUT 0 or 1")
    helion_shapes = os.environ.get("HELION_SHAPES", "2048x4096x4096").split(",")
    reps, rounds = int(os.environ.get("REPS", "30")), int(os.environ.get("ROUNDS", "5"))
    peers = {}
    if "triton" in WANTED:
        try:
            peers["triton"] = triton_matmul()
        except Exception as exc:
            print(json.dumps({"peer": "triton", "unavailable": repr(exc)[:300]}), flush=True)
    if os.environ.get("CUTUNE_GEMM_LIB") and os.environ.get("CUTUNE_TUNED"):
        try:
            with open(os.environ["CUTUNE_TUNED"]) as f:
                peers["cutune"] = (load(os.environ["CUTUNE_GEMM_LIB"]), json.load(f))
        except (OSError, ValueError) as exc:
            print(json.dumps({"peer": "cutune", "unavailable": repr(exc)[:300]}), flush=True)
    if "helion" in WANTED:
        if HELION_UNAVAILABLE:
            print(json.dumps({"peer": "helion", "unavailable": HELION_UNAVAILABLE}), flush=True)
        else:
            peers["helion"] = helion_matmul
    torch.manual_seed(0)
    timer = GraphTimer(os.environ.get("FLUSH", "driver"))
    timer.ramp()
    out = os.environ.get("OUT", ".")
    with open(os.path.join(out, "peers.jsonl"), "a") as log:
        for shape in shapes:
            row = measure(shape, peers, helion_shapes, timer, reps, rounds, dtype, int(layout))
            print(json.dumps(row), flush=True)
            log.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
