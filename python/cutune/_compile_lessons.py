"""What a Helion tune's compiles teach its space: which configs would fail to compile as one did
(HelionSpace.normalize rejects them), and how far a register cap may go before it is tried.

A config's Demand is what it asks of the compiler: its tile, warps, register cap (maxnreg) and
pipeline stages (num_stages), within its program (every other knob but those that only order, hint
or address the same work: NEUTRAL_KNOBS; for stages, whichever schedule, flat or persistent, runs
its loop). ptxas fails a kernel whose live values do not fit its cap, and Triton's pipeliner one
whose stages' buffers overflow shared memory or that it cannot pipeline. So a failure that asked for
stages teaches that the same loop fails with as many warps or more (more threads hold no less), a
tile as large or larger and as many stages or more (a stage's buffers are the tile's); one that
asked for a cap, that any program fails with as few warps, a tile as large or larger and a cap as
tight or tighter (fewer threads hold more of the tile each). The way a program addresses its tensors
(indexing, host_tensor_descriptors) is neutral to both: pointer loads and tensor descriptors buffer
the same tiles, and an attention kernel's two-stage loop fails in Triton's pipeliner with either.

A failure with no cap and one stage is the program itself: the same program, tile and warps fail
whatever else they are asked, under either persistent schedule. Or it is the way the program
addresses its tensors (a persistent loop flattened into attention's outer loop compiles with
pointers and fails with a tensor descriptor): then a compile of the program that ran with other
addressing does not clear the same addressing. No lesson refuses a config that asks no more than one
that ran (the same program, tile and warps, a cap as loose, as few stages): a failure of a config
that differs from it only in neutral knobs was theirs, not its program's.

A config's loops hold their tiles in shared memory (_footprint: its price, in bytes), and Triton
refuses a kernel that asks more than the card has. The price ranks configs but misses what Triton
adds and what it need not hold at once, so it is trusted only where a compile bore it out: a failure
priced past the card's shared memory and past every config that ran teaches that every config
priced past both fails.

A cap tighter than the registers a program needs fails in ptxas or spills. A cap at or under what
its loops' 32-bit carried values hold (_footprint: its accumulators) is refused before any compile;
past that floor nothing before the compile says how many a program needs. So caps are approached
from above: a cap is tried on a tile and warps only once the next looser cap (at most twice it; no
cap counts as the 255 registers a thread has) ran on them, and a tune spends at most one failed
compile per tile and warps finding the tightest.
"""
import json
import math
from typing import NamedTuple

NEUTRAL_KNOBS = ("num_sm_multiplier", "l2_groupings", "loop_orders", "load_eviction_policies",
                 "indexing", "host_tensor_descriptors")
ADDRESSING_KNOBS = ("indexing", "host_tensor_descriptors")
THREAD_REGISTERS = 255


class Demand(NamedTuple):
    program: str  # the knobs but the neutral ones, the tile, warps, cap and stages
    schedule_free: str  # the program with any persistent schedule as one
    loop: str  # the program whatever its schedule, flat or persistent (its loop buffers alike)
    addressed: str  # the schedule-free program and how it addresses its tensors
    tile: tuple
    warps: int
    cap: float  # inf: no cap
    stages: int
    shared: int = 0  # bytes of shared memory its loops hold (_footprint); 0: not priced
    held: int = 0  # registers a thread's accumulators hold (_footprint); 0: not known


def demand(config, footprint=None) -> Demand:
    """The Demand of a helion.Config, with what its tiles ask of the card where `footprint`
    (_footprint.Footprint) knows it."""
    shared, held = (0, 0) if footprint is None else (
        footprint.shared_memory(config), footprint.accumulator_registers(config))
    named = {k: v for k, v in config.items() if k not in NEUTRAL_KNOBS}
    cap, stages = named.pop("maxnreg", None), named.pop("num_stages", None) or 1
    tile, warps = tuple(named.pop("block_sizes", ())), named.pop("num_warps", 0)
    # A loop left unflattened by default (None) is the loop flatten=False asks for.
    if "range_flattens" in named:
        named["range_flattens"] = [bool(v) for v in named["range_flattens"]]
    program = json.dumps(named, sort_keys=True, default=str)
    if str(named.get("pid_type")).startswith("persistent"):
        named["pid_type"] = "persistent"
    schedule_free = json.dumps(named, sort_keys=True, default=str)
    addressing = {k: config.get(k) for k in ADDRESSING_KNOBS}
    addressed = json.dumps([named, addressing], sort_keys=True, default=str)
    named.pop("pid_type", None)
    loop = json.dumps(named, sort_keys=True, default=str)
    return Demand(program, schedule_free, loop, addressed, tile, warps,
                  math.inf if cap is None else cap, stages, shared, held)


def fails_alike(asked: Demand, failed: Demand) -> bool:
    """`asked` asks at least as much as `failed` did."""
    if failed.cap < math.inf:  # ptxas: the registers a thread holds, whatever the program
        alike = asked.warps <= failed.warps and _larger(asked.tile, failed.tile)
    elif failed.stages > 1:  # the pipeliner: the program's loop, its tiles' buffers
        alike = (asked.loop == failed.loop and asked.warps >= failed.warps
                 and _larger(asked.tile, failed.tile))
    else:  # a program the compiler refuses, whichever persistent schedule
        alike = (asked.schedule_free == failed.schedule_free and asked.warps == failed.warps
                 and asked.tile == failed.tile)
    return alike and asked.cap <= failed.cap and asked.stages >= failed.stages


