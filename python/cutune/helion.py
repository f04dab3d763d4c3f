"""cutune as Helion's autotuner: `@helion.kernel(autotuner_fn=cutune.helion.autotuner)`.

Helion's config_spec becomes a cutune space knob for knob (one knob per slot of Helion's flat
genome, each fragment's search view kept, seed-only values included); Helion's default_config()
is the pinned default, its compiler seeds are seeds, and Helion's own normalize is the last
repair, so every config cutune draws is one Helion runs as given. Candidates are compiled and
timed by Helion's own benchmark path (parallel precompile, accuracy check against the default,
its timing), so a time means what it means to Helion. cutune's core runs the search, the store
and the paired final tournament; a later process with the same store gets the winner without
benchmarking anything. `autotuner_with(budget=..., seconds=..., db=...)` sets the tune's limits;
without a budget the search ends when it stops improving (PATIENCE).
"""
import functools
import inspect
import json
import math
import os
import time
from importlib.metadata import version
from typing import Optional

from . import _helion_compat  # noqa: F401  (before helion)

import helion  # noqa: E402
from helion import exc  # noqa: E402
from helion.autotuner.base_search import BaseSearch  # noqa: E402
from helion.autotuner.config_generation import ConfigGeneration  # noqa: E402

from . import _helion_worker, _host  # noqa: E402
from ._helion_space import HelionSpace  # noqa: E402
from ._footprint import Footprint  # noqa: E402

# Configs measured by effort, when not given: at least MIN_CONFIGS, then the search ends once
# PATIENCE rounds in a row did not find a config 1 % faster, or at BUDGETS. Helion's quick effort
# measures 100-350 configs and its full effort several hundred; a kernel whose default or compiler
# seed is near its best (a norm) ends after two or three rounds, while a wide space still
# improving (attention) keeps searching. A round is as many configs as Helion's precompile runs
# at once (one process per CPU unless autotune_precompile_jobs says otherwise), within ROUND: its
# compiles run side by side, so a round that leaves processes idle costs as much wall time as a
# full one. The first round is the default, the seeds and their neighbours (the core's
# start_near_seeds), and the surrogate chooses every round after it. After the search, CLIMB rounds
# more (added to the budget, or a quarter of a budget given at most) walk on from its fastest
# config over the untried one-knob and paired moves (the core's final_climb): a search ended by
# its patience can stop a flip or two from its basin's best, and two tunes then end apart.
BUDGETS = {"quick": 96, "full": 256}
CLIMB = {"quick": 2, "full": 3}
MIN_CONFIGS = {"quick": 24, "full": 48}
PATIENCE = {"quick": 1, "full": 2}
ROUND = (12, 24)
# A config's compile limit before any compiled (Helion's own default is 60 s), and its floor after.
FIRST_COMPILE_LIMIT_S = 10
MIN_COMPILE_LIMIT_S = 5
_STATUS = {"error": "compile_error", "peer_compilation_fail": "compile_error",
           "timeout": "compile_timeout", "accuracy_error": "wrong_result",
           "filtered": "invalid_config", "source_rejected": "invalid_config"}


