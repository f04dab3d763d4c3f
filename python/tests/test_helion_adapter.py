"""cutune.helion on the CPU: a Helion kernel under Triton's interpreter (TRITON_INTERPRET=1) on CPU
tensors tuned through `autotuner_fn=cutune.helion.autotuner`: Helion's config_spec mapped into a
cutune space and back, Helion's default_config pinned, Helion's normalize as the last repair, the
winner a helion.Config, and a second kernel object served from the store. Helion's own benchmark
needs a GPU: here each config is compiled by Helion and timed by wall clock."""
import functools
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before triton and helion are imported

import pytest  # noqa: E402

import torch  # noqa: E402  (python/requirements-kernels.txt installs it, with helion)

import cutune.helion  # noqa: E402  (before helion: makes it importable on torch 2.11)
import helion  # noqa: E402
import helion.language as hl  # noqa: E402
from helion.autotuner.config_generation import ConfigGeneration  # noqa: E402

from cutune import _helion_compat, _helion_worker  # noqa: E402
from cutune._compile_lessons import CompileLessons, Demand, fails_alike  # noqa: E402
from cutune._helion_space import HelionSpace  # noqa: E402
from cutune._footprint import Footprint  # noqa: E402

CPU_SETTINGS = {"autotune_precompile": None, "autotune_benchmark_subprocess": False}


def make_add(autotuner_fn, **settings):
    @helion.kernel(autotuner_fn=autotuner_fn, **{**CPU_SETTINGS, **settings})
    def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        for tile in hl.tile(out.size()):
            out[tile] = x[tile] + y[tile]
        return out
    return add


def args():
    torch.manual_seed(0)
    return torch.randn(48, 40), torch.randn(48, 40)


def test_space_maps_every_slot_and_round_trips_through_normalize():
    x, y = args()
    bound = make_add(cutune.helion.autotuner).bind((x, y))
    gen = ConfigGeneration(bound.config_spec)
    space = HelionSpace(gen, bound.config_spec)
    spec = space.spec("add")
    assert len(spec["knobs"]) + len(space.constants) == len(gen.flat_spec)
    assert spec["seeds"][0]["name"] == "helion_default"
    assert space.to_helion(spec["seeds"][0]["config"]) == bound.config_spec.default_config()
    import random
    random.seed(3)
    for _ in range(20):
        flat = gen.random_flat()
        canonical, config = gen.canonicalize_flat(flat)
        assert space.normalize(space.from_flat(flat)) == space.from_flat(canonical)
        assert space.to_helion(space.from_flat(canonical)) == config


def test_block_sizes_and_warps_move_in_pairs():
    """A 2-D tile's sides and num_warps are the space's paired moves (the next test's tune has the
    C++ core read them: a name it does not know would fail the tune)."""
    x, y = args()
    bound = make_add(cutune.helion.autotuner).bind((x, y))
    gen = ConfigGeneration(bound.config_spec)
    spec = HelionSpace(gen, bound.config_spec).spec("add")
    assert spec["paired_moves"][0] == ["block_sizes_0", "block_sizes_1", "num_warps"]


def test_a_tile_kernel_gets_tile_seeds_and_a_row_kernel_none():
    """Helion's default tile (16 a side) is far from where a tile kernel runs best: a kernel with
    two or more tile sides also gets square tiles of 64 and 128 and a tall 128x64 tile, with 4 and
    8 warps, normalized by Helion, after Helion's own default and seeds; a one-sided tile gets
    none."""
    big = torch.randn(512, 512)
    bound = make_add(cutune.helion.autotuner).bind((big, big))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    seeds = space.spec("add")["seeds"]
    tiles = [s for s in seeds if s["name"].startswith("tile_")]
    shape = [(s["config"]["block_sizes_0"], s["config"]["block_sizes_1"], s["config"]["num_warps"])
             for s in tiles]
    assert shape == [(64, 64, 4), (64, 64, 8), (128, 128, 4), (128, 128, 8), (128, 64, 4),
                     (128, 64, 8)]
    assert all(space.normalize(s["config"]) == s["config"] for s in tiles)
    assert max(s["priority"] for s in tiles) < min(s["priority"] for s in seeds
                                                    if s["name"].startswith("helion_"))
    row = torch.randn(4096)
    bound = make_add(cutune.helion.autotuner).bind((row, row))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    assert not [s for s in space.spec("add")["seeds"] if s["name"].startswith("tile_")]
    assert not [s for s in seeds if s["name"].startswith("default_w")]  # tile seeds carry warps


