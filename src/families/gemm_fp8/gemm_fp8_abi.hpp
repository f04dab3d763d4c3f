// The C interface of every library compiled from device/hopper_gemm_fp8.cu: the host launcher
// (gemm_fp8_launch.cpp) dlopens a config's library and calls these three functions. A CUTLASS
// kernel's parameters (its TMA descriptors, scheduler and epilogue state) are built by host code
// instantiated for the same config, so each config compiles to a shared library holding both, not
// to a cubin. Plain C-compatible C++17 without headers; the tuner's compiler prepends this text to
// the kernel source, hence the classic include guard. The functions throw nothing (C linkage).
#ifndef CUTUNE_GEMM_FP8_ABI_HPP
#define CUTUNE_GEMM_FP8_ABI_HPP

// Raised whenever these structs or functions change: the launcher refuses another version.
#define CUTUNE_GEMM_FP8_ABI_VERSION 2

extern "C" {

// One GEMM D = bf16(A * B^T scaled): A is m x k row-major, B is n x k row-major (K-major, "TN"),
// each of the compiled format (e4m3 or e5m2), D is m x n bf16 row-major. Scales are fp32 device
// pointers, by the compiled mode: tensor: scale_a[0], scale_b[0]; row_col: scale_a[m], scale_b[n];
// block: scale_a[k/128][m] (k-block major, one per row and 128 k) and scale_b[k/128][ceil(n/128)].
struct CutuneGemmFp8Args {
  int abi_version;
  int scaling;   // must equal the compiled CUTUNE_SCALING
  int a_format;  // and CUTUNE_A_FORMAT (rules::kFormatE4M3, kFormatE5M2)
  int b_format;  // and CUTUNE_B_FORMAT
  long long m, n, k;
  const void* a;
  const void* b;
  void* d;
  const float* scale_a;
  const float* scale_b;
  int sm_count;  // SMs the persistent grid may fill
};

// The workspace a GEMM of `args` needs, in bytes.
typedef unsigned long long (*CutuneGemmFp8WorkspaceFn)(const CutuneGemmFp8Args* args);
// Checks and prepares a GEMM of `args` with `workspace` (its workspace bytes, device memory) in the
// current context; returns a handle, or null with a reason in `error` (`error_bytes` long).
typedef void* (*CutuneGemmFp8PrepareFn)(const CutuneGemmFp8Args* args, void* workspace, char* error,
                                        int error_bytes);
// Enqueues the prepared GEMM on `stream` (a cudaStream_t / CUstream); 0 on success, else a
// cudaError_t value.
typedef int (*CutuneGemmFp8LaunchFn)(void* handle, void* stream);
typedef void (*CutuneGemmFp8ReleaseFn)(void* handle);
}

#define CUTUNE_GEMM_FP8_WORKSPACE_SYMBOL "cutune_gemm_fp8_workspace"
#define CUTUNE_GEMM_FP8_PREPARE_SYMBOL "cutune_gemm_fp8_prepare"
#define CUTUNE_GEMM_FP8_LAUNCH_SYMBOL "cutune_gemm_fp8_launch"
#define CUTUNE_GEMM_FP8_RELEASE_SYMBOL "cutune_gemm_fp8_release"

#endif  // CUTUNE_GEMM_FP8_ABI_HPP
