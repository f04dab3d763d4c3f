"""The block rows' Triton column of the fp8 peer table (bench/gpu/fp8_peers.py): DeepSeek-V3's
block-scaled fp8 GEMM in the form that serving engines run on Hopper where DeepGEMM is missing (a
Triton kernel that scales each 128-deep k-block's partial product by A's per-row and B's
per-128-column scales as it accumulates), autotuned with @triton.autotune over the tile sizes such
kernels ship with. Written here for the table; it stands in for DeepGEMM where no DeepGEMM runs.

The maker returns fn(a, b, scale_a, scale_b, d) -> d for A m x k and B n x k e4m3 (row-major,
K-major), scale_a (k/128, m), scale_b (k/128, n/128), both fp32 and contiguous, as the cutune ABI
lays them out, and d m x n bf16; k is a multiple of 128 (the scaling's own rule)."""
import functools

import torch

SCALE_BLOCK = 128

# (BLOCK_M, BLOCK_N, stages, warps), BLOCK_K = 128 (one scale block): 64- and 128-row tiles, the
# shapes block-scaled Triton kernels are tuned among on Hopper.
BLOCK_CONFIGS = [(64, 64, 4, 4), (64, 128, 3, 4), (64, 128, 4, 4), (128, 64, 4, 4),
                 (128, 128, 3, 8), (128, 128, 4, 8), (128, 256, 3, 8), (256, 128, 3, 8)]


@functools.cache  # one kernel, whose autotune keeps its choice per shape
def block_scaled_matmul():
    import triton
    import triton.language as tl

    configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": SCALE_BLOCK, "GROUP_M": 8},
                             num_stages=s, num_warps=w)
               for bm, bn, s, w in BLOCK_CONFIGS]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a_ptr, b_ptr, d_ptr, sa_ptr, sb_ptr, M, N, K, N_BLOCKS,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr):
        # Output tiles in groups of GROUP_M tile rows, so that programs running together read the
        # same columns of B from L2.
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
        row_ok = rows < M
        col_ok = cols < N
        a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]
        b_ptrs = b_ptr + cols[None, :] * K + ks[:, None]  # B^T's k x n view of the n x k weight
        sa_ptrs = sa_ptr + rows
        sb_ptrs = sb_ptr + cols // BLOCK_K  # a scale block is BLOCK_K columns wide
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for _ in range(0, K // BLOCK_K):
            a = tl.load(a_ptrs, mask=row_ok[:, None], other=0.0)
            b = tl.load(b_ptrs, mask=col_ok[None, :], other=0.0)
            sa = tl.load(sa_ptrs, mask=row_ok, other=0.0)
            sb = tl.load(sb_ptrs, mask=col_ok, other=0.0)
            acc += tl.dot(a, b) * sa[:, None] * sb[None, :]
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K
            sa_ptrs += M
            sb_ptrs += N_BLOCKS
        tl.store(d_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16),
                 mask=row_ok[:, None] & col_ok[None, :])

    def matmul(a, b, scale_a, scale_b, d):
        M, K = a.shape
        N = b.shape[0]
        assert K % SCALE_BLOCK == 0 and scale_a.is_contiguous() and scale_b.is_contiguous()
        kernel[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)](
            a, b, d, scale_a, scale_b, M, N, K, scale_b.shape[1])
        return d

    return matmul


def peer(a, b, scale_a, scale_b, d):
    """fn() -> d for the table: the autotuned kernel bound to one shape's operands."""
    matmul = block_scaled_matmul()
    scale_a, scale_b = scale_a.contiguous(), scale_b.contiguous()
    assert scale_a.dtype == torch.float32
    return lambda: matmul(a, b, scale_a, scale_b, d)
