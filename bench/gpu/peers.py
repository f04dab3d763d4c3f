"""The Python columns of the GEMM peer table (scripts/gpu/gemm-peers.sh, gemm-defaults.sh):
torch.matmul (cuBLAS), the two Triton columns of triton_peers.py (`triton`: a 14-config autotune in
the Triton tutorial's form; `inductor`: torch.compile max-autotune over Triton templates, persistent
TMA on), Helion's autotuner and cutune's tuned config (its cubin launched
through libcutune_gemm_capi with ctypes, bench/gpu/cutune_gemm.py: the same tensors, timer and check
as the others, so its ratio to torch needs no cross-harness assumption), row-major A (M x K) times B
(K x N; LAYOUT=1: B is N x K and the product is A @ B.T, x @ W.T), in bf16 or fp16 (DTYPE).

Timed by the same policy as the tuner's worker, gemm_bench, gemm_peer_bench and the Python GEMM
module, whose one timing library is src/backend/cuda/launch_timer.hpp (torch times the peers here):
a fill of twice the L2 before each timed launch to flush it (FLUSH=driver, the default: the
library's own 32-bit driver memset, a new word each repetition; FLUSH=torch: torch's fill_, a
kernel after which a GEMM ran 2.2 % slower, docs/perf.md issue 14), CUDA events around the launch
alone, after the library's ramp (the launch timed by this same method for 2 s, the times dropped);
but each launch is a replay of a one-launch CUDA graph, because Python enqueues a Triton or Helion launch
more slowly than the flush runs (the replay is within 1 us of a plain launch for cuBLASLt in C++). ROUNDS rounds each time every peer REPS times, half in an order rotated by round
and half in its reverse (GraphTimer.round_there_and_back), so that each ratio to cuBLAS is
paired within a round: compare peers by those ratios, not by absolute times, which move by up to
20 % with the card's state. Each peer's output is checked against an fp32
product first, and the kernels cuBLAS launched are recorded (cublas_kernels, torch.profiler).

Environment: SHAPES (MxNxK,...), DTYPE (bf16 | fp16), LAYOUT (0 | 1), PEERS (cublas,triton,inductor,
helion; cuBLAS is always timed), DEADLINE (epoch seconds after which the Triton columns are left
out), BACK_TO_BACK_SHAPES (MxNxK,...: timed again with no flush, rows with "flush": "none"),
HELION_SHAPES (the shapes Helion tunes at, bf16 and layout 0 only; its
autotune costs about 80 s each; default S3), HELION_EFFORT (quick), REPS (30), ROUNDS (5), FLUSH
(driver | torch | none: back to back, no flush), OUT (folder for peers.jsonl); for the cutune columns
CUTUNE_GEMM_LIB (the library) and CUTUNE_TUNED (a JSON file: shape MxNxK -> {"config": name as
gemm::to_string writes it, "cubin": path, "default": the same two for default_config, timed as the
column cutune_default where no tune ran or it crowned another config}, as gemm-peers.sh writes it from gemm_peer_bench).
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
from triton_peers import inductor_matmul, tutorial_matmul  # noqa: E402

WANTED = os.environ.get("PEERS", "cublas,triton,inductor,helion").split(",")
DTYPES_BY_TORCH = {torch.bfloat16: "bf16", torch.float16: "fp16"}
HELION_UNAVAILABLE = None
# At module level, not in a function: Helion's autotuner workers import this file again and find
# the kernel by its name here.
if "helion" in WANTED:
    try:
        import torch._inductor.runtime.triton_compat as compat
        if not hasattr(compat, "IntelGPUError"):  # helion 1.5.1 imports it; torch 2.11 lacks it
            compat.IntelGPUError = type("IntelGPUError", (Exception,), {})
        # The head to head's matmul (bench/helion/kernels.py), in the form of Helion's example.
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helion"))
        from kernels import matmul_kernel

        helion_matmul = matmul_kernel(autotune_effort=os.environ.get("HELION_EFFORT", "quick"))
    except Exception as exc:  # a peer that cannot run is reported, not fatal
        HELION_UNAVAILABLE = repr(exc)[:300]


class GraphTimer:
    def __init__(self, flush="driver"):
        self.name = flush
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush = torch.empty(2 * max(l2, 1), dtype=torch.uint8, device="cuda")
        if flush == "driver":
            driver = ctypes.CDLL("libcuda.so.1")
            driver.cuMemsetD32Async.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t,
                                                ctypes.c_void_p]
            self.flush_before = lambda rep: self._memset(driver, rep)
        elif flush == "torch":
            self.flush_before = lambda rep: self.flush.fill_(rep & 0xFF)
        elif flush == "none":  # back to back, as a decoding model launches its skinny GEMMs
            self.flush_before = lambda rep: None
        else:
            raise ValueError(f"FLUSH={flush!r}: expected 'driver', 'torch' or 'none'")

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

    def round_there_and_back(self, graphs, reps, rotate=0, samples=None):
        """One paired round over `graphs` (name -> graph): each timed ceil(reps / 2) times in their
        order rotated by `rotate`, then as often in the reverse order, so that every graph's mean
        place in the round is the same and a drift of the clocks across the round moves them alike
        (one pass in a fixed order read the same kernel 7 % slower last of sixteen than first).
        Returns name -> the mean of its two medians; each replay's time is appended to
        samples[name] where `samples` is given."""
        names = list(graphs)
        shift = rotate % len(names) if names else 0
        order = names[shift:] + names[:shift]
        half = max(1, -(-reps // 2))
        medians = {name: [] for name in names}
        for name in order + order[::-1]:
            sample = self.time(graphs[name], half)
            if samples is not None:
                samples[name] += sample
            medians[name].append(statistics.median(sample))
        return {name: statistics.mean(values) for name, values in medians.items()}

    def ramp(self, seconds=2.0):
        """The library's ramp: a launch timed by this method (flushed) in rounds of 30 for
        `seconds`, the times dropped, so that the clocks have ramped and the card is in the state
        the timed rounds keep it in (back-to-back launches leave it in another)."""
        x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        graph = self.capture(lambda: x @ x)
        stop = time.time() + seconds
        while time.time() < stop:
            self.time(graph, 30)


def error(out, ref):
    """max|out - ref| / max|ref|, as the C++ check (inf when out has a non-finite value)."""
    out = out.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).abs().max() / ref.abs().max()).item()


def kernels_of(fn):
    """The GPU kernels one call of fn launches, as the profiler names them (cuBLAS's names carry its
    tile, cluster and schedule), or the reason the profiler gave none."""
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        names = {e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA}
        return "; ".join(sorted(names))
    except Exception as exc:  # a profiler this build lacks is reported, not fatal
        return f"no profile: {exc!r}"[:200]


def measure(shape, peers, helion_shapes, timer, reps, rounds, dtype, layout, deadline=float("inf")):
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
           "flush": timer.name}
    fns = {"cublas": lambda: torch.matmul(a, b, out=c)}
    for triton_peer in ("triton", "inductor"):
        if triton_peer in peers and time.time() < deadline:
            fns[triton_peer] = lambda run=peers[triton_peer]: run(a, b, c)
        elif triton_peer in peers:
            row[f"{triton_peer}_failed"] = "skipped: past DEADLINE"
    if "helion" in peers and name in helion_shapes and dtype == torch.bfloat16 and layout == 0:
        fns["helion"] = lambda: peers["helion"](a, b)
    if "cutune" in peers and name in peers["cutune"][1]:
        library, tuned = peers["cutune"]
        # The tuned config (where a tune ran), and default_config where it is not the tuned one.
        columns = {"cutune": tuned[name]} if "config" in tuned[name] else {}
        if tuned[name].get("default", {}).get("config") not in (None, tuned[name].get("config")):
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
    if "cublas" in graphs:  # what cuBLAS chose for this shape: the tile a rule could learn from
        row["cublas_kernels"] = kernels_of(fns["cublas"])
    times = {peer: [] for peer in graphs}
    ratios = {peer: [] for peer in graphs}
    for r in range(rounds):
        medians = timer.round_there_and_back(graphs, reps, rotate=r, samples=times)
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
    for peer, make in (("triton", tutorial_matmul), ("inductor", inductor_matmul)):
        if peer in WANTED:
            try:
                peers[peer] = make()
            except Exception as exc:
                print(json.dumps({"peer": peer, "unavailable": repr(exc)[:300]}), flush=True)
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
    # These shapes are timed a second time back to back (no flush), as decoding calls them.
    back_to_back = set(filter(None, os.environ.get("BACK_TO_BACK_SHAPES", "").split(",")))
    unflushed = GraphTimer("none") if back_to_back else None
    timer.ramp()
    out = os.environ.get("OUT", ".")
    # Past DEADLINE (seconds since the epoch) the Triton columns, whose autotunes cost seconds per
    # shape, are left out; cuBLAS and cutune are still timed.
    deadline = float(os.environ.get("DEADLINE", "inf"))
    with open(os.path.join(out, "peers.jsonl"), "a") as log:
        for shape in shapes:
            for clock in (timer, unflushed):
                if clock is timer or "x".join(map(str, shape)) in back_to_back:
                    row = measure(shape, peers, helion_shapes, clock, reps, rounds, dtype, int(layout), deadline)
                    print(json.dumps(row), flush=True)
                    log.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
