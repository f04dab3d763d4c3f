"""What cutune's Helion space spends normalizing a config, on the CPU: the first time (Helion's
canonical form), from its cache, and once a compile failure has taught the space (its failure rule
then asks each config's Demand, its footprint included, which normalize works out once a config
and keeps). Prints one table, milliseconds a config, over one kernel's default with its warps, tile
and stages varied.

    python bench/helion/normalize_cost.py [--kernel attention]
"""
import argparse
import os
import sys
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))]

import cutune.helion  # noqa: E402  (before helion: it makes helion importable on torch 2.11)
from cutune._compile_lessons import demand  # noqa: E402
from cutune._footprint import Footprint  # noqa: E402
from cutune._helion_space import HelionSpace  # noqa: E402
from helion.autotuner.config_generation import ConfigGeneration  # noqa: E402
from kernels import cases  # noqa: E402


def ms_each(work, items) -> float:
    start = time.perf_counter()
    for item in items:
        work(item)
    return 1e3 * (time.perf_counter() - start) / len(items)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", default="attention")
    opts = parser.parse_args()
    maker, make_args, _, problem = cases("cpu", small=True)[opts.kernel]
    bound = maker(autotuner_fn=cutune.helion.autotuner).bind(make_args())
    footprint = Footprint(bound.config_spec, bound.env)
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec, footprint)
    default = space.spec(opts.kernel)["seeds"][0]["config"]
    tile = next(n for n in default if n.startswith("block_sizes_") and default[n] > 1)
    configs = [dict(default, num_warps=w, num_stages=s, **{tile: default[tile] * f})
               for w in (1, 2, 4, 8, 16) for s in (1, 2, 3, 4) for f in (1, 2, 4)]
    first = ms_each(space.normalize, configs)
    cached = ms_each(space.normalize, configs)
    kept = [c for c in map(space.normalize, configs) if c is not None]
    asked = ms_each(lambda c: demand(space.to_helion(c), footprint), kept)
    space.learn(space.normalize(dict(default, num_stages=2)), ran=False)
    after_failure = ms_each(space.normalize, configs)
    again = ms_each(space.normalize, configs)
    rejected = sum(space.normalize(c) is None for c in configs)
    print(f"{opts.kernel} {problem}, {len(configs)} configs, ms a config")
    print("first  cached  a Demand  after a failure: first  again  (rejected)")
    print(f"{first:5.3f}  {cached:6.3f}  {asked:8.3f}  {after_failure:22.3f}  {again:5.3f}"
          f"  ({rejected})")


if __name__ == "__main__":
    main()