def head_to_head_kernel(maker: str):
    """A kernel maker of the head to head (bench/helion/kernels.py)."""
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "helion")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import kernels
    return getattr(kernels, maker)


def test_a_matmul_tile_seed_steps_k_by_at_most_64():
    """A third tile side is a loop's step (a matmul's K): a 128-deep step with the default's
    pipeline stages overflows a Hopper SM's shared memory, so tile seeds step K by at most 64."""
    matmul = head_to_head_kernel("matmul_kernel")(autotuner_fn=cutune.helion.autotuner, **CPU_SETTINGS)
    big = torch.randn(512, 512)
    bound = matmul.bind((big, big))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    tiles = [s["config"] for s in space.spec("matmul")["seeds"] if s["name"].startswith("tile_")]
    shape = sorted({(c["block_sizes_0"], c["block_sizes_1"], c["block_sizes_2"]) for c in tiles})
    assert shape == [(64, 64, 64), (128, 64, 64), (128, 128, 64)]


def test_a_tile_denser_than_a_thread_holds_is_rejected():
    """A tile whose two largest sides give each thread more than MAX_TILE_PER_THREAD elements spills
    (a thread has 255 registers): the space rejects it, as Helion rejects a config it will not
    run, and keeps the same tile with enough warps, and Helion's default. An attention tile's
    sides are the query rows and the keys of a step (its first side, one head, is 1)."""
    x = torch.randn(512, 4096)
    bound = head_to_head_kernel("swiglu_kernel")(autotuner_fn=cutune.helion.autotuner, **CPU_SETTINGS).bind((x, x))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    default = space.spec("swiglu")["seeds"][0]["config"]
    assert space.normalize(default) is not None
    tile = dict(default, block_sizes_0=32, block_sizes_1=2048)  # 65536 elements
    assert space.normalize(dict(tile, num_warps=8)) is None  # 256 a thread
    assert space.normalize(dict(tile, num_warps=16))["block_sizes_1"] == 2048  # 128 a thread
    q = torch.randn(1, 2, 32, 16)
    bound = head_to_head_kernel("attention_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                    **CPU_SETTINGS).bind((q, q, q))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    tall = dict(space.spec("attention")["seeds"][0]["config"], block_sizes_0=1,
                block_sizes_1=256, block_sizes_2=64)
    assert space.normalize(dict(tall, num_warps=2)) is None  # 256 a thread
    assert space.normalize(dict(tall, num_warps=4)) is not None