def _as_addressed(failed: Demand) -> bool:
    """A failure with neither cap nor stages, which may be the way its program addresses its
    tensors: a compile that ran with other addressing does not clear the same addressing."""
    return failed.cap == math.inf and failed.stages <= 1


def _larger(tile: tuple, than: tuple) -> bool:
    return len(tile) == len(than) and all(a >= b for a, b in zip(tile, than))


class CompileLessons:
    """The failures and the compiles that ran of one tune so far."""

    def __init__(self, shared_memory: float = math.inf):
        self.shared_memory = shared_memory  # bytes the card gives a program
        self.shared_ran = 0  # the highest price of a config that ran
        self.failed = []  # Demands of failed compiles
        self.ran = {}  # (program, tile, warps) -> [(cap, stages)] of compiles that ran
        self.ran_addressed = {}  # (addressed, tile, warps) -> the same
        self.caps_run = {}  # (tile, warps) -> the tightest cap that ran on them

    def learn(self, asked: Demand, ran: bool) -> None:
        if not ran:
            self.failed.append(asked)
            return
        self.shared_ran = max(self.shared_ran, asked.shared)
        for ran_by, program in ((self.ran, asked.program), (self.ran_addressed, asked.addressed)):
            ran_by.setdefault((program, asked.tile, asked.warps), []).append(
                (asked.cap, asked.stages))
        key, cap = (asked.tile, asked.warps), min(asked.cap, THREAD_REGISTERS)
        self.caps_run[key] = min(cap, self.caps_run.get(key, math.inf))

    def proven(self, asked: Demand, addressed: bool = False) -> bool:
        """A compile that ran asked as much as `asked` or more: of the same program, or with
        `addressed` of the same program addressing its tensors alike."""
        ran_by, program = ((self.ran_addressed, asked.addressed) if addressed
                           else (self.ran, asked.program))
        return any(cap <= asked.cap and stages >= asked.stages
                   for cap, stages in ran_by.get((program, asked.tile, asked.warps), ()))

    def refuses(self, asked: Demand) -> bool:
        """`asked` fails as a failure did, asks a cap its accumulators fill, or asks a cap
        before the next looser one ran."""
        if asked.cap <= asked.held:
            return True
        proven = self.proven(asked)
        if asked.cap < THREAD_REGISTERS and not proven:
            if self.caps_run.get((asked.tile, asked.warps), math.inf) > 2 * asked.cap:
                return True
        return any(self._fails_as(asked, proven, f) for f in self.failed)

    def waits(self, round_: list) -> list:
        """Per Demand of one round: whether an earlier one of the round, at risk and not proven,
        would refuse it were it to fail (it is compiled after that one then)."""
        risky = [self._at_risk(d) and not self.proven(d, _as_addressed(d)) for d in round_]
        proven = [self.proven(d) for d in round_]
        return [any(risky[i] and self._fails_as(asked, proven[j], round_[i]) for i in range(j))
                for j, asked in enumerate(round_)]

    def in_waves(self, round_: list, compile_wave) -> list:
        """Compiles one round's Demands a wave at a time: `compile_wave(indices)` compiles those
        that wait for no other (waits) and teaches what each did (learn); of those that waited,
        the ones the lessons refuse after that wave are dropped, and the rest make the next wave.
        The indices of round_ dropped."""
        dropped, pending = [], list(range(len(round_)))
        while pending:
            waiting = self.waits([round_[i] for i in pending])
            compile_wave([i for i, w in zip(pending, waiting) if not w])
            pending = [i for i, w in zip(pending, waiting) if w]
            dropped += [i for i in pending if self.refuses(round_[i])]
            pending = [i for i in pending if i not in dropped]
        return dropped

    def _at_risk(self, asked: Demand) -> bool:
        """Whether a round should wait on `asked`'s compile: a config whose tiles the footprint
        prices (a contraction's, whose loops overflow shared memory), one with a register cap, or
        any once a compile of the tune failed. Other kernels' compiles fail too seldom to hold a
        round back for (Helion's full search of an RMS norm: 2 failures in 1326 configs; none in
        any quick tune's log of the norms, softmax or swiglu), and a wave costs a compile's
        latency."""
        return asked.shared > 0 or asked.cap < math.inf or bool(self.failed)

    def _fails_as(self, asked: Demand, proven: bool, failed: Demand) -> bool:
        """`asked` (`proven`: by a compile of its program that ran) fails as `failed` did, and
        nothing that ran says otherwise."""
        if self._overflows(asked) and self._overflows(failed):
            return True  # as priced, no compile that ran asked as much: not even its program's
        if not fails_alike(asked, failed):
            return False
        if not proven:
            return True
        return (_as_addressed(failed) and asked.addressed == failed.addressed
                and not self.proven(asked, addressed=True))

    def _overflows(self, asked: Demand) -> bool:
        """`asked` is priced past the card's shared memory and past every config that ran."""
        return asked.shared > max(self.shared_memory, self.shared_ran)
