"""The part of cutune.helion and cutune.triton that is neither: a kernel whose configs Python
compiles and times, described to cutune's C++ core as a spec of backend "host" (knobs, constraints,
seeds, problem). The core drives the search, the store and the final tournament; Python answers
`measure` (a batch of configs to measurements) and `normalize` (the framework's own repair)."""
import json
import math
import os
from pathlib import Path
from typing import Callable, Optional, Sequence

from . import _core
from .results import TuneResult, tune_result

# Outcomes the core knows, from its one table (cutune/measurement.hpp).
OUTCOMES = tuple(json.loads(_core.outcome_names_json()))


def ok(time_ms: float, compile_s: float = 0.0, repetitions: int = 1) -> dict:
    """A measurement of a config that ran correctly."""
    if not math.isfinite(time_ms) or time_ms <= 0:
        return failed("crash", f"the framework timed it at {time_ms} ms", compile_s)
    return {"outcome": "ok", "time_ms": float(time_ms), "compile_s": float(compile_s or 0.0),
            "repetitions": int(repetitions)}


def failed(outcome: str, detail: str, compile_s: float = 0.0) -> dict:
    """A measurement of a config that did not run correctly, with why."""
    assert outcome in OUTCOMES and outcome != "ok", outcome
    return {"outcome": outcome, "detail": str(detail)[:2000], "compile_s": float(compile_s or 0.0)}


def describe_device(device) -> dict:
    """What the spec's expressions and the store key see of the device the kernel runs on."""
    import torch
    if device is not None and getattr(device, "type", "cpu") == "cuda":
        p = torch.cuda.get_device_properties(device)
        return {"name": p.name, "cc_major": p.major, "cc_minor": p.minor,
                "sm_count": p.multi_processor_count,
                "smem_per_block": getattr(p, "shared_memory_per_block_optin", 0),
                "regs_per_sm": getattr(p, "regs_per_multiprocessor", 0)}
    interpret = " (TRITON_INTERPRET)" if os.environ.get("TRITON_INTERPRET") == "1" else ""
    return {"name": "cpu" + interpret, "sm_count": os.cpu_count() or 1}


def describe_args(args: Sequence[object], names: Optional[Sequence[str]] = None) -> dict:
    """The problem of a call, by argument name: each tensor's shape and dtype ("48x40:float32"),
    each number, boolean or plain string as it is; other arguments do not enter the key."""
    problem = {}
    for i, arg in enumerate(args):
        name = names[i] if names and i < len(names) else f"arg{i}"
        shape = getattr(arg, "shape", None)
        if shape is not None and hasattr(arg, "dtype"):
            dims = "x".join(str(int(d)) for d in shape) or "scalar"
            problem[name] = f"{dims}:{str(arg.dtype).replace('torch.', '')}"
        elif isinstance(arg, (bool, int, float)):
            problem[name] = arg
        elif isinstance(arg, str) and "," not in arg and "=" not in arg:
            problem[name] = arg
    return problem


def problem_text(problem: dict) -> str:
    """The problem as the core reads it: name=value, comma-separated."""
    return ",".join(f"{name}={json.dumps(v) if isinstance(v, bool) else v}"
                    for name, v in problem.items())


class HostKernel:
    """One kernel at one problem: its spec, where it lives, the device and the frameworks."""

    def __init__(self, spec: dict, source: str, problem: dict, device: dict, toolchain: str):
        self.spec = dict(spec, backend="host", source=str(Path(source).resolve()), problem=problem)
        self.origin = str(Path(source).resolve().parent / f"{spec['name']}.cutune.json")
        self.problem, self.device, self.toolchain = problem_text(problem), device, toolchain

    def _fields(self):
        return (json.dumps(self.spec), self.origin, self.problem, json.dumps(self.device),
                self.toolchain)

    def decision(self, db=None) -> Optional[dict]:
        """The store's decision for this kernel, problem, device and toolchain, or None."""
        answer = json.loads(_core.host_decision_json(*self._fields(), _db(db)))
        return answer["decision"]

    def tune(self, measure: Callable[[list], list], normalize: Optional[Callable] = None, *,
             budget: int = 40, seconds: float = 0, effort: str = "quick", strategy: str = "default",
             seed: int = 0, db=None, store: bool = True, warm_start: bool = True,
             transfer: bool = True, batch: int = 0, patience: int = 0,
             min_configs: int = 0, final_climb: int = 0) -> TuneResult:
        """Tunes: `measure(configs) -> measurements` (ok() / failed() each), `normalize(config)
        -> config or None`; batch: configs per round (0: the core's default); patience: end the
        search once that many rounds in a row, after min_configs, did not make the fastest config
        1 % faster (0: use the whole budget); final_climb: configs of the budget kept for a climb
        from the search's fastest config over its untried neighbours (TuneOptions::final_climb);
        warm_start and transfer as cutune.tune's. Exceptions raised by either end the tune and are
        raised here, with every result measured before them stored."""
        def measure_text(text: str) -> str:
            return json.dumps(measure(json.loads(text)))

        def normalize_text(text: str) -> str:
            return json.dumps(normalize(json.loads(text)))

        text = _core.host_tune_json(*self._fields(), strategy, effort, int(budget), float(seconds),
                                    int(seed), _db(db), bool(store), bool(warm_start),
                                    bool(transfer), int(batch), int(patience), int(min_configs),
                                    int(final_climb),
                                    measure_text,
                                    normalize_text if normalize else None)
        out = json.loads(text)
        return tune_result(out)  # typed, as cutune.tune's


def _db(db) -> str:
    return "" if db is None else str(db)
