"""The two Triton columns of the GEMM peer table (bench/gpu/peers.py), the ones a PyTorch user
reaches for: a 14-config @triton.autotune matmul written as the Triton tutorial writes it (strides
as arguments, pointers advanced by a k-step each iteration, masks on every ragged edge), and
torch.compile's max-autotune with only its Triton templates (persistent TMA templates on). Each
maker returns fn(a, b, c) -> the product, for A (M x K) and B (K x N, or the transpose of an N x K
weight: any strides)."""
import torch

# (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps): the tutorial's eight configs for CUDA and six larger
# ones that Hopper favours: the list a Triton user's @triton.autotune would sweep.
TUTORIAL_CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                    (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
                    (128, 256, 64, 4, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8),
                    (256, 128, 64, 4, 8), (128, 256, 64, 3, 4)]


def tutorial_matmul():
    import triton
    import triton.language as tl

    configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in TUTORIAL_CONFIGS]

    @triton.autotune(configs=configs, key=["M", "N", "K", "stride_bk", "stride_bn"])
    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        # Programs walk the output in groups of GROUP_M tile rows, so that programs running together
        # read the same columns of B from L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BLOCK_M)
        tiles_n = tl.cdiv(N, BLOCK_N)
        in_group = GROUP_M * tiles_n
        first_m = (pid // in_group) * GROUP_M
        group_m = min(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (pid % in_group) % group_m
        pid_n = (pid % in_group) // group_m
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
        b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
        row_ok = rows[:, None] < M
        col_ok = cols[None, :] < N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for step in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - step * BLOCK_K
            a = tl.load(a_ptrs, mask=row_ok & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(ks[:, None] < k_left) & col_ok, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
                 mask=row_ok & col_ok)

    def matmul(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        kernel[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        return c

    return matmul


def inductor_matmul():
    """torch.compile(torch.mm) with max-autotune over Triton templates only. The compiled function
    autotunes on its first call for each new shape and strides (dynamic=False), and allocates its
    output: c is not written."""
    import torch._dynamo
    import torch._inductor.config as inductor

    inductor.max_autotune = True
    inductor.max_autotune_gemm = True
    inductor.max_autotune_gemm_backends = "TRITON"
    # Persistent TMA templates are opt-in; a torch without the switch runs the others.
    if hasattr(inductor.triton, "enable_persistent_tma_matmul"):
        inductor.triton.enable_persistent_tma_matmul = True
    # One recompile per shape of the list, in both layouts.
    for limit in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 256)
    compiled = torch.compile(lambda a, b: torch.mm(a, b), mode="max-autotune-no-cudagraphs", dynamic=False)
    return lambda a, b, c: compiled(a, b)
