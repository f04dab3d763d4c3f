"""The fp8 GEMM's arguments (cutune.gemm on float8 tensors), checked in Python before any C++ runs,
in torch._scaled_mm's conventions, so that a call moves over unchanged:

    torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    cutune.gemm(a, b, scale_a=sa, scale_b=sb)

a is m x k float8_e4m3fn or float8_e5m2, contiguous; b is k x n of either, the transpose of a
contiguous n x k tensor (w.t(), the gemm_fp8 family's K-major B); out is m x n bfloat16, contiguous. The scales are
float32 and say the scaling (the gemm_fp8 family's problem argument) by their shapes:

    tensor   scale_a and scale_b one element each
    row_col  scale_a m x 1, scale_b 1 x n (one per row of a, one per column of b)
    block    scale_a m x k/128 (1 x 128 blocks of a), stored k-block major (strides (1, m)),
             scale_b k/128 x ceil(n/128) (128 x 128 blocks of b), either contiguous or, as
             torch._scaled_mm takes it, the transpose of the weight's contiguous ceil(n/128) x k/128
             scales (then copied: the kernel reads them k-block major)

Where shapes fit two kinds (k = 128 makes scale_a m x 1 either), the first of tensor, row_col,
block that both scales fit is taken: the products are the same. What the family's kernel cannot
run (k not a multiple of 16, n of 8, a block-scaled k not of 128) is its problem's rule, refused as
the family resolves the problem (SpecError).
"""
from dataclasses import dataclass

from .errors import ArgumentError

BLOCK = 128  # the scale block of scaling "block": 1 x 128 of a, 128 x 128 of b
ALIGNMENT = 16  # bytes: TMA's operands and the vector loads of per-column and block scales
KINDS = ("tensor", "row_col", "block")


def _ceil_div(x, y):
    return -(-x // y)


def _shown(t):
    return f"{tuple(t.shape)} {str(t.dtype).replace('torch.', '')} with strides {tuple(t.stride())}"


def _fail(call, name, expected, t):
    raise ArgumentError(f"{call}: {name} must be {expected}, got {_shown(t)}")


def is_fp8(t):
    import torch
    return isinstance(t, torch.Tensor) and t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2,
                                                       torch.float8_e4m3fnuz, torch.float8_e5m2fnuz)


def _stored(t, strides):
    """Whether t's elements lie at `strides`, a dimension of extent 1 taking any stride."""
    return all(size == 1 or stride == want
               for size, stride, want in zip(t.shape, t.stride(), strides))


def _expected_scales(m, n, k):
    """Each kind's shapes of scale_a and scale_b, None where a kind takes any one-element tensor."""
    kb = _ceil_div(k, BLOCK)
    return {"tensor": (None, None), "row_col": ((m, 1), (1, n)),
            "block": ((m, kb), (kb, _ceil_div(n, BLOCK)))}


def _fits(t, shape):
    return t.numel() == 1 if shape is None else tuple(t.shape) == shape


def _shape_text(shape):
    return "one element" if shape is None else " x ".join(str(s) for s in shape)


def scaling_of(call, m, n, k, scale_a, scale_b):
    """The scaling the scales' shapes say (module docstring); ArgumentError naming the scale that
    fits no kind, or, when scale_a fits, the shapes scale_b could have."""
    expected = _expected_scales(m, n, k)
    a_kinds = [kind for kind in KINDS if _fits(scale_a, expected[kind][0])]
    if not a_kinds:
        choices = ", ".join(f"{_shape_text(expected[kind][0])} ({kind})" for kind in KINDS)
        _fail(call, "scale_a", f"{choices} for a of {m} x {k}", scale_a)
    for kind in a_kinds:
        if _fits(scale_b, expected[kind][1]):
            return kind
    choices = ", ".join(f"{_shape_text(expected[kind][1])} ({kind})" for kind in a_kinds)
    _fail(call, "scale_b", f"{choices} to go with scale_a of {tuple(scale_a.shape)} for b of "
          f"{k} x {n}", scale_b)


@dataclass(frozen=True)
class Fp8Arguments:
    """A checked fp8 GEMM: its problem and the tensors to launch on."""
    m: int
    n: int
    k: int
    scaling: str
    a_format: str  # "e4m3" | "e5m2": the gemm_fp8 problem's a_format and b_format
    b_format: str
    a: object
    b: object
    out: object
    scale_a: object
    scale_b: object  # as the kernel reads it: block scales k-block major


