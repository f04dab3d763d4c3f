"""cutune for @triton.jit kernels: a drop-in for @triton.autotune that searches knob ranges (not
only a hand-written list), checks each config against the default's output, keeps every result
in cutune's store, and in a later process launches the stored winner without timing anything.

    @cutune.triton.autotune(knobs={"BLOCK_M": [64, 128, 256], "BLOCK_N": [64, 128, 256],
                                   "BLOCK_K": [32, 64, 128], "num_warps": [4, 8],
                                   "num_stages": [3, 4, 5]},
                            constraints=["BLOCK_M * BLOCK_N <= 32768"],
                            key=["M", "N", "K"], outputs=["c_ptr"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ..., BLOCK_M: tl.constexpr, ...): ...

    matmul_kernel[grid](a, b, c, M, N, K, ...)   # as with @triton.autotune

`@cutune.triton.autotune(configs=[triton.Config(...), ...], key=[...])` takes Triton's own list:
the space is every combination of the values the list uses, and the listed configs are seeds.
docs/python.md says more."""
import inspect
from typing import Dict, Iterable, List, Optional, Sequence

from . import _host
from ._timing import BatchMeasurer

_LAUNCH_KNOBS = ("num_warps", "num_stages", "num_ctas")
DEFAULT_BUDGET = 40


def _knob(name: str, values: Sequence) -> dict:
    values = list(dict.fromkeys(values))  # in order, once each
    return {"name": name, "kind": "enum", "choices": values, "default": values[0]}


def _from_configs(configs) -> tuple:
    """Knob values and seeds from a list of triton.Config."""
    knobs: Dict[str, list] = {}
    seeds = []
    for config in configs:
        values = dict(config.kwargs)
        for name in _LAUNCH_KNOBS:
            if getattr(config, name, None) is not None:
                values[name] = getattr(config, name)
        for name, value in values.items():
            knobs.setdefault(name, []).append(value)
        seeds.append(values)
    return knobs, seeds


class Autotuned:
    """What the decorator returns: launched as `kernel[grid](*args)`, like triton's Autotuner."""

    def __init__(self, fn, knobs, constraints, key, outputs, seeds, default, budget, seconds,
                 db, tolerance, name):
        self.fn = fn
        self.arg_names = list(fn.arg_names)
        self.key = list(key)
        self.outputs = list(outputs)
        self.budget, self.seconds, self.db, self.tolerance = budget, seconds, db, tolerance
        knob_list = [_knob(n, v) for n, v in knobs.items()]
        if default:
            for k in knob_list:
                if k["name"] in default:
                    k["default"] = default[k["name"]]
        ranked = [{"name": f"config_{i}", "priority": len(seeds) - i, "config": s}
                  for i, s in enumerate(seeds)]
        self.spec = {"name": name or fn.__name__, "entry": fn.__name__, "knobs": knob_list,
                     "constraints": [{"name": f"rule_{i}", "expr": e} for i, e in
                                     enumerate(constraints)],
                     "seeds": ranked}
        self.cache: Dict[tuple, dict] = {}
        self.last = None  # the HostKernel and TuneResult of the last tune, for reports and tests

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def _bound(self, args, kwargs) -> dict:
        bound = dict(zip(self.arg_names, args))
        bound.update(kwargs)
        return bound

    def _problem(self, bound: dict) -> dict:
        names = [n for n in self.key if n in bound]
        return _host.describe_args([bound[n] for n in names], names)

    def config_for(self, args, kwargs, grid) -> dict:
        """The config this call launches with: cached, stored, or tuned now."""
        bound = self._bound(args, kwargs)
        problem = self._problem(bound)
        text = _host.problem_text(problem)
        if text in self.cache:
            return self.cache[text]
        device = next((v.device for v in bound.values() if hasattr(v, "device")), None)
        import torch
        import triton
        toolchain = f"triton {triton.__version__} torch {torch.__version__}"
        kernel = _host.HostKernel(self.spec, inspect.getsourcefile(self.fn.fn), problem,
                                  _host.describe_device(device), toolchain)
        decision = kernel.decision(self.db)
        if decision is None:
            launch = lambda config: self._launch(args, kwargs, grid, config)  # noqa: E731
            warmup = lambda config: self._launch(args, kwargs, grid, config, warmup=True)  # noqa
            measurer = BatchMeasurer(launch, self._outputs(bound), self.tolerance, warmup)
            # A budget given is used whole; by default the search ends once a round of 8 finds
            # nothing 1 % faster, after at least 16 configs.
            budget, patience = (self.budget, 0) if self.budget else (DEFAULT_BUDGET, 1)
            result = kernel.tune(measurer, budget=budget, seconds=self.seconds, db=self.db,
                                 batch=8, patience=patience, min_configs=16)
            self.last = (kernel, result)
            decision = result.decision
        if decision is None:
            raise RuntimeError(f"{self.spec['name']} {text}: no config ran correctly")
        self.cache[text] = decision["config"]
        return decision["config"]

    def _outputs(self, bound: dict) -> list:
        return [bound[n] for n in self.outputs]

    def _launch(self, args, kwargs, grid, config: dict, warmup: bool = False):
        meta = dict(kwargs, **config)
        g = grid(meta) if callable(grid) else grid
        if warmup:
            return self.fn.warmup(*args, grid=g, **meta)
        return self.fn[g](*args, **meta)

    def run(self, *args, grid, **kwargs):
        return self._launch(args, kwargs, grid, self.config_for(args, kwargs, grid))


def autotune(knobs: Optional[Dict[str, Iterable]] = None, key: Sequence[str] = (), *,
             configs: Optional[List] = None, constraints: Sequence[str] = (),
             outputs: Sequence[str] = (), default: Optional[dict] = None, budget: int = 0,
             seconds: float = 0, db=None, tolerance: float = 1e-2, name: Optional[str] = None):
    """The decorator. knobs: name -> values (constexpr arguments, and num_warps / num_stages);
    configs: triton.Config list instead of (or besides) knobs, kept as seeds; constraints:
    expressions over knobs and key arguments ("BLOCK_M <= M"); key: the arguments whose values
    (tensors: shape and dtype) select a tuned config; outputs: tensor arguments compared with
    the default config's (tolerance: relative); budget: configs measured per tune (0: until a
    round finds nothing 1 % faster, at most DEFAULT_BUDGET)."""
    knobs = {k: list(v) for k, v in (knobs or {}).items()}
    seeds = []
    if configs:
        listed, seeds = _from_configs(configs)
        for name_, values in listed.items():
            knobs[name_] = list(dict.fromkeys(knobs.get(name_, []) + values))
    if not knobs:
        raise ValueError("cutune.triton.autotune: give knobs={name: values} or configs=[...]")
    for k, v in knobs.items():
        if not v:
            raise ValueError(f"cutune.triton.autotune: knob '{k}' has no values")

    def decorate(fn):
        return Autotuned(fn, knobs, list(constraints), key, outputs, seeds, default, budget,
                         seconds, db, tolerance, name)
    return decorate


__all__ = ["autotune", "Autotuned"]