def test_a_config_that_failed_with_pipeline_stages_teaches_the_space():
    """A compile failure with 2 stages: the same program with 2 or more stages is rejected from
    then on, with a larger tile, more warps, other cache hints, other indexing or a persistent
    schedule too (the same loop, its buffers as large); fewer stages, fewer warps or a smaller tile
    are not."""
    q = torch.randn(1, 2, 32, 16)
    bound = head_to_head_kernel("attention_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                   **CPU_SETTINGS).bind((q, q, q))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    default = space.spec("attention")["seeds"][0]["config"]
    assert default["num_stages"] == 1 and default["pid_type"] == "flat"
    hinted = dict(default, load_eviction_policies=["first"] + default["load_eviction_policies"][1:])
    space.learn(space.normalize(dict(default, num_stages=2)), ran=False)
    assert space.normalize(dict(default, num_stages=3)) is None
    assert space.normalize(dict(hinted, num_stages=2)) is None
    assert space.normalize(dict(default, num_stages=2, indexing_0="tensor_descriptor")) is None
    assert space.normalize(dict(default, num_stages=3, block_sizes_1=default["block_sizes_1"] * 2)) \
        is None
    assert space.normalize(default) is not None
    assert space.normalize(dict(default, num_stages=3, num_warps=default["num_warps"] * 2)) is None
    assert space.normalize(dict(default, num_stages=3, pid_type="persistent_blocked")) is None
    assert space.normalize(dict(default, num_stages=3, num_warps=default["num_warps"] // 2))
    larger = dict(default, num_stages=2, block_sizes_1=default["block_sizes_1"] * 2)
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    space.learn(space.normalize(larger), ran=False)
    assert space.normalize(dict(larger, num_stages=3)) is None
    assert space.normalize(dict(default, num_stages=3))  # a smaller tile


def demand_of(program: str, tile: tuple, warps: int, cap: float, stages: int) -> Demand:
    return Demand(program, program, program, program, tile, warps, cap, stages)


def test_a_register_cap_fails_alike_on_any_program_of_a_tile_as_large():
    """maxnreg is a knob only on CUDA, so the rule is checked on demands directly: a cap as tight as
    a failed one or tighter fails alike with a tile as large and as few warps, whatever the program;
    a looser cap, none, a smaller tile or more warps do not."""
    failed = demand_of("program", (1, 128, 64), 4, 64, 1)
    assert fails_alike(demand_of("program", (1, 128, 64), 4, 64, 1), failed)
    assert fails_alike(demand_of("another program", (1, 128, 128), 2, 32, 2), failed)
    assert not fails_alike(demand_of("program", (1, 128, 64), 4, 128, 1), failed)
    assert not fails_alike(demand_of("program", (1, 128, 64), 4, float("inf"), 1), failed)
    assert not fails_alike(demand_of("program", (1, 64, 64), 4, 32, 1), failed)
    assert not fails_alike(demand_of("program", (1, 128, 64), 8, 32, 1), failed)


def test_a_program_that_failed_with_no_cap_and_one_stage_fails_with_any():
    """A failure that asked for neither a cap nor stages refuses the same program, tile and warps
    with any, whichever persistent schedule; another program, tile or warps, or a config that asks
    no more than one that ran, is not refused."""
    lessons = CompileLessons()
    tile, inf = (1, 128, 64), float("inf")
    lessons.learn(demand_of("p", tile, 4, inf, 1), ran=False)
    assert lessons.refuses(demand_of("p", tile, 4, inf, 3))
    blocked = Demand("p, blocked", "p", "p", "p", tile, 4, inf, 1)  # p's other persistent schedule
    assert lessons.refuses(blocked)
    assert not lessons.refuses(Demand("p, flat", "p, flat", "p", "p, flat", tile, 4, inf, 1))
    assert lessons.refuses(demand_of("p", tile, 4, 256, 1))
    assert not lessons.refuses(demand_of("q", tile, 4, inf, 1))
    assert not lessons.refuses(demand_of("p", (1, 128, 128), 4, inf, 1))
    assert not lessons.refuses(demand_of("p", tile, 8, inf, 1))
    lessons.learn(demand_of("p", tile, 4, inf, 2), ran=True)  # the failure was a neutral knob's
    assert not lessons.refuses(demand_of("p", tile, 4, inf, 1))
    assert lessons.refuses(demand_of("p", tile, 4, inf, 3))


def test_a_failure_of_a_program_that_ran_otherwise_addressed_refuses_its_addressing():
    """A program that ran with pointers and failed with a tensor descriptor (neither cap nor
    stages): the same addressing is refused with another hint or under the other persistent
    schedule, and waits for it in a round (attention's: its tiles priced); the program with
    pointers, which ran, is not."""
    lessons = CompileLessons()
    tile, inf, priced = (1, 128, 64), float("inf"), 64 << 10
    ran = Demand("p", "p", "p", "p, pointers", tile, 4, inf, 1, priced)
    failed = Demand("p", "p", "p", "p, descriptor", tile, 4, inf, 1, priced)
    other_schedule = Demand("p'", "p", "p", "p, descriptor", tile, 4, inf, 1, priced)
    lessons.learn(ran, ran=True)
    assert lessons.waits([failed, other_schedule]) == [False, True]
    lessons.learn(failed, ran=False)
    assert lessons.refuses(other_schedule)
    assert lessons.refuses(Demand("p", "p", "p", "p, descriptor", tile, 4, inf, 1))  # a hint
    assert not lessons.refuses(Demand("p", "p", "p", "p, pointers", tile, 4, inf, 1))


def test_register_caps_are_tried_from_above_one_step_at_a_time():
    """A cap is refused on a tile and warps until the next looser one ran on them (no cap counts as
    255 registers); once one failed, a tighter one is refused for good."""
    lessons = CompileLessons()
    tile, inf = (1, 128, 64), float("inf")
    assert not lessons.refuses(demand_of("p", tile, 4, 256, 1))
    assert lessons.refuses(demand_of("p", tile, 4, 128, 1))
    lessons.learn(demand_of("p", tile, 4, inf, 1), ran=True)
    assert not lessons.refuses(demand_of("other", tile, 4, 128, 1))
    assert lessons.refuses(demand_of("p", tile, 4, 64, 1))
    assert lessons.refuses(demand_of("p", tile, 8, 128, 1))
    lessons.learn(demand_of("p", tile, 4, 128, 1), ran=True)
    assert not lessons.refuses(demand_of("q", tile, 4, 64, 1))
    lessons.learn(demand_of("q", tile, 4, 64, 1), ran=False)
    assert lessons.refuses(demand_of("q", tile, 4, 64, 1))
    assert lessons.refuses(demand_of("r", tile, 4, 32, 1))


def test_a_config_that_would_fail_as_another_of_its_round_waits_for_it():
    """In one round, a config waits for an earlier one whose failure would refuse it, unless either
    asks no more than a config that ran; in a kernel whose tiles are not priced (no contraction),
    only once a compile of the tune failed or for a register cap."""
    inf = float("inf")
    base = demand_of("p", (1, 128, 64), 4, inf, 2)._replace(shared=64 << 10)
    more, other = base._replace(stages=3), demand_of("q", (1, 128, 64), 4, inf, 2)
    lessons = CompileLessons()
    assert (lessons.waits([base, more, other, base._replace(stages=1)])
            == [False, True, False, False])
    lessons.learn(base, ran=True)
    assert lessons.waits([base, more]) == [False, False]
    unpriced = [base._replace(shared=0), more._replace(shared=0)]
    assert lessons.waits([unpriced[0]._replace(tile=(1, 64, 64)), unpriced[1]]) == [False, False]
    capped = unpriced[0]._replace(tile=(1, 64, 64), cap=128)
    assert lessons.waits([capped, capped._replace(cap=64)]) == [False, True]
    lessons.learn(other, ran=False)
    assert lessons.waits([unpriced[0]._replace(tile=(1, 64, 64)), unpriced[1]]) == [False, True]


def test_a_round_compiles_in_waves_and_drops_what_an_earlier_wave_failed_for():
    """A round compiles what waits for nothing first; once that fails, a config that waited for it
    is dropped without a compile, and one it did not refuse compiles in the next wave."""
    inf = float("inf")
    base = demand_of("p", (1, 128, 64), 4, inf, 2)._replace(shared=64 << 10)
    other = demand_of("q", (1, 128, 64), 4, inf, 2)._replace(shared=64 << 10)
    round_ = [base, base._replace(stages=3), other, other._replace(stages=3)]
    for fails in ("p", "q", ""):
        lessons, waves = CompileLessons(), []

        def compile_wave(wave):
            waves.append(wave)
            for i in wave:
                lessons.learn(round_[i], ran=round_[i].program != fails)
        dropped = lessons.in_waves(round_, compile_wave)
        assert waves[0] == [0, 2]
        assert dropped == {"p": [1], "q": [3], "": []}[fails]
        assert sorted(sum(waves, []) + dropped) == [0, 1, 2, 3]


def test_a_kernels_footprint_is_its_loops_buffers_and_carried_accumulators():
    """A matmul's K loop buffers an x tile and a y tile per pipeline stage (and, persistent, the
    output tile staged for a tensor descriptor's store beside them) and carries a float32
    accumulator as large as its output tile; attention's key loop buffers a key and a value tile
    (each as wide as a head) per stage and carries at least its output's accumulator; a row kernel
    has no contraction and no footprint."""
    matmul = head_to_head_kernel("matmul_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                  **CPU_SETTINGS)
    big = torch.randn(512, 512)
    bound = matmul.bind((big, big))
    footprint = Footprint(bound.config_spec, bound.env)
    config = helion.Config(**{**bound.config_spec.default_config().config,
                              "block_sizes": [64, 128, 32], "num_stages": 3, "num_warps": 4})
    ring = 3 * (64 * 32 + 32 * 128) * 4  # float32
    assert footprint.shared_memory(config) == ring
    assert footprint.accumulator_registers(config) == 64 * 128 // 128
    staged = ["pointer", "pointer", "tensor_descriptor"]  # the output stored through a descriptor
    assert footprint.shared_memory(helion.Config(**{**config.config, "indexing": staged})) == ring
    persistent = helion.Config(**{**config.config, "pid_type": "persistent_blocked"})
    assert footprint.shared_memory(persistent) == ring
    assert footprint.shared_memory(helion.Config(**{**persistent.config, "indexing": staged})) \
        == ring + 64 * 128 * 4
    q = torch.randn(1, 2, 256, 64)
    bound = head_to_head_kernel("attention_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                   **CPU_SETTINGS).bind((q, q, q))
    footprint = Footprint(bound.config_spec, bound.env)
    config = helion.Config(**{**bound.config_spec.default_config().config,
                              "block_sizes": [1, 64, 32], "num_stages": 3, "num_warps": 4})
    assert footprint.shared_memory(config) == 3 * 2 * 32 * 64 * 4  # more than the query tile's
    assert footprint.accumulator_registers(config) == (64 * 64 + 64) // 128  # and a row's max
    x = torch.randn(64, 128)
    bound = head_to_head_kernel("softmax_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                 **CPU_SETTINGS).bind((x,))
    footprint = Footprint(bound.config_spec, bound.env)
    default = bound.config_spec.default_config()
    assert footprint.shared_memory(default) == 0 and footprint.accumulator_registers(default) == 0


def test_a_register_cap_its_accumulators_fill_is_refused_before_any_compile():
    """A cap at or under the registers a thread's accumulators hold is refused with nothing
    learnt yet; a looser one is tried as any cap is (from above)."""
    inf = float("inf")
    lessons = CompileLessons()
    lessons.learn(demand_of("p", (128, 256, 64), 8, inf, 4), ran=True)
    assert lessons.refuses(demand_of("p", (128, 256, 64), 8, 128, 4)._replace(held=128))
    assert not lessons.refuses(demand_of("p", (128, 256, 64), 8, 128, 4)._replace(held=64))
    assert not lessons.refuses(demand_of("p", (128, 256, 64), 8, 128, 4))  # not known


def test_the_space_refuses_by_its_kernels_footprint():
    """A Helion space with its kernel's footprint: after a matmul tile priced past the card's
    shared memory failed, another tile so priced is rejected and one within it is not (register
    caps, a knob on CUDA only, are checked on demands above)."""
    matmul = head_to_head_kernel("matmul_kernel")(autotuner_fn=cutune.helion.autotuner,
                                                  **CPU_SETTINGS)
    big = torch.randn(512, 512)
    bound = matmul.bind((big, big))
    footprint = Footprint(bound.config_spec, bound.env)
    card = 3 * (64 * 64 + 64 * 128) * 4  # float32: a 64x128x64 tile with 3 stages just fits
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec, footprint, card)
    default = space.spec("matmul")["seeds"][0]["config"]

    def tile(m, n, k, stages, warps=4):
        return dict(default, block_sizes_0=m, block_sizes_1=n, block_sizes_2=k, num_stages=stages,
                    num_warps=warps)
    space.learn(space.normalize(tile(64, 64, 64, 3)), ran=True)
    space.learn(space.normalize(tile(128, 128, 64, 3)), ran=False)  # priced past the card
    assert space.normalize(tile(64, 256, 32, 4)) is None  # another tile priced past it
    assert space.normalize(tile(64, 128, 64, 3)) is not None  # within it


def test_a_failure_priced_past_shared_memory_refuses_what_is_priced_past_it():
    """Once a config priced past the card's shared memory and past every config that ran failed,
    any config so priced is refused (whatever its program, tile and warps) or waits in its round;
    one priced within either is not, and a config that ran priced higher lifts the bar."""
    inf, card = float("inf"), 100
    lessons = CompileLessons(shared_memory=card)
    lessons.learn(demand_of("p", (64, 64, 64), 4, inf, 3)._replace(shared=90), ran=True)
    over = demand_of("q", (64, 512, 64), 8, inf, 4)._replace(shared=120)
    assert lessons.waits([over, demand_of("r", (256, 128, 64), 8, inf, 4)._replace(shared=110),
                          demand_of("r", (128, 128, 64), 8, inf, 4)._replace(shared=95)]) \
        == [False, True, False]
    lessons.learn(over, ran=False)
    assert lessons.refuses(demand_of("r", (256, 128, 64), 8, inf, 4)._replace(shared=110))
    assert not lessons.refuses(demand_of("r", (128, 128, 64), 8, inf, 4)._replace(shared=95))
    assert not lessons.refuses(demand_of("r", (256, 128, 64), 8, inf, 4))  # not priced
    lessons.learn(demand_of("s", (128, 64, 64), 4, inf, 1)._replace(shared=115), ran=True)
    assert not lessons.refuses(demand_of("r", (256, 128, 64), 8, inf, 4)._replace(shared=110))
    assert lessons.refuses(demand_of("r", (256, 128, 64), 8, inf, 4)._replace(shared=116))
    unknown = CompileLessons()  # a card of unknown shared memory
    unknown.learn(over, ran=False)
    assert not unknown.refuses(demand_of("r", (256, 128, 64), 8, inf, 4)._replace(shared=130))


def test_a_kernel_without_tile_seeds_gets_the_defaults_warp_neighbours():
    """A one-sided tile (a row kernel) gets Helion's default with num_warps one step down and
    one step up as seeds, normalized by Helion, after Helion's own default and seeds."""
    row = torch.randn(4096)
    bound = make_add(cutune.helion.autotuner).bind((row, row))
    space = HelionSpace(ConfigGeneration(bound.config_spec), bound.config_spec)
    seeds = space.spec("add")["seeds"]
    default = seeds[0]["config"]
    warps = [s for s in seeds if s["name"].startswith("default_w")]
    assert sorted(s["config"]["num_warps"] for s in warps) == [default["num_warps"] // 2,
                                                               default["num_warps"] * 2]
    for s in warps:
        assert s["config"] == space.normalize(dict(default, num_warps=s["config"]["num_warps"]))
    assert max(s["priority"] for s in warps) < min(s["priority"] for s in seeds
                                                    if s["name"].startswith("helion_"))


def test_a_knob_its_gate_switches_off_moves_with_the_gate():
    """num_sm_multiplier does nothing under Helion's default flat pid_type (its normalize resets
    it), so it is paired with pid_type; a knob every config uses (num_warps) has no gate."""
    x, y = args()
    bound = make_add(cutune.helion.autotuner).bind((x, y))
    gen = ConfigGeneration(bound.config_spec)
    space = HelionSpace(gen, bound.config_spec)
    pairs = space.spec("add")["paired_moves"][1:]
    assert ["pid_type", "num_sm_multiplier"] in pairs
    assert all(len(p) == 2 and p[1] != "num_warps" for p in pairs)
    default = space.spec("add")["seeds"][0]["config"]
    assert space.normalize(dict(default, num_sm_multiplier=4)) == space.normalize(default)
    persistent = dict(default, pid_type="persistent_blocked", num_sm_multiplier=4)
    assert space.normalize(persistent)["num_sm_multiplier"] == 4


def test_helion_kernel_tunes_through_cutune_and_is_served_from_the_store(tmp_path):
    db = tmp_path / "h.db"
    searches = []

    def recording(bound, call_args, **kwargs):
        searches.append(cutune.helion.autotuner_with(db=db, budget=5)(bound, call_args, **kwargs))
        return searches[-1]

    x, y = args()
    add = make_add(recording)
    torch.testing.assert_close(add(x, y), x + y)
    result = searches[0].result
    assert result is not None and result.decision is not None
    report = result.report
    assert report["key"]["family"] == "helion_add"
    assert report["key"]["problem"] == "x=48x40:float32,y=48x40:float32"
    assert report["key"]["toolchain"].startswith("helion 1.5.1")
    assert report["evaluated"] >= 2
    assert report["default"]["config"] == searches[0].space.spec("add")["seeds"][0]["config"]

    # A new kernel object on the same store: the stored winner, nothing measured.
    again = make_add(recording)
    torch.testing.assert_close(again(x, y), x + y)
    assert len(searches) == 2 and searches[1].result is None
    winner = searches[0].space.to_helion(result.decision["config"])
    assert searches[1].autotune() == winner


def test_seed_values_outside_a_fragment_are_seed_only():
    from cutune._helion_space import _admit_seed_values
    knob = {"name": "block_sizes_0", "kind": "power_of_two", "min": 32, "max": 4096, "default": 32}
    _admit_seed_values(knob, [1, 64])
    assert (knob["min"], knob["max"], knob["search_min"], knob["search_max"]) == (1, 4096, 32, 4096)
    enum = {"name": "pid_type", "kind": "enum", "choices": ["flat", "xyz"], "default": "flat"}
    _admit_seed_values(enum, ["persistent_blocked", "flat"])
    assert enum["choices"] == ["flat", "xyz", "persistent_blocked"]
    assert enum["search"] == ["flat", "xyz"]


def test_a_round_is_as_many_configs_as_helion_compiles_at_once():
    x, y = args()
    bound = make_add(cutune.helion.autotuner).bind((x, y))
    search = cutune.helion.autotuner(bound, (x, y))
    low, high = cutune.helion.ROUND
    for jobs, expected in ((16, 16), (2, low), (128, high)):
        search.settings.autotune_precompile_jobs = jobs
        assert search._round() == expected


def workers_import_helion(tmp_path, monkeypatch):
    """The CPU's torch lacks a name Helion imports (cutune/_helion_compat.py), so a worker, a
    fresh Python that imports Helion, takes cutune's stand-in first through a sitecustomize, as
    this process did on import."""
    (tmp_path / "sitecustomize.py").write_text("import cutune._helion_compat\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path)] + sys.path))


def prepared_on_the_gpus_branch(kernel, x, y):
    """A search of `kernel` after Helion's set-up, taken as on a GPU (its benchmark worker)."""
    search = cutune.helion.CutuneSearch(kernel.bind((x, y)), (x, y))
    search.on_gpu = True
    search._prepare()
    return search


def test_the_benchmark_worker_is_kept_for_the_next_tune(tmp_path, monkeypatch):
    """A program that tunes several kernels waits for Helion's benchmark worker once: at the end
    of a tune cutune takes the worker back from Helion's provider, whose cleanup would shut it
    down, after the worker dropped the tune's arguments, and the next tune's provider gets it
    running. Here on the CPU, with the GPU's branch taken by hand."""
    import functools
    from helion.autotuner.kernel_args import load_trusted_kernel_args
    workers_import_helion(tmp_path, monkeypatch)
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")  # dropped before the next tune
    x, y = args()
    kernel = make_add(cutune.helion.autotuner, autotune_benchmark_subprocess=True)
    provider = prepared_on_the_gpus_branch(kernel, x, y).benchmark_provider
    worker = provider._benchmark_worker
    saved = str(tmp_path / "args.pt")
    torch.save((x, y), saved)
    load = functools.partial(load_trusted_kernel_args, saved)
    worker.run(load, timeout=60)  # the worker caches a tune's arguments by their file
    assert _helion_worker.keep(provider)
    provider.cleanup()
    assert worker.alive()
    os.remove(saved)
    with pytest.raises(FileNotFoundError):  # not served from the cache: dropped by keep()
        worker.run(load, timeout=60)
    # The next tune's Triton cache (a harness gives each tune a cold one) is the kept worker's too.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "next-tune"))
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    second = prepared_on_the_gpus_branch(kernel, x, y).benchmark_provider
    assert second._benchmark_worker is worker
    in_worker = worker.run(_helion_worker.triton_environment, timeout=60)
    assert in_worker == _helion_worker.triton_environment()
    assert in_worker["TRITON_CACHE_DIR"] == str(tmp_path / "next-tune")
    second.cleanup()
    assert not worker.alive()
    assert not _helion_worker.keep(second)  # nothing left to keep


def test_the_benchmark_worker_imports_none_of_helions_search_only_modules(tmp_path, monkeypatch):
    """The worker only times configs: scikit-learn, which Helion imports for its surrogate-model
    strategies, stays out of it (a second of its start), while this process has it."""
    from importlib.util import find_spec
    workers_import_helion(tmp_path, monkeypatch)
    x, y = args()
    kernel = make_add(cutune.helion.autotuner, autotune_benchmark_subprocess=True)
    provider = prepared_on_the_gpus_branch(kernel, x, y).benchmark_provider
    worker = provider._benchmark_worker
    assert find_spec("sklearn") is not None and "sklearn" in sys.modules
    assert worker.run(functools.partial(find_spec, "sklearn"), timeout=60) is None
    assert worker.run(functools.partial(find_spec, "torch"), timeout=60) is not None
    assert _helion_compat.WORKER_ENV not in os.environ  # only the spawned process had it
    provider.cleanup()


def test_a_kept_worker_that_died_is_replaced_and_its_pipe_closed(tmp_path, monkeypatch):
    """A kept worker that died between tunes (killed, a driver fault) is shut down, which closes
    this process's end of its pipe, and the next tune gets a fresh one."""
    workers_import_helion(tmp_path, monkeypatch)
    x, y = args()
    kernel = make_add(cutune.helion.autotuner, autotune_benchmark_subprocess=True)
    search = prepared_on_the_gpus_branch(kernel, x, y)
    dead = search.benchmark_provider._benchmark_worker
    assert _helion_worker.keep(search.benchmark_provider)
    dead._process.kill()
    dead._process.join()
    fresh = _helion_worker.start(search.settings)
    assert fresh is not dead and fresh.alive()
    assert dead._parent_connection is None  # shut down: its end of the pipe closed
    fresh.shutdown()


def test_helions_benchmark_worker_starts_before_its_set_up(tmp_path, monkeypatch):
    """On a GPU Helion times configs in a worker process it spawns at its first benchmark (a fresh
    Python that imports torch and Helion), which every tune waits for; cutune starts it before
    Helion's set-up and Helion's provider takes it, and shuts it down at its cleanup. Here on the
    CPU, with the GPU's branch taken by hand; a worker that the provider would not use is not
    left running."""
    workers_import_helion(tmp_path, monkeypatch)
    x, y = args()
    kernel = make_add(cutune.helion.autotuner, autotune_benchmark_subprocess=True)
    search = prepared_on_the_gpus_branch(kernel, x, y)
    provider = search.benchmark_provider
    worker = provider._benchmark_worker
    assert worker is not None and worker.alive()
    # Helion's set-up pointed Triton's cache somewhere after the worker started: its jobs follow.
    assert worker.run(_helion_worker.triton_environment, timeout=60) == \
        _helion_worker.triton_environment()
    provider.cleanup()
    assert not worker.alive()
    spare = _helion_worker.start(search.settings)
    assert spare.alive()
    provider._benchmark_worker = worker  # a provider that has its worker already
    assert not _helion_worker.hand_over(spare, provider)
    assert not spare.alive()