class CutuneSearch(BaseSearch):
    """A Helion autotuner whose search is cutune's."""

    def __init__(self, bound_kernel, args, *, budget: Optional[int] = None, seconds: float = 0,
                 db=None, strategy: str = "default", **_ignored):
        super().__init__(bound_kernel, args)
        effort = getattr(self.settings, "autotune_effort", "quick")
        self.effort = effort if effort in BUDGETS else "quick"
        # A budget given is used whole, as a user who names one expects.
        self.climb = CLIMB[self.effort] * self._round()
        if budget:
            self.climb = min(self.climb, budget // 4)
        self.budget = budget or BUDGETS[self.effort] + self.climb
        self.patience = 0 if budget else PATIENCE[self.effort]
        self.time_limit, self.db, self.strategy = seconds, db, strategy
        fn = bound_kernel.kernel.fn
        toolchain = " ".join(f"{name} {version(name)}" for name in ("helion", "triton", "torch"))
        device = next((a.device for a in args if hasattr(a, "device")), None)
        self.on_gpu = device is not None and device.type == "cuda"
        self.space = HelionSpace(ConfigGeneration(self.config_spec), self.config_spec,
                                 Footprint(self.config_spec, bound_kernel.env),
                                 _shared_memory_of(device) if self.on_gpu else math.inf)
        names = list(inspect.signature(fn).parameters)
        self.host = _host.HostKernel(self.space.spec(fn.__name__), inspect.getsourcefile(fn),
                                     _host.describe_args(args, names),
                                     _host.describe_device(device), toolchain)
        self.result = None  # the TuneResult of a tune this process ran
        self.compiled = {}  # config text -> compiled function
        self.compile_times = []  # seconds, of the configs that compiled and ran
        self.original_compile_timeout = self.settings.autotune_compile_timeout
        self.reference = None  # without a GPU: the default config's output
        # Where the tune's time went, seconds: Helion compiling and benchmarking new configs, and
        # re-timing configs measured before (the tournament).
        self.seconds = {"measure_new": 0.0, "retime": 0.0}

    def autotune(self, *, skip_cache: bool = False) -> helion.Config:
        if not skip_cache:
            decision = self.host.decision(self.db)
            if decision is not None:
                return self.space.to_helion(decision["config"])
        return super().autotune(skip_cache=skip_cache)

    def _prepare(self) -> None:
        """Helion's set-up (its baseline compiled and run), with its benchmark worker started
        first so that the worker's start overlaps it, or the last tune's worker (_helion_worker)."""
        worker = _helion_worker.start(self.settings) if self.on_gpu else None
        try:
            super()._prepare()
        finally:
            _helion_worker.hand_over(worker, getattr(self, "benchmark_provider", None))

    def _autotune(self) -> helion.Config:
        self.result = self.host.tune(self._measure, self.space.normalize, budget=self.budget,
                                     seconds=self.time_limit, effort=self.effort, db=self.db,
                                     strategy=self.strategy, batch=self._round(),
                                     patience=self.patience,
                                     min_configs=MIN_CONFIGS[self.effort],
                                     final_climb=self.climb)
        if self.on_gpu:
            _helion_worker.keep(self.benchmark_provider)
        if self.result.decision is None:
            raise exc.NoConfigFound()
        return self.space.to_helion(self.result.decision["config"])

    def _measure(self, batch: list) -> list:
        """New configs through Helion's benchmark_batch (compiled in parallel, checked against
        the default's output, timed by Helion); configs measured before (the tournament's rounds)
        re-timed together by Helion's interleaved bench. Without a GPU (TRITON_INTERPRET=1 on CPU
        tensors) Helion cannot time: each config is compiled by Helion and timed by wall clock."""
        if not self.on_gpu:
            return [self._measure_on_cpu(c) for c in batch]
        texts = [json.dumps(c, sort_keys=True) for c in batch]
        out = [None] * len(batch)
        fresh = [i for i, t in enumerate(texts) if t not in self.compiled]
        # A config that would fail as another of the round would, were that one to fail
        # (HelionSpace.in_waves), is compiled after it, or refused once it failed.
        refused = self.space.in_waves(
            [batch[i] for i in fresh],
            lambda wave: self._compile_and_time(batch, texts, [fresh[j] for j in wave], out))
        for j in refused:
            out[fresh[j]] = _host.failed("invalid_config", "refused: it asks as much of the "
                                         "compiler as a config of its round that failed")
        known = [i for i in range(len(batch)) if out[i] is None]
        if known:
            start = time.perf_counter()
            from helion.autotuner.benchmarking import interleaved_bench
            fns = [functools.partial(self.compiled[texts[i]], *self.args) for i in known]
            for i, t in zip(known, interleaved_bench(fns, repeat=5, desc=None)):
                out[i] = _host.ok(t)
            self.seconds["retime"] += time.perf_counter() - start
        return out

    def _compile_and_time(self, batch: list, texts: list, fresh: list, out: list) -> None:
        """Helion's benchmark_batch over batch[i] for i in `fresh`, into out[i]; the space learns
        from each compile."""
        start = time.perf_counter()
        configs = [self.space.to_helion(batch[i]) for i in fresh]
        self.settings.autotune_compile_timeout = self._compile_limit()
        results = self.benchmark_batch(configs, raise_if_no_viable_config=False)
        for i, r in zip(fresh, results):
            out[i] = _measurement(r)
            if out[i]["outcome"] == "ok":
                self.compiled[texts[i]] = r.fn
                self.compile_times.append(r.compile_time or 0.0)
                self.space.learn(batch[i], ran=True)
            elif r.status == "error":  # its own failure, not a peer's in the same batch
                self.space.learn(batch[i], ran=False)
        self.seconds["measure_new"] += time.perf_counter() - start

    def _round(self) -> int:
        """Configs per round: Helion's precompile processes, within ROUND."""
        jobs = self.settings.autotune_precompile_jobs or os.cpu_count() or 1
        return max(ROUND[0], min(ROUND[1], jobs))

    def _compile_limit(self) -> int:
        """Seconds a config may compile: a batch waits for its slowest compile, so a config that
        compiles far slower than those that ran is cut off (a compile_timeout, stored as such)
        rather than left to hold every other config of its batch."""
        limit = min(self.original_compile_timeout, FIRST_COMPILE_LIMIT_S)
        if len(self.compile_times) >= 4:
            slow = sorted(self.compile_times)[int(0.9 * (len(self.compile_times) - 1))]
            limit = min(self.original_compile_timeout, max(MIN_COMPILE_LIMIT_S, 3 * slow))
        return int(limit)

    def _measure_on_cpu(self, config: dict) -> dict:
        import torch
        start = time.perf_counter()
        try:
            fn = self.kernel.compile_config(self.space.to_helion(config), allow_print=False)
            result = fn(*self.args)
        except Exception as error:  # a config's failure is a value; the next config goes on
            return _host.failed("crash", f"{type(error).__name__}: {error}",
                                time.perf_counter() - start)
        compile_s = time.perf_counter() - start
        if self.reference is None:  # the core measures the default first
            self.reference = result
        elif not torch.allclose(result.float(), self.reference.float(), rtol=1e-2, atol=1e-2):
            return _host.failed("wrong_result", "differs from the default config's output",
                                compile_s)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            fn(*self.args)
            times.append((time.perf_counter() - t) * 1e3)
        return _host.ok(sorted(times)[1], compile_s, 3)


def _shared_memory_of(device) -> int:
    """Bytes of shared memory a program may ask for on the CUDA device (Hopper: 227 KiB)."""
    import torch
    return torch.cuda.get_device_properties(device).shared_memory_per_block_optin


def _measurement(result) -> dict:
    if result.status == "ok" or (result.status == "deduplicated" and result.perf < float("inf")):
        return _host.ok(result.perf, result.compile_time or 0.0)
    outcome = _STATUS.get(result.status, "crash")
    return _host.failed(outcome, f"helion status {result.status}", result.compile_time or 0.0)


def autotuner(bound_kernel, args, **kwargs) -> CutuneSearch:
    """Helion's autotuner_fn: `@helion.kernel(autotuner_fn=cutune.helion.autotuner)`."""
    return CutuneSearch(bound_kernel, args, **kwargs)


def autotuner_with(**options):
    """An autotuner_fn with options: budget (configs measured), seconds, db, strategy."""
    return functools.partial(autotuner, **options)


__all__ = ["autotuner", "autotuner_with", "CutuneSearch"]
