"""libcutune_gemm_capi through bench/gpu/cutune_gemm.py, without a GPU: the library loads with
ctypes and refuses each wrong argument with a message naming it, before it touches the driver.
CUDA's stub driver stands in for libcuda.so.1 (no driver on a build machine); with it, a correct
call gets as far as asking for the current context and fails there, which is checked too.

    python3 gemm_capi_test.py LIBRARY STUB_LIBCUDA
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "gpu"))
from cutune_gemm import CutuneGemm, load  # noqa: E402

GOOD = dict(cubin="/nonexistent.cubin", config="64x128x64_s8_c2x1_ping_rn8_k1", m=128, n=8192, k=8192,
            a=0x1000, b=0x2000, d=0x3000)


def refused(lib, **changes):
    args = dict(GOOD, **changes)
    try:
        CutuneGemm(lib, **args)
    except ValueError as error:
        return str(error)
    raise AssertionError(f"accepted {changes}")


def main(library, stub):
    try:
        ctypes.CDLL("libcuda.so.1", mode=ctypes.RTLD_GLOBAL)
    except OSError:  # no driver here: the stub answers every call with CUDA_ERROR_STUB_LIBRARY
        ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)
    lib = load(library)
    cases = [
        ({"cubin": ""}, "cubin"),
        ({"config": None}, "config"),
        ({"config": "128x128"}, "does not match"),
        ({"config": "128x128x64_s4_c1x1_coop_rn8_k1", "m": 0}, "m, n, k"),
        ({"dtype": 2}, "dtype"),
        ({"b_layout": 5}, "b_layout"),
        ({"a": 0}, "null device pointer"),
        ({"config": "96x128x64_s4_c1x1_coop_rn8_k1"}, "config 96x128x64"),
    ]
    for changes, expected in cases:
        message = refused(lib, **changes)
        assert expected in message, (changes, message)
    # Arguments all right: it reaches the driver, which a build machine does not have.
    message = refused(lib)
    assert "cuCtxGetCurrent" in message or "no current CUDA context" in message, message
    # A null handle is refused by launch, and close(NULL) is a no-op.
    error = ctypes.create_string_buffer(256)
    assert lib.cutune_gemm_launch(None, None, error, 256) == -1 and b"handle" in error.value
    lib.cutune_gemm_close(None)
    print(f"gemm_capi_test: {len(cases) + 2} checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
