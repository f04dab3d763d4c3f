"""What a Helion config's tiles ask of the card, from Helion's facts about its kernel: the shared
memory its loops buffer, and the registers its accumulators hold.

Helion 1.5.1 records, for a kernel with a contraction (config_spec.kernel_matmul_fact), the tiles
each loop body loads and stores (pipelined_regions), those outside loops (resident_regions) and the
tiles live at each step of the kernel (live_tile_steps), each tile with the block id or static
extent of each side and its element width; a config's block sizes make them bytes.

Shared memory: Triton's pipeliner gives each load of a loop body a buffer per stage, so a loop holds
the sum of its loads' tiles num_stages times (its stores' once); loads and stores outside loops are
held once, and separate loops run one after another. A store through a tensor descriptor is staged
in shared memory: after a flat program's loop it reuses the loop's buffers, but a persistent
program's next tile loads while the last one's output drains, so there the staging is held beside
the largest loop's. The price leaves out what Triton adds beside the buffers (barriers, an
epilogue's layout conversion) and a loop's own stage count (range_num_stages), so it ranks configs
and does not predict a compile: CompileLessons refuses by it only once a config priced past the
card's shared memory failed to compile.

Registers: a 32-bit value carried from one iteration of a loop to the next (a dot's accumulator, a
running max or sum) lives in registers, a register per element shared among the program's threads,
and a Hopper dot's accumulator cannot be spilled. A step's carried values are live at once, one
tile of each shape at least (Helion's liveness may count an accumulator and its update both, two
tiles of one shape), so at the step that carries the most, one tile of each shape it carries is a
floor under the registers a thread needs: under a register cap (maxnreg) at or below it, ptxas
fails or spills the accumulators themselves, which runs at about half the speed of a looser cap.
"""
from typing import Optional

from helion._compiler.compile_environment import ReductionLoopBlockSizeSource

THREADS_PER_WARP = 32


class Footprint:
    """shared_memory(config), accumulator_registers(config): 0 where the kernel has no such facts
    or a tile has a side no config sets (an hl.grid axis)."""

    def __init__(self, config_spec, env):
        facts = getattr(config_spec, "kernel_matmul_fact", None)
        regions = [] if facts is None else (
            [(r.tiles, True) for r in facts.pipelined_regions]
            + [(r.tiles, False) for r in facts.resident_regions])
        steps = [] if facts is None else [
            list({t.dim_block_ids: t for t in step if t.kind == "carry" and t.itemsize == 4}
                 .values()) for step in facts.live_tile_steps]
        self.tunable = {bs.block_id: i for i, bs in enumerate(config_spec.block_sizes)}
        self.reduction_loops = config_spec.reduction_loops
        # A reduction's side: its chunk where a config rolls it, else its whole extent.
        self.whole = {}
        for tile in [t for tiles, _ in regions for t in tiles] + [t for s in steps for t in s]:
            for bid in tile.dim_block_ids:
                if bid is not None and bid not in self.tunable and bid not in self.whole:
                    self.whole[bid] = _whole(env, bid)
        known = None not in self.whole.values()
        self.regions = regions if known else []
        self.carried = [s for s in steps if s] if known else []
        ops = getattr(config_spec, "memory_op_facts", [])
        self.store_slots = [op.indexing_index for op in ops if op.kind == "store"]

    def shared_memory(self, config) -> int:
        """Bytes the config's largest loop (or its loop-free part) holds in shared memory."""
        if not self.regions:
            return 0
        sides = self._sides(config)
        stages = max(1, config.config.get("num_stages") or 1)

        def buffered(tiles, looped: bool) -> int:
            return sum(_bytes(t, sides) * (stages if looped and t.kind == "load"
                                           and t.stageable is not False else 1)
                       for t in tiles if t.kind in ("load", "store"))
        held = [buffered(tiles, looped) for tiles, looped in self.regions]
        if not self._staged_beside_loops(config):
            return max(held)
        rings = [h for h, (_, looped) in zip(held, self.regions) if looped]
        staging = sum(_bytes(t, sides) for tiles, looped in self.regions if not looped
                      for t in tiles if t.kind == "store")
        return max(max(held), max(rings, default=0) + staging)

    def accumulator_registers(self, config) -> int:
        """Registers a thread needs at least for the 32-bit values its loops carry."""
        if not self.carried:
            return 0
        sides = self._sides(config)
        threads = THREADS_PER_WARP * max(1, config.config.get("num_warps") or 1)
        return max(sum(_bytes(t, sides) for t in step) for step in self.carried) // 4 // threads

    def _staged_beside_loops(self, config) -> bool:
        """A persistent program that stores through a tensor descriptor."""
        indexing = config.config.get("indexing") or []
        persistent = str(config.config.get("pid_type", "")).startswith("persistent")
        return persistent and any(slot < len(indexing) and indexing[slot] == "tensor_descriptor"
                                  for slot in self.store_slots)

    def _sides(self, config) -> dict:
        sides = {bid: config.block_sizes[i] for bid, i in self.tunable.items()}
        for bid, whole in self.whole.items():
            sides[bid] = self.reduction_loops.config_get(
                config.config.get("reduction_loops", []), bid, None) or whole
        return sides


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
