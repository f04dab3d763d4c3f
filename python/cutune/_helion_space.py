"""Helion's config_spec as a cutune space: one knob per slot of Helion's flat genome
(ConfigGeneration.flat_spec), named by the config key it belongs to ("block_sizes_0",
"num_warps"), each fragment mapped to the cutune kind with the same values and search view."""
import json
import math
from typing import Optional

import helion
from helion import exc
from helion.autotuner import config_fragment as fragments

from ._compile_lessons import THREAD_REGISTERS, CompileLessons, Demand, demand
from ._footprint import Footprint

# The tile seeds of a kernel with a tile of two or more sides (HelionSpace.tile_seeds), each with
# each of TILE_WARPS warps: (first side, every other side), square tiles and the tall tile flash
# attention and the Triton tutorial's GEMM run best with (more rows per program than the loop's
# step).
TILE_SHAPES = ((64, 64), (128, 128), (128, 64))
TILE_WARPS = (4, 8)
# A third side and those after it are a loop's step (a matmul's K), whose tiles each pipeline stage
# holds in shared memory: at 128 deep, the default's 4 stages of a 128x128 tile need 4 x (128x128 +
# 128x128) bf16 = 256 KiB, more than a Hopper SM has (227 KiB), and Helion's compile fails. 64 is
# the step the Triton tutorial's GEMM and Helion's own matmul winners take.
TILE_STEP = 64

# The most elements of a tile (its two largest sides: an attention tile's first side is one head)
# one thread may hold. Each element a thread computes on is at least a register, and a thread has
# 255, some of which the kernel's other values take: a denser tile spills, compiles for tens of
# seconds (a Helion compile timeout) or runs slower (a 32x2048 elementwise tile with 2 or 4 warps
# many times; attention's 256x64 with 2 and 256x128 with 4, whose rows also hold a head's
# accumulator, timed out; no tile at 256 a thread was among a kernel's fastest). A kernel whose
# default is denser keeps its default's density as the cap.
MAX_TILE_PER_THREAD = 128

# What Helion raises for a config it will not run (as its own seed transfer catches).
_REJECTED = (exc.InvalidConfig, ValueError, TypeError, KeyError, AssertionError)


def _encode(value):
    """A Helion value as a cutune value: None as "None", tuples as lists."""
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _mixed(fragment) -> bool:
    """An enum whose choices are of several types (None, False, True): cutune's enums hold one
    type, so each choice is written as its text ("None", "False", "True")."""
    return (isinstance(fragment, fragments.EnumFragment)
            and len({type(_encode(c)) for c in fragment.choices}) > 1)


def _encoder(fragment):
    """How a slot's Helion values are written as cutune values."""
    inner = fragment.inner if isinstance(fragment, fragments.ListOf) else fragment
    one = str if _mixed(inner) else _encode
    if isinstance(fragment, fragments.ListOf):
        return lambda values: [one(v) for v in values]
    return one


def _knob(fragment) -> dict:
    f = fragment
    if isinstance(f, fragments.NumThreadsFragment):
        choices, p = [0], 1
        while p <= f.high:
            choices.append(p)
            p *= 2
        return {"kind": "enum", "choices": choices, "default": 0}
    if isinstance(f, fragments.PowerOfTwoFragment):
        return {"kind": "power_of_two", "min": f.low, "max": f.high, "default": f.default()}
    if isinstance(f, fragments.IntegerFragment):
        return {"kind": "integer", "min": f.low, "max": f.high, "default": f.default()}
    if isinstance(f, fragments.BooleanFragment):
        return {"kind": "boolean", "default": bool(f.default())}
    if isinstance(f, fragments.EnumFragment):
        one = str if _mixed(f) else _encode
        choices = [one(c) for c in f.choices]
        search = [one(c) for c in (f.search_choices or f.choices)]
        default = one(f.default())
        knob = {"kind": "enum", "choices": choices,
                "default": default if default in search else search[0]}
        if len(search) < len(choices):
            knob["search"] = search  # seed-only values: reached through seeds alone
        return knob
    if isinstance(f, fragments.PermutationFragment):
        return {"kind": "permutation", "size": f.length}
    if isinstance(f, fragments.ListOf):
        return {"kind": "list", "element": _knob(f.inner), "length": f.length}
    raise TypeError(f"cutune.helion: Helion fragment {type(f).__name__} has no cutune kind")


