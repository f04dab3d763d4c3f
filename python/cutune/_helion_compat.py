"""Helion 1.5.1 imports IntelGPUError from torch's inductor, which torch 2.11 no longer defines:
an empty exception class stands in for it (nothing on an NVIDIA GPU raises it)."""
import torch._inductor.runtime.triton_compat as _compat

if not hasattr(_compat, "IntelGPUError"):
    _compat.IntelGPUError = type("IntelGPUError", (Exception,), {})
