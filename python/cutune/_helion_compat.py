"""What must be in place before Helion is imported.

Helion 1.5.1 imports IntelGPUError from torch's inductor, which torch 2.11 no longer defines: an
empty exception class stands in for it (nothing on an NVIDIA GPU raises it).

In Helion's benchmark worker (a process cutune.helion spawns with WORKER_ENV set, whose main
module imports cutune.helion again before Helion), the modules Helion imports only for its own
search strategies are kept out, as if not installed: the worker only times configs, and
scikit-learn alone is 1.2 s of the worker's 13 s start on an H100, which a fresh process's first
tune waits for."""
import os
import sys

import torch._inductor.runtime.triton_compat as _compat

WORKER_ENV = "CUTUNE_HELION_BENCHMARK_WORKER"
SEARCH_ONLY_MODULES = ("sklearn",)  # Helion's surrogate-model strategies

if not hasattr(_compat, "IntelGPUError"):
    _compat.IntelGPUError = type("IntelGPUError", (Exception,), {})

if os.environ.get(WORKER_ENV):
    for _name in SEARCH_ONLY_MODULES:
        sys.modules.setdefault(_name, None)  # an import of it raises ImportError