class HelionSpace:
    """Converts between cutune configs (knob name -> value) and Helion's flat genome."""

    def __init__(self, generation, config_spec, footprint: Optional[Footprint] = None,
                 shared_memory: float = math.inf):
        """`footprint`: what a config's tiles ask of the card (none: not known); `shared_memory`:
        the bytes the card gives a program."""
        self.gen, self.config_spec, self.footprint = generation, config_spec, footprint
        self.names = [None] * len(generation.flat_spec)
        for key, (indices, _) in generation._key_to_flat_indices.items():
            for j, i in enumerate(indices):
                self.names[i] = key if len(indices) == 1 else f"{key}_{j}"
        # Slots with one value only (an empty list): no knob, the value is fixed.
        self.constants = {i: f.default() for i, f in enumerate(generation.flat_spec)
                          if isinstance(f, fragments.ListOf) and f.length == 0}
        # Each slot's encoded value text -> Helion's value (None, tuples) where they differ.
        self.encoders = [_encoder(f) for f in generation.flat_spec]
        self.decoding = []
        for f in generation.flat_spec:
            table = {}
            inner = f.inner if isinstance(f, fragments.ListOf) else f
            if isinstance(inner, fragments.EnumFragment):
                one = str if _mixed(inner) else _encode
                for c in inner.choices:
                    table[json.dumps(one(c))] = c
            self.decoding.append(table)
        self._normalized = {}
        self.lessons = CompileLessons(shared_memory)
        self._demands = {}  # config key -> its normalized config's Demand, once lessons need it
        self._tile_cap = max(MAX_TILE_PER_THREAD,
                             self._tile_per_thread(generation.flatten(config_spec.default_config())))

    def _tile_per_thread(self, flat) -> float:
        """Elements of the tile (its two largest sides; 0 without two) per thread of the config."""
        sides = sorted((flat[i] for i in self.gen.block_size_indices), reverse=True)
        if len(sides) < 2 or self.gen.num_warps_index < 0:
            return 0
        return sides[0] * sides[1] / (32 * flat[self.gen.num_warps_index])

    def _decode(self, slot: int, value):
        table = self.decoding[slot]
        if isinstance(self.gen.flat_spec[slot], fragments.ListOf):
            return [table.get(json.dumps(v), v) for v in value]
        return table.get(json.dumps(value), value)

    def to_flat(self, config: dict) -> list:
        return [self.constants[i] if i in self.constants else self._decode(i, config[name])
                for i, name in enumerate(self.names)]

    def from_flat(self, flat) -> dict:
        return {name: self.encoders[i](v) for i, (name, v) in enumerate(zip(self.names, flat))
                if i not in self.constants}

    def to_helion(self, config: dict) -> helion.Config:
        return self.gen.unflatten(self.to_flat(config))

    def normalize(self, config: dict) -> Optional[dict]:
        """The config Helion runs for `config` (its canonical flat form), or None: rejected by
        Helion, a tile denser than the cap (MAX_TILE_PER_THREAD), or refused by what the tune's
        compiles taught (learn, _compile_lessons)."""
        key = json.dumps(config, sort_keys=True)
        if key not in self._normalized:
            try:
                flat, _ = self.gen.canonicalize_flat(self.to_flat(config))
                dense = self._tile_per_thread(flat) > self._tile_cap
                self._normalized[key] = None if dense else self.from_flat(flat)
            except _REJECTED:
                self._normalized[key] = None
        out = self._normalized[key]
        if out is None or not (_capped(out) or self.lessons.failed):
            return out
        # A Demand costs far more than a normalize found in the cache: worked out once a config, and
        # only once the lessons may refuse it.
        return None if self.lessons.refuses(self._demand(out, key)) else out

    def learn(self, config: dict, ran: bool) -> None:
        """`config` (a normalized config) compiled and ran, or failed to compile (_compile_lessons)."""
        self.lessons.learn(self._demand(config), ran)

    def in_waves(self, configs: list, compile_wave) -> list:
        """One round's normalized configs compiled a wave at a time, each after those of the round
        it would fail as, were they to fail (CompileLessons.in_waves): `compile_wave(indices)`
        compiles and learns. The indices refused once an earlier wave failed."""
        return self.lessons.in_waves([self._demand(c) for c in configs], compile_wave)

    def _demand(self, config: dict, key: Optional[str] = None) -> Demand:
        """The Demand of a normalized config, kept by its key (normalize's: its JSON text)."""
        key = key or json.dumps(config, sort_keys=True)
        if key not in self._demands:
            self._demands[key] = demand(self.to_helion(config), self.footprint)
        return self._demands[key]

    def spec(self, name: str) -> dict:
        """The host spec: knobs, Helion's default_config() as the pinned default (the highest
        priority seed) and Helion's compiler seeds (eligibility already decided by Helion)."""
        knobs = [dict(_knob(f), name=n) for i, (n, f) in enumerate(zip(self.names, self.gen.flat_spec))
                 if i not in self.constants]
        seeds = [{"name": "helion_default", "priority": 1000,
                  "config": self.from_flat(self.gen.flatten(self.config_spec.default_config()))}]
        for i, (flat, _) in enumerate(self.gen.seed_flat_config_pairs()):
            seeds.append({"name": f"helion_seed_{i}", "priority": 100 - i,
                          "config": self.from_flat(flat)})
        seeds += self.tile_seeds(knobs, seeds) or self.warp_seeds(knobs, seeds)
        for knob in knobs:
            _admit_seed_values(knob, [seed["config"][knob["name"]] for seed in seeds])
        spec = {"name": f"helion_{name}", "entry": name, "knobs": knobs, "seeds": seeds}
        paired = self.paired_knobs(knobs)
        groups = [paired] if len(paired) >= 2 else []
        groups += self.gated_pairs(knobs, seeds[0]["config"])
        if groups:
            spec["paired_moves"] = groups
        return spec

    def tile_seeds(self, knobs: list, seeds: list) -> list:
        """For a kernel with a tile of two or more sides: Helion's default with the tiles of
        TILE_SHAPES and TILE_WARPS warps, each as Helion normalizes it. Helion's default tile is
        small (16 a side) and its compiler seeds aim at other kernels, so a climb from them takes
        a round per doubling of a side before it reaches the tiles a tile kernel runs best with
        (64 to 256 a side); measured in the first round, the fastest of these starts the climb."""
        by_name = {k["name"]: k for k in knobs}
        warps_knob = self._warps_knob(knobs)
        sides = [n for n in self.paired_knobs(knobs)
                 if warps_knob is None or n != warps_knob["name"]]
        if len(sides) < 2:
            return []
        default = seeds[0]["config"]
        taken = {json.dumps(seed["config"], sort_keys=True) for seed in seeds}
        out = []
        for first, other in TILE_SHAPES:
            for warps in TILE_WARPS:
                config = dict(default, **{n: _clamp(by_name[n], _side(i, first, other))
                                          for i, n in enumerate(sides)})
                if warps_knob is not None:
                    config[warps_knob["name"]] = _clamp(warps_knob, warps)
                self._add_seed(out, taken, f"tile_{first}x{other}_w{warps}", config)
        return out

    def warp_seeds(self, knobs: list, seeds: list) -> list:
        """For a kernel without tile seeds (a row reduction, an elementwise kernel): Helion's
        default with num_warps one step down and one step up, as Helion normalizes them. Such a
        kernel's default is often within a few percent of its best, and the warps a row of a
        given length runs best with change from card to card; measured in the first round, a
        better warp count starts the climb instead of a neighbour that only a random draw of the
        default's many per-tensor knobs would reach."""
        warps_knob = self._warps_knob(knobs)
        if warps_knob is None:
            return []
        default = seeds[0]["config"]
        taken = {json.dumps(seed["config"], sort_keys=True) for seed in seeds}
        out = []
        for warps in sorted(_steps(warps_knob, default[warps_knob["name"]])):
            self._add_seed(out, taken, f"default_w{warps}",
                           dict(default, **{warps_knob["name"]: warps}))
        return out

    def _warps_knob(self, knobs: list) -> Optional[dict]:
        """The knob of Helion's num_warps slot, None when the kernel has none to tune."""
        index = self.gen.num_warps_index
        return next((k for k in knobs if index >= 0 and k["name"] == self.names[index]), None)

    def _add_seed(self, out: list, taken: set, name: str, config: dict) -> None:
        """Appends `config` as Helion normalizes it to `out`, a seed below Helion's own, unless
        Helion rejects it or it is one of `taken` (the configs already seeds, as JSON text)."""
        normalized = self.normalize(config)
        text = json.dumps(normalized, sort_keys=True)
        if normalized is not None and text not in taken:
            taken.add(text)
            out.append({"name": name, "priority": 50 - len(out), "config": normalized})

    def paired_knobs(self, knobs: list) -> list:
        """The block sizes and num_warps, the knobs Helion's own search moves together in every
        neighbour it draws: a tile's sides and its warps often pay only as a pair (a tile of the same
        area and another shape, or a larger tile that needs more warps, is two steps away)."""
        searched = {k["name"] for k in knobs
                    if k.get("search_min", k.get("min")) != k.get("search_max", k.get("max"))}
        slots = [*self.gen.block_size_indices, self.gen.num_warps_index]
        return [self.names[i] for i in slots
                if i >= 0 and i not in self.constants and self.names[i] in searched]

    def gated_pairs(self, knobs: list, default: dict) -> list:
        """[gate, knob] for each knob that no step changes at the default, as Helion's normalize
        sees it, while it does once one step of the gate is taken (num_sm_multiplier under a
        persistent pid_type, the outer loop's range knobs once the kernel loops over its tiles).
        A search stepping one knob at a time reaches such a knob only through its gate's value
        alone, often slower than where it started; moved as a pair, the two pay together."""
        def changes(config: dict, name: str, values) -> bool:
            base = self.normalize(config)
            return base is not None and any(
                self.normalize(dict(config, **{name: v})) not in (None, base) for v in values)

        by_name = {k["name"]: k for k in knobs}
        inert = [n for n, k in by_name.items()
                 if _steps(k, default[n]) and not changes(default, n, _steps(k, default[n]))]
        pairs = []
        for name in inert:
            for gate, knob in by_name.items():
                if gate in inert:
                    continue
                opened = [dict(default, **{gate: v}) for v in _steps(knob, default[gate])]
                if any(changes(c, name, _steps(by_name[name], c[name])) for c in opened):
                    pairs.append([gate, name])
                    break
        return pairs


