"""What a Helion config's loops hold in shared memory, priced from Helion's facts about its kernel.

Triton's pipeliner gives each load of a loop body a buffer per stage, so a loop holds the sum of its
loads' tiles num_stages times (its stores' once); the loads and stores outside loops are held once,
and separate loops run one after another. Helion 1.5.1 records these tiles for a kernel with a
contraction (config_spec.kernel_matmul_fact: pipelined_regions, resident_regions; each tile with the
block id or static extent of each side and its element width), and a config's block sizes make them
bytes. The price leaves out what Triton adds beside the buffers (barriers, an epilogue's layout
conversion) and a loop's own stage count (range_num_stages), so it ranks configs and does not
predict a compile: CompileLessons refuses by it only once a config priced past the card's shared
memory failed to compile.
"""
from typing import Optional

from helion._compiler.compile_environment import ReductionLoopBlockSizeSource


class SharedMemoryPrice:
    """price(config) -> bytes the config's largest loop (or its loop-free part) holds; 0 where the
    kernel has no such facts or a side no config sets (an hl.grid axis)."""

    def __init__(self, config_spec, env):
        facts = getattr(config_spec, "kernel_matmul_fact", None)
        regions = [] if facts is None else (
            [(r.tiles, True) for r in facts.pipelined_regions]
            + [(r.tiles, False) for r in facts.resident_regions])
        self.tunable = {bs.block_id: i for i, bs in enumerate(config_spec.block_sizes)}
        self.reduction_loops = config_spec.reduction_loops
        # A reduction's side: its chunk where a config rolls it, else its whole extent.
        self.whole = {}
        for tiles, _ in regions:
            for bid in {b for t in tiles for b in t.dim_block_ids if b is not None}:
                if bid not in self.tunable and bid not in self.whole:
                    self.whole[bid] = _whole(env, bid)
        self.regions = [] if None in self.whole.values() else regions

    def __call__(self, config) -> int:
        if not self.regions:
            return 0
        sides = {bid: config.block_sizes[i] for bid, i in self.tunable.items()}
        for bid, whole in self.whole.items():
            sides[bid] = self.reduction_loops.config_get(
                config.config.get("reduction_loops", []), bid, None) or whole
        stages = max(1, config.config.get("num_stages") or 1)

        def held(tiles, looped: bool) -> int:
            return sum(_bytes(t, sides) * (stages if looped and t.kind == "load"
                                           and t.stageable is not False else 1)
                       for t in tiles if t.kind in ("load", "store"))
        return max(held(tiles, looped) for tiles, looped in self.regions)


def _whole(env, bid: int) -> Optional[int]:
    """A reduction's side when not rolled: its extent, to a power of two as Triton's tiles are;
    None for any other side no config sets."""
    info = env.block_sizes[bid] if bid < len(env.block_sizes) else None
    if not isinstance(getattr(info, "block_size_source", None), ReductionLoopBlockSizeSource):
        return None
    return 1 << max(0, int(env.size_hint(info.size)) - 1).bit_length()


def _bytes(tile, sides: dict) -> int:
    elements = 1
    for bid, static in zip(tile.dim_block_ids, tile.static_dims):
        elements *= sides[bid] if bid is not None else max(1, static or 1)
    return elements * max(1, tile.itemsize)
