"""What a Helion tune's compiles teach its space: which configs would fail to compile as one did
(HelionSpace.normalize rejects them), and how far a register cap may go before it is tried.

A config's Demand is what it asks of the compiler: its tile, warps, register cap (maxnreg) and
pipeline stages (num_stages), within its program (every other knob but those that only order,
hint or address the same work: NEUTRAL_KNOBS). ptxas fails a kernel whose live values do not fit
its cap, and Triton's pipeliner one whose stages' buffers overflow shared memory or that it cannot
pipeline. So a failure that asked for stages teaches that the same program fails with as many
warps, a tile as large or larger and as many stages or more (a stage's buffers are the tile's); one
that asked for a cap, that any program fails with as few warps, a tile as large or larger and a cap
as tight or tighter (fewer threads hold more of the tile each). The way a program addresses its tensors
(indexing, host_tensor_descriptors) is neutral to both: pointer loads and tensor descriptors buffer
the same tiles, and an attention kernel's two-stage loop fails in Triton's pipeliner with either.

A cap tighter than the registers a program needs fails in ptxas, and nothing before the compile
says how many that is. So caps are approached from above: a cap is tried on a tile and warps only
once the next looser cap (at most twice it; no cap counts as the 255 registers a thread has) ran on
them, and a tune spends at most one failed compile per tile and warps finding the tightest.
"""
import json
import math
from typing import NamedTuple

NEUTRAL_KNOBS = ("num_sm_multiplier", "l2_groupings", "loop_orders", "load_eviction_policies",
                 "indexing", "host_tensor_descriptors")
THREAD_REGISTERS = 255


class Demand(NamedTuple):
    program: str
    tile: tuple
    warps: int
    cap: float  # inf: no cap
    stages: int


def demand(config: dict) -> Demand:
    """The Demand of a Helion config's dict."""
    named = {k: v for k, v in config.items() if k not in NEUTRAL_KNOBS}
    cap, stages = named.pop("maxnreg", None), named.pop("num_stages", None) or 1
    tile, warps = tuple(named.pop("block_sizes", ())), named.pop("num_warps", 0)
    if str(named.get("pid_type")).startswith("persistent"):
        named["pid_type"] = "persistent"
    program = json.dumps(named, sort_keys=True, default=str)
    return Demand(program, tile, warps, math.inf if cap is None else cap, stages)


def teaches(failed: Demand) -> bool:
    """A failure teaches the space when it asked for a register cap or pipeline stages."""
    return failed.cap < math.inf or failed.stages > 1


def fails_alike(asked: Demand, failed: Demand) -> bool:
    """`asked` asks at least as much as `failed` did."""
    if failed.cap < math.inf:  # ptxas: the registers a thread holds, whatever the program
        alike = asked.warps <= failed.warps
    else:  # the pipeliner: the program's loop
        alike = asked.program == failed.program and asked.warps == failed.warps
    return (alike and len(asked.tile) == len(failed.tile)
            and all(a >= f for a, f in zip(asked.tile, failed.tile))
            and asked.cap <= failed.cap and asked.stages >= failed.stages)


class CompileLessons:
    """The failures and the capped compiles of one tune so far."""

    def __init__(self):
        self.failed = []  # Demands of failures that teach
        self.caps_run = {}  # (tile, warps) -> the tightest cap that ran on them

    def learn(self, asked: Demand, ran: bool) -> None:
        if ran:
            cap = min(asked.cap, THREAD_REGISTERS)
            key = (asked.tile, asked.warps)
            self.caps_run[key] = min(cap, self.caps_run.get(key, math.inf))
        elif teaches(asked):
            self.failed.append(asked)

    def refuses(self, asked: Demand) -> bool:
        """`asked` fails as a failure did, or asks a cap before the next looser one ran."""
        if asked.cap < THREAD_REGISTERS:
            tightest = self.caps_run.get((asked.tile, asked.warps), math.inf)
            if tightest > 2 * asked.cap:
                return True
        return any(fails_alike(asked, f) for f in self.failed)

    @staticmethod
    def waits(round_: list) -> list:
        """Per Demand of one round: whether an earlier one of the round that asks for a cap or
        stages, were it to fail, would refuse it (it is compiled after that one then)."""
        return [any(teaches(d) and fails_alike(asked, d) for d in round_[:j])
                for j, asked in enumerate(round_)]
