"""The Triton side of the head to head: a matmul written as Triton's tutorial writes it (grouped
program order, pointer increments, strides as arguments, masked edges) and a row softmax, each
under a hand-written @triton.autotune list and under cutune.triton.autotune."""
import triton
import triton.language as tl

import cutune.triton

# (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps): the 14 configs a Triton user lists.
MATMUL_CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
                  (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
                  (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 64, 4, 8),
                  (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8),
                  (256, 128, 64, 4, 8), (128, 256, 64, 3, 4)]
SOFTMAX_CONFIGS = [(w, s) for w in (4, 8, 16, 32) for s in (1, 2, 3)] + [(2, 1), (1, 1)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
           stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % rows_in_group
    pid_n = (pid % (GROUP_M * tiles_n)) // rows_in_group
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        remaining = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < remaining), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < remaining) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x.to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_stride + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty),
             mask=cols < n_cols)


def triton_matmul():
    configs = [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8},
                             num_stages=s, num_warps=w) for m, n, k, s, w in MATMUL_CONFIGS]
    return triton.autotune(configs=configs, key=["M", "N", "K"])(matmul)


def cutune_matmul(db, budget=0):
    """Knob ranges around the same list, whose configs are seeds."""
    return cutune.triton.autotune(
        knobs={"BLOCK_M": [64, 128, 256, 32], "BLOCK_N": [64, 128, 256, 32],
               "BLOCK_K": [32, 64, 128], "GROUP_M": [8, 1, 4, 16], "num_warps": [4, 8, 2],
               "num_stages": [3, 4, 5, 2]},
        constraints=["BLOCK_M * BLOCK_N <= 256 * 128", "BLOCK_K * (BLOCK_M + BLOCK_N) * 2 * num_stages <= 232448"],
        configs=[triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8},
                               num_stages=s, num_warps=w) for m, n, k, s, w in MATMUL_CONFIGS],
        key=["M", "N", "K"], outputs=["c_ptr"], budget=budget, db=db, name="triton_matmul")(matmul)


def triton_softmax():
    configs = [triton.Config({}, num_warps=w, num_stages=s) for w, s in SOFTMAX_CONFIGS]
    return triton.autotune(configs=configs, key=["n_cols"])(softmax)


def cutune_softmax(db, budget=0):
    return cutune.triton.autotune(
        knobs={"num_warps": [4, 8, 16, 32, 2, 1], "num_stages": [1, 2, 3, 4]},
        configs=[triton.Config({}, num_warps=w, num_stages=s) for w, s in SOFTMAX_CONFIGS],
        key=["n_cols"], outputs=["out_ptr"], budget=budget, db=db, name="triton_softmax")(softmax)


def launch_matmul(kernel, a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)  # noqa: E731
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1))


def launch_softmax(kernel, x, out):
    rows, cols = x.shape
    kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
