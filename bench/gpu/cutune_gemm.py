"""ctypes binding of libcutune_gemm_capi (bench/gpu/gemm_capi.cpp): one tuned Hopper GEMM config
launched on given device pointers and stream, so that peers.py times cutune's kernel in the same
process, on the same tensors and by the same timer as torch, Triton and Helion.

    gemm = CutuneGemm(library, cubin, config, m, n, k, a_ptr, b_ptr, d_ptr)  # ValueError on a refusal
    gemm.launch(stream_handle)                                              # RuntimeError on failure
    gemm.close()

Needs a current CUDA context (torch's, after any torch.cuda call). Standard library only.
"""
import ctypes

_ERROR_BYTES = 1024


def load(library):
    """The library with its three functions typed; OSError when it (or the CUDA driver) cannot load."""
    lib = ctypes.CDLL(library)
    lib.cutune_gemm_open.restype = ctypes.c_void_p
    lib.cutune_gemm_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64,
                                     ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                     ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    lib.cutune_gemm_launch.restype = ctypes.c_int
    lib.cutune_gemm_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.cutune_gemm_close.restype = None
    lib.cutune_gemm_close.argtypes = [ctypes.c_void_p]
    return lib


class CutuneGemm:
    def __init__(self, library, cubin, config, m, n, k, a, b, d, dtype=0, b_layout=0):
        """dtype 0 bf16, 1 fp16; b_layout 0: B is K x N, 1: N x K; a, b, d: device pointers (ints)."""
        self._lib = load(library) if isinstance(library, str) else library
        error = ctypes.create_string_buffer(_ERROR_BYTES)
        self._handle = self._lib.cutune_gemm_open(
            cubin.encode() if cubin is not None else None, config.encode() if config is not None else None,
            m, n, k, dtype, b_layout, a, b, d, error, _ERROR_BYTES)
        if not self._handle:
            raise ValueError(f"cutune_gemm_open: {error.value.decode(errors='replace')}")

    def launch(self, stream):
        """Enqueues D = A * B on `stream` (an int CUstream / cudaStream_t handle; 0 is the legacy one)."""
        error = ctypes.create_string_buffer(_ERROR_BYTES)
        if self._lib.cutune_gemm_launch(self._handle, stream, error, _ERROR_BYTES) != 0:
            raise RuntimeError(f"cutune_gemm_launch: {error.value.decode(errors='replace')}")

    def close(self):
        if self._handle:
            self._lib.cutune_gemm_close(self._handle)
            self._handle = None