def check_devices(call, a, b, out, scale_a, scale_b):
    """Every tensor a torch tensor on a's CUDA device; ArgumentError naming the first that is not."""
    import torch
    named = {"a": a, "b": b, "scale_a": scale_a, "scale_b": scale_b}
    if out is not None:
        named["out"] = out
    for name, t in named.items():
        if not isinstance(t, torch.Tensor):
            raise ArgumentError(f"{call}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if a.device.type != "cuda":
        raise ArgumentError(f"{call}: a must be a CUDA tensor, got one on {a.device}")
    for name, t in named.items():
        if t.device != a.device:
            raise ArgumentError(f"{call}: {name} must be on {a.device} as a is, got {t.device}")


def arguments(call, a, b, out, scale_a, scale_b):
    """Checks an fp8 GEMM's tensors (devices aside: check_devices) and infers its scaling;
    allocates out when None. ArgumentError names the argument and what it must be."""
    import torch
    formats = {torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2"}
    for name, t in (("a", a), ("b", b)):
        if t.dtype not in formats:
            _fail(call, name, "float8_e4m3fn or float8_e5m2", t)
        if t.dim() != 2:
            _fail(call, name, "2-D", t)
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k:
        _fail(call, "b", f"{k} x n to go with a of {m} x {k}", b)
    if not _stored(a, (k, 1)):
        _fail(call, "a", "contiguous (row-major)", a)
    if not _stored(b, (1, k)):
        _fail(call, "b", "the transpose of a contiguous n x k tensor (w.t(), as torch._scaled_mm "
              "takes it)", b)
    if out is None:
        out = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    elif out.dtype != torch.bfloat16 or tuple(out.shape) != (m, n) or not _stored(out, (n, 1)):
        _fail(call, "out", f"a contiguous {m} x {n} bfloat16 tensor", out)
    for name, t in (("scale_a", scale_a), ("scale_b", scale_b)):
        if t.dtype != torch.float32:
            _fail(call, name, "float32", t)
    scaling = scaling_of(call, m, n, k, scale_a, scale_b)
    if scaling == "row_col":
        if not _stored(scale_a, (1, 1)):
            _fail(call, "scale_a", f"{m} consecutive floats", scale_a)
        if not _stored(scale_b, (n, 1)):
            _fail(call, "scale_b", f"{n} consecutive floats", scale_b)
    elif scaling == "block":
        if not _stored(scale_a, (1, m)):
            _fail(call, "scale_a", f"k-block major, strides (1, {m}): the transpose of a contiguous "
                  f"{scale_a.shape[1]} x {m} tensor, as torch._scaled_mm takes it", scale_a)
        rows, columns = scale_b.shape
        if _stored(scale_b, (1, rows)) and not _stored(scale_b, (columns, 1)):
            scale_b = scale_b.contiguous()  # torch._scaled_mm's layout: the weight's scales, .t()
        elif not _stored(scale_b, (columns, 1)):
            _fail(call, "scale_b", f"contiguous, or the transpose of a contiguous {columns} x {rows} "
                  "tensor", scale_b)
    tensors = {"a": a, "b": b, "out": out}
    if scaling != "tensor":
        tensors.update(scale_a=scale_a, scale_b=scale_b)
    for name, t in tensors.items():
        if t.data_ptr() % ALIGNMENT:
            _fail(call, name, f"{ALIGNMENT}-byte aligned (data_ptr {t.data_ptr():#x})", t)
    return Fp8Arguments(m, n, k, scaling, formats[a.dtype], formats[b.dtype], a, b, out, scale_a,
                        scale_b)


def launch(runner, args, stream):
    """Enqueues the checked GEMM on `stream` through `runner` (a _gemm.GemmRunner): its problem and
    the tensors' device addresses, by the binding's argument names."""
    runner.gemm_fp8(m=args.m, n=args.n, k=args.k, scaling=args.scaling, a_format=args.a_format,
                    b_format=args.b_format, a=args.a.data_ptr(), b=args.b.data_ptr(),
                    out=args.out.data_ptr(), scale_a=args.scale_a.data_ptr(),
                    scale_b=args.scale_b.data_ptr(), stream=stream)
