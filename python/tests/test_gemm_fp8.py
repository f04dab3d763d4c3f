"""cutune.gemm on fp8 tensors, on the CPU: the scaling inferred from the scales' shapes and every
argument checked before anything runs (ArgumentError naming it). The checks are cutune._fp8's, a
pure function of the tensors called here on CPU tensors: only its device check (a CUDA tensor,
every tensor on a's device) cannot pass without a GPU, and is tested through cutune.gemm, which
refuses CPU tensors before any C++ runs. What the launch hands the C++ runner is checked against a
recording stand-in for it (the runner needs a GPU); the launch itself is
python/tests/gpu_gemm_fp8_check.py's, on an sm_90 GPU."""
import pytest

import cutune
from cutune import _fp8

torch = pytest.importorskip("torch")

M, N, K = 64, 256, 512
KB, NB = K // 128, N // 128
CALL = "cutune.gemm"


def fp8(*shape):
    return torch.zeros(*shape, dtype=torch.float8_e4m3fn)


def operands(m=M, n=N, k=K):
    """a m x k contiguous and b = w.t() of a contiguous n x k w, as torch._scaled_mm takes them."""
    return fp8(m, k), fp8(n, k).t()


def scales(*shape):
    return torch.ones(*shape, dtype=torch.float32)


def block_scale_a(m=M, kb=KB):
    """m x k/128, k-block major (strides (1, m)), as torch._scaled_mm takes 1 x 128 scales."""
    return scales(kb, m).t()


def checked(a, b, scale_a, scale_b, out=None):
    return _fp8.arguments(CALL, a, b, out, scale_a, scale_b)


@pytest.mark.parametrize("scale_a, scale_b, scaling", [
    (scales(()), scales(()), "tensor"),
    (scales(1), scales(1, 1), "tensor"),
    (scales(M, 1), scales(1, N), "row_col"),
    (block_scale_a(), scales(KB, NB), "block"),
])
def test_the_scaling_is_the_one_the_scales_shapes_say(scale_a, scale_b, scaling):
    args = checked(*operands(), scale_a, scale_b)
    assert (args.m, args.n, args.k, args.scaling) == (M, N, K, scaling)
    assert args.out.dtype == torch.bfloat16 and tuple(args.out.shape) == (M, N)
    assert args.out.is_contiguous()


def test_block_scales_of_b_in_torchs_layout_are_read_k_block_major():
    # torch._scaled_mm takes B's 128 x 128 scales as the weight's (n/128 x k/128) scales, .t().
    weight_scales = torch.arange(NB * KB, dtype=torch.float32).reshape(NB, KB)
    args = checked(*operands(), block_scale_a(), weight_scales.t())
    assert args.scaling == "block"
    assert args.scale_b.is_contiguous() and torch.equal(args.scale_b, weight_scales.t())
    given = scales(KB, NB)
    assert checked(*operands(), block_scale_a(), given).scale_b is given  # no copy


def test_where_two_kinds_fit_the_scales_pair_decides():
    # k = 128: scale_a m x 1 is a per-row scale and a 1 x 128 block scale alike; scale_b decides.
    a, b = operands(k=128)
    assert checked(a, b, scales(M, 1), scales(1, N)).scaling == "row_col"
    assert checked(a, b, scales(M, 1), scales(1, NB)).scaling == "block"


def test_a_scale_of_no_kind_is_named_with_the_shapes_it_could_have():
    with pytest.raises(cutune.ArgumentError, match=r"scale_a must be one element \(tensor\), "
                       r"64 x 1 \(row_col\), 64 x 4 \(block\) for a of 64 x 512, got \(64, 2\)"):
        checked(*operands(), scales(M, 2), scales(1, N))
    with pytest.raises(cutune.ArgumentError, match=r"scale_b must be 1 x 256 \(row_col\) to go "
                       r"with scale_a of \(64, 1\)"):
        checked(*operands(), scales(M, 1), scales(1, N - 8))
    with pytest.raises(cutune.ArgumentError, match=r"scale_b must be one element \(tensor\)"):
        checked(*operands(), scales(1), scales(N))


@pytest.mark.parametrize("a, b, scale_a, scale_b, message", [
    (torch.zeros(M, K, dtype=torch.float8_e4m3fnuz), operands()[1], scales(1), scales(1),
     r"a must be float8_e4m3fn or float8_e5m2, got \(64, 512\) float8_e4m3fnuz"),
    (operands()[0], torch.zeros(N, K, dtype=torch.bfloat16).t(), scales(1), scales(1),
     r"b must be float8_e4m3fn or float8_e5m2, got \(512, 256\) bfloat16"),
    (fp8(M, K, 1), operands()[1], scales(1), scales(1), r"a must be 2-D"),
    (operands()[0], fp8(N, K - 16).t(), scales(1), scales(1), r"b must be 512 x n to go with a of "
     r"64 x 512, got \(496, 256\)"),
    (fp8(K, M).t(), operands()[1], scales(1), scales(1), r"a must be contiguous \(row-major\)"),
    (operands()[0], fp8(K, N), scales(1), scales(1), r"b must be the transpose of a contiguous "
     r"n x k tensor \(w.t\(\), as torch._scaled_mm takes it\), got \(512, 256\) float8_e4m3fn with "
     r"strides \(256, 1\)"),
    (*operands(), scales(1).half(), scales(1), r"scale_a must be float32"),
    (*operands(), scales(M, 1)[::1], scales(2, N)[:1], None),  # a 1 x n row of a larger tensor
    (*operands(), scales(M, 2)[:, :1], scales(1, N), r"scale_a must be 64 consecutive floats"),
    (*operands(), scales(M, 1), scales(N, 2).t()[:1], r"scale_b must be 256 consecutive floats"),
    (*operands(), scales(M, KB), scales(KB, NB), r"scale_a must be k-block major, strides \(1, 64\)"),
    (*operands(), block_scale_a(), scales(KB, 2 * NB)[:, ::2], r"scale_b must be contiguous, or the "
     r"transpose of a contiguous 2 x 4 tensor"),
])
def test_each_argument_is_checked_and_named(a, b, scale_a, scale_b, message):
    if message is None:
        assert checked(a, b, scale_a, scale_b).scaling == "row_col"
        return
    with pytest.raises(cutune.ArgumentError, match=message):
        checked(a, b, scale_a, scale_b)


