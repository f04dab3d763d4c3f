"""cutune.gemm on fp8 tensors on the GPU (scripts/gpu/python-gemm.sh and scripts/gpu/run-gpu-tests.sh
run it; not a pytest file: it needs an sm_90 GPU, PyTorch and nvcc). For each scaling (tensor,
row_col, block; tensor and block also with e5m2 activations, as gradients come) and two shapes (whole tiles; partial tiles and a partial last scale block of b),
quantizes data of real fp8 ranges as an inference engine does (amax / 448 per tensor, per row and
column, per 1 x 128 and 128 x 128 block), runs cutune.gemm(a, w.t(), scale_a=..., scale_b=...) with
the scales in torch._scaled_mm's layout, and checks it against the product of the dequantized
operands in fp64 within the gemm_fp8 family's tolerance (max |D - ref| / max |ref| <= 1e-2, the
worker's check). The block case runs B's scales both in torch's layout and contiguous. torch's own
_scaled_mm on the same operands is printed beside where it runs. Exit status 1 when a result is
wrong or a call fails."""
import argparse
import json
import os
import sys
import tempfile
import traceback

import torch

import cutune

FP8_MAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}
# (scaling, a's format): every scaling in e4m3, and e5m2 activations against e4m3 weights.
CASES = [("tensor", "e4m3"), ("row_col", "e4m3"), ("block", "e4m3"), ("tensor", "e5m2"),
         ("block", "e5m2")]
DTYPES = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
BLOCK = 128
TOLERANCE = 1e-2  # gemm_fp8_protocol.hpp's kFp8Tolerance
SHAPES = [(256, 512, 1024), (200, 264, 384)]


def ceil_div(x, y):
    return -(-x // y)


def data(m, n, k):
    """Activations and weights with the outliers of real ones: normal values, a few channels 20x."""
    x = torch.randn(m, k, device="cuda", dtype=torch.float64)
    x[:, torch.randperm(k, device="cuda")[: max(1, k // 64)]] *= 20
    w = torch.randn(n, k, device="cuda", dtype=torch.float64) * 0.05
    return x, w


def amax_scale(t, dims, dtype=torch.float8_e4m3fn):
    return (t.abs().amax(dim=dims, keepdim=True) / FP8_MAX[dtype]).clamp(min=1e-12)


def to_fp8(t, dtype=torch.float8_e4m3fn):
    """fp64 to fp8 through fp32, the conversion every PyTorch build has."""
    return t.float().to(dtype)


def widened(q):
    return q.float().double()


def quantize(x, w, scaling, a_dtype=torch.float8_e4m3fn):
    """(a8, w8, scale_a, scale_b as torch._scaled_mm takes them, the dequantized a and w); a in
    a_dtype, w in e4m3."""
    m, k = x.shape
    n = w.shape[0]
    if scaling == "tensor":
        sa, sw = amax_scale(x, (0, 1), a_dtype), amax_scale(w, (0, 1))
        a8, w8 = to_fp8(x / sa, a_dtype), to_fp8(w / sw)
        return a8, w8, sa.float().reshape(()), sw.float().reshape(()), widened(a8) * sa, widened(w8) * sw
    if scaling == "row_col":
        sa, sw = amax_scale(x, (1,), a_dtype), amax_scale(w, (1,))  # m x 1, n x 1
        a8, w8 = to_fp8(x / sa, a_dtype), to_fp8(w / sw)
        return (a8, w8, sa.float(), sw.float().t(), widened(a8) * sa, widened(w8) * sw)
    kb, nb = k // BLOCK, ceil_div(n, BLOCK)
    xa = x.view(m, kb, BLOCK)
    sa = amax_scale(xa, (2,), a_dtype)  # m x kb x 1
    a8 = to_fp8(xa / sa, a_dtype)
    padded = torch.zeros(nb * BLOCK, k, device="cuda", dtype=torch.float64)
    padded[:n] = w
    wb = padded.view(nb, BLOCK, kb, BLOCK)
    sw = amax_scale(wb, (1, 3))  # nb x 1 x kb x 1
    w8 = to_fp8(wb / sw)
    deq_a = (widened(a8) * sa).view(m, k)
    deq_w = (widened(w8) * sw).view(nb * BLOCK, k)[:n]
    scale_a = sa.view(m, kb).float().t().contiguous().t()  # k-block major, as _scaled_mm takes it
    scale_b = sw.view(nb, kb).float().contiguous().t()  # the weight's scales, transposed
    return (a8.view(m, k), w8.view(nb * BLOCK, k)[:n].contiguous(), scale_a, scale_b, deq_a, deq_w)


def error_of(out, reference):
    return ((out.double() - reference).abs().max() / reference.abs().max()).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default=None, help="the store (default: an empty one: default configs)")
    parser.add_argument("--out", default=None, help="figures as JSON")
    args = parser.parse_args()
    runtime = cutune.Runtime(db=args.db or os.path.join(tempfile.mkdtemp(), "empty.db"))
    torch.manual_seed(0)
    rows, failures = [], []
    for scaling, a_format in CASES:
        named = "" if a_format == "e4m3" else f",a_format={a_format}"
        for m, n, k in SHAPES:
            name = f"{scaling}{named} {m}x{n}x{k}"
            try:
                x, w = data(m, n, k)
                a8, w8, scale_a, scale_b, deq_a, deq_w = quantize(x, w, scaling, DTYPES[a_format])
                reference = deq_a @ deq_w.t()
                layouts = [("torch", scale_b)]
                if scaling == "block":
                    layouts.append(("contiguous", scale_b.contiguous()))
                for layout, given_b in layouts:
                    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                    runtime.gemm(a8, w8.t(), out, scale_a=scale_a, scale_b=given_b)
                    torch.cuda.synchronize()
                    error = error_of(out, reference)
                    found = runtime.lookup("gemm_fp8",
                                           f"m={m},n={n},k={k},scaling={scaling}{named}")
                    peer = None
                    try:
                        peer = error_of(torch._scaled_mm(a8, w8.t(), scale_a=scale_a, scale_b=given_b,
                                                         out_dtype=torch.bfloat16), reference)
                    except Exception:  # a scaling this torch's _scaled_mm does not run
                        pass
                    rows.append({"case": name, "scale_b": layout, "error": error,
                                 "scaled_mm_error": peer, "config": found["config_name"],
                                 "origin": found["origin"]})
                    print(f"{name:<26} scale_b {layout:<10} max|D-ref|/max|ref| {error:.2e}  "
                          f"_scaled_mm {'-' if peer is None else f'{peer:.2e}'}  "
                          f"{found['config_name']} ({found['origin']})", flush=True)
                    if not error <= TOLERANCE:
                        failures.append(f"{name} (scale_b {layout}): error {error:.3g} above "
                                        f"{TOLERANCE}")
            except Exception:
                traceback.print_exc()
                failures.append(f"{name}: raised")
    # The default Runtime (the default store) launches through the same path.
    a8, w8, scale_a, scale_b, deq_a, deq_w = quantize(*data(256, 512, 1024), "row_col")
    if not error_of(cutune.gemm(a8, w8.t(), scale_a=scale_a, scale_b=scale_b),
                    deq_a @ deq_w.t()) <= TOLERANCE:
        failures.append("cutune.gemm (the default Runtime) is wrong")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows, "failures": failures}, f, indent=2)
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"gpu_gemm_fp8_check: {len(rows)} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