def _capped(config: dict) -> bool:
    """A cutune config of Helion's with a register cap below a thread's registers (maxnreg is an
    enum of None and numbers, so its values are texts)."""
    cap = config.get("maxnreg", "None")
    return cap != "None" and int(cap) < THREAD_REGISTERS


def _side(index: int, first: int, other: int) -> int:
    """A tile seed's side `index`: `first`, then `other`, then steps of at most TILE_STEP."""
    return first if index == 0 else other if index == 1 else min(other, TILE_STEP)


def _search_range(knob: dict) -> tuple:
    """A numeric knob's search view: (lowest, highest)."""
    return knob.get("search_min", knob["min"]), knob.get("search_max", knob["max"])


def _clamp(knob: dict, value: int) -> int:
    """`value` within a numeric knob's search view."""
    low, high = _search_range(knob)
    return max(low, min(high, value))


def _steps(knob: dict, value) -> list:
    """A knob's values one step from `value` in its search view (none for lists and orders)."""
    kind = knob["kind"]
    if kind in ("power_of_two", "integer"):
        low, high = _search_range(knob)
        up, down = (value * 2, value // 2) if kind == "power_of_two" else (value + 1, value - 1)
        return [v for v in (up, down) if low <= v <= high and v != value]
    if kind == "boolean":
        return [not value]
    if kind == "enum":
        return [v for v in knob.get("search", knob["choices"]) if v != value]
    return []


def _admit_seed_values(knob: dict, values: list) -> None:
    """Helion's default and seeds may hold values outside a fragment's range (a block size of 1
    where the search starts at 32): legal but seed-only, as Helion treats them, so the search
    view stays the fragment's."""
    kind = knob["kind"]
    if kind in ("power_of_two", "integer"):
        low, high = min([knob["min"], *values]), max([knob["max"], *values])
        if (low, high) != (knob["min"], knob["max"]):
            knob.update(search_min=knob["min"], search_max=knob["max"], min=low, max=high)
    elif kind == "enum":
        extra = [v for v in dict.fromkeys(values) if v not in knob["choices"]]
        if extra:
            knob.setdefault("search", list(knob["choices"]))
            knob["choices"] = knob["choices"] + extra