def test_out_must_be_a_contiguous_bfloat16_m_by_n():
    for out in (torch.empty(M, N, dtype=torch.float16), torch.empty(M, N + 8, dtype=torch.bfloat16),
                torch.empty(N, M, dtype=torch.bfloat16).t()):
        with pytest.raises(cutune.ArgumentError, match=r"out must be a contiguous 64 x 256 bfloat16"):
            checked(*operands(), scales(1), scales(1), out=out)
    out = torch.empty(M, N, dtype=torch.bfloat16)
    assert checked(*operands(), scales(1), scales(1), out=out).out is out


def test_operands_must_be_16_byte_aligned():
    storage = torch.zeros(M * K + 1, dtype=torch.float8_e4m3fn)
    a = storage[1:].view(M, K)  # one byte past an aligned start
    with pytest.raises(cutune.ArgumentError, match=r"a must be 16-byte aligned"):
        checked(a, operands()[1], scales(1), scales(1))


class RecordingRunner:
    """Stands in for _gemm.GemmRunner, whose launch needs an sm_90 GPU: records what it is given,
    under the binding's own argument names (python/bindings/gemm_module.cpp)."""

    def gemm_fp8(self, *, m, n, k, scaling, a_format, b_format, a, b, out, scale_a, scale_b, stream):
        self.call = dict(m=m, n=n, k=k, scaling=scaling, a_format=a_format, b_format=b_format, a=a,
                         b=b, out=out, scale_a=scale_a, scale_b=scale_b, stream=stream)


def test_the_launch_hands_the_runner_the_problem_and_each_tensors_address():
    a, b = operands()
    weight_scales = scales(NB, KB)
    args = checked(a, b, block_scale_a(), weight_scales.t())
    runner = RecordingRunner()
    _fp8.launch(runner, args, 1234)
    assert runner.call == dict(m=M, n=N, k=K, scaling="block", a_format="e4m3", b_format="e4m3",
                               a=a.data_ptr(), b=b.data_ptr(), out=args.out.data_ptr(),
                               scale_a=args.scale_a.data_ptr(), scale_b=args.scale_b.data_ptr(),
                               stream=1234)
    # B's block scales as the kernel reads them: the k-block major copy, not the weight's.
    assert runner.call["scale_b"] != weight_scales.data_ptr()


def test_each_operand_is_e4m3_or_e5m2_and_the_problem_says_which():
    a, b = operands()
    gradients = torch.zeros(M, K, dtype=torch.float8_e5m2)
    args = checked(gradients, b, scales(1), scales(1))
    assert (args.a_format, args.b_format) == ("e5m2", "e4m3")
    runner = RecordingRunner()
    _fp8.launch(runner, args, 0)
    assert (runner.call["a_format"], runner.call["b_format"]) == ("e5m2", "e4m3")
    args = checked(a, torch.zeros(N, K, dtype=torch.float8_e5m2).t(), scales(1), scales(1))
    assert (args.a_format, args.b_format) == ("e4m3", "e5m2")


def test_cutune_gemm_refuses_what_it_cannot_run_before_any_cpp():
    a, b = operands()
    with pytest.raises(cutune.ArgumentError, match=r"cutune.gemm: a must be a CUDA tensor, got one on cpu"):
        cutune.gemm(a, b, scale_a=scales(1), scale_b=scales(1))
    with pytest.raises(cutune.ArgumentError, match=r"scale_a is required with float8 tensors"):
        cutune.gemm(a, b)
    with pytest.raises(cutune.ArgumentError, match=r"scale_b must be a torch.Tensor, got float"):
        cutune.gemm(a, b, scale_a=scales(1), scale_b=1.0)
    half = torch.zeros(M, K, dtype=torch.bfloat16)
    with pytest.raises(cutune.ArgumentError, match=r"scale_a and scale_b go with float8 tensors; "
                       r"a is torch.bfloat16"):
        cutune.gemm(half, half.t(), scale_a=scales(1), scale_b=scales(1))
    # ArgumentError is a ValueError and a TypeError, as every argument check of the package.
    assert issubclass(cutune.ArgumentError, ValueError)
