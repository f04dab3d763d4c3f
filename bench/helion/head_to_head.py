"""cutune.helion.autotuner against Helion's own autotuner (LFBOTreeSearch) on Helion kernels,
on one GPU: per kernel, each tuner tunes a fresh kernel object with a cold Triton cache; then
the two winners are timed together in paired rounds (one-launch CUDA graphs replayed after an L2
flush, bench/gpu/peers.py's GraphTimer), and each is checked against eager PyTorch. Prints one
JSON line per kernel and a table last; writes OUT/head_to_head.jsonl.

    python bench/helion/head_to_head.py --kernels matmul,softmax [--full matmul]
        [--twice softmax] [--budget N] [--rounds 7] [--out DIR] [--helion-from JSONL]

Each row keeps Helion's winners (`helion_quick_config`, ...). --helion-from takes the winners,
wall times and counts of an earlier call's rows instead of tuning again: Helion's tunes cost
minutes of GPU, so a later call that re-tunes cutune pairs it with Helion's recorded winners,
compiled and timed afresh in this process.
"""
import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "gpu")]

import torch  # noqa: E402

import cutune.helion  # noqa: E402  (before helion: it makes helion importable on torch 2.11)
import helion  # noqa: E402
from helion.runtime.settings import default_autotuner_fn  # noqa: E402
from first_timing import first_timing  # noqa: E402
from kernels import cases  # noqa: E402


def cold_triton_cache():
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")


def run_tuner(maker, args, autotuner_fn, **settings):
    """Tunes a fresh kernel object; returns (kernel, wall seconds, the search object)."""
    searches = []

    def recording(bound, call_args, **kwargs):
        search = autotuner_fn(bound, call_args, **kwargs)
        searches.append(search)
        return search

    kernel = maker(autotuner_fn=recording, **settings)
    cold_triton_cache()
    start = time.perf_counter()
    kernel(*args)
    torch.cuda.synchronize()
    return kernel, time.perf_counter() - start, (searches[0] if searches else None)


def counts(search) -> dict:
    """Configs benchmarked and compile failures, as Helion's own metrics count them."""
    inner = getattr(search, "autotuner", search)
    metrics = getattr(inner, "_autotune_metrics", None)
    if metrics is None:
        return {}
    return {"configs": metrics.num_configs_tested, "compile_failures": metrics.num_compile_failures,
            "accuracy_failures": metrics.num_accuracy_failures}


def waited(log_base: str) -> dict:
    """The tune's wait for its first timing (first_timing.py), from LOG_BASE.csv."""
    path = log_base + ".csv"
    found = first_timing(path) if os.path.exists(path) else {}
    return {"first_timing_wait_s": found["wait_s"]} if found else {}


def failures_by_origin(log_base: str, search) -> dict:
    """Compile failures and timeouts in Helion's autotune log (LOG_BASE.csv, one row per config
    benchmarked), split into Helion's compiler seeds, which both tuners measure first, and the
    configs the search itself proposed."""
    path = log_base + ".csv"
    if search is None or not os.path.exists(path):
        return {}
    from helion.autotuner.search_space_logger import canonical_config_id
    inner = getattr(search, "autotuner", search)
    # Helion's search keeps its config generation; cutune's keeps it in its space.
    generation = getattr(inner, "config_gen", None) or getattr(getattr(inner, "space", None),
                                                               "gen", None)
    if generation is None:
        return {}
    seeds = {canonical_config_id(c) for _, c in generation.seed_flat_config_pairs()}
    out = {"seed_failures": 0, "search_failures": 0, "logged": 0}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 5 or row[0] == "run_id":  # the header
                continue
            out["logged"] += 1
            if row[4] in ("error", "timeout", "peer_compilation_fail"):
                out["seed_failures" if row[2] in seeds else "search_failures"] += 1
    return out


def paired(timer, fns, rounds, reps=20) -> list:
    """Per round, each function's median time; the order alternates from round to round."""
    graphs = [timer.capture(f) for f in fns]
    per_round = []
    for r in range(rounds):
        order = list(range(len(fns))) if r % 2 == 0 else list(reversed(range(len(fns))))
        times = [0.0] * len(fns)
        for i in order:
            times[i] = statistics.median(timer.time(graphs[i], reps))
        per_round.append(times)
    return per_round


def recorded_helion(path: str, device: str) -> dict:
    """(kernel, effort) -> an earlier row's Helion fields, from head_to_head.jsonl files, of rows
    taken on `device` (a winner on another card is not the one Helion would pick here)."""
    found = {}
    if not path:
        return found
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    for row in rows:
        if row.get("device") != device:
            continue
        for effort in ("quick", "full"):
            if f"helion_{effort}_config" in row:
                found[(row["kernel"], effort)] = {k: v for k, v in row.items()
                                                  if k.startswith(f"helion_{effort}")}
    return found


def error(out, ref) -> float:
    out, ref = out.float(), ref.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", default="matmul,softmax,rms_norm,layer_norm,swiglu,attention")
    parser.add_argument("--full", default="", help="kernels Helion also tunes at full effort")
    parser.add_argument("--budget", type=int, default=0, help="cutune's configs (0: by effort)")
    parser.add_argument("--twice", default="",
                        help="kernels cutune tunes a second time, cold, on a store of its own")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    parser.add_argument("--helion-from", default="",
                        help="an earlier head_to_head.jsonl: its Helion winners on this card, "
                             "not new tunes")
    opts = parser.parse_args()
    from peers import GraphTimer
    timer = GraphTimer()
    timer.ramp()
    db = os.path.join(opts.out, "cutune-helion.db")
    table = cases("cuda")
    recorded = recorded_helion(opts.helion_from, torch.cuda.get_device_name())
    rows = []
    for name in opts.kernels.split(","):
        maker, make_args, reference, problem = table[name]
        args = make_args()
        ref = reference(*args)
        row = {"kernel": name, "problem": problem, "device": torch.cuda.get_device_name()}
        budget = {"budget": opts.budget} if opts.budget else {}
        log = os.path.join(opts.out, f"autotune-{name}")
        ours, row["cutune_s"], search = run_tuner(
            maker, args, cutune.helion.autotuner_with(db=db, **budget), autotune_effort="quick",
            autotune_log=f"{log}-cutune")
        row["cutune"] = counts(search)
        row["cutune"].update(failures_by_origin(f"{log}-cutune", search))
        row["cutune"].update(waited(f"{log}-cutune"))
        if search is not None and search.result is not None:
            report = search.result.report
            row["cutune"]["outcomes"] = report.get("outcomes", {})
            row["cutune"]["tune_s"] = report.get("seconds")
            row["cutune"]["tournament_s"] = (report.get("tournament") or {}).get("seconds")
            row["cutune"]["within_2pct_s"] = report.get("seconds_to_within_2pct")
            # Where cutune's wall time went: Helion's set-up before the search (its baseline
            # compile and run), Helion compiling and benchmarking new configs, re-timing.
            row["cutune"]["setup_s"] = row["cutune_s"] - (report.get("seconds") or 0.0)
            row["cutune"].update({f"{k}_s": v for k, v in search.seconds.items()})
            if search.result.decision is not None:
                row["cutune_config"] = json.loads(
                    search.space.to_helion(search.result.decision["config"]).to_json())
        row["cutune_error"] = error(ours(*args), ref)
        # A second kernel object on the same store: the stored winner, nothing benchmarked.
        start = time.perf_counter()
        lookup = cutune.helion.CutuneSearch(ours.bind(args), args, db=db)
        lookup.autotune()
        row["cutune_warm_lookup_s"] = time.perf_counter() - start
        fns = {"cutune": lambda: ours(*args)}
        if name in opts.twice.split(","):
            again, row["cutune_again_s"], _ = run_tuner(
                maker, args, cutune.helion.autotuner_with(db=db + ".again", **budget),
                autotune_effort="quick")
            fns["cutune_again"] = lambda: again(*args)
        for effort in ["quick"] + (["full"] if name in opts.full.split(",") else []):
            if (name, effort) in recorded:
                row.update(recorded[(name, effort)])
                row[f"helion_{effort}_recorded"] = opts.helion_from
                config = helion.Config.from_dict(row[f"helion_{effort}_config"])
                theirs = maker(config=config)
                cold_triton_cache()
            else:
                theirs, seconds, helion_search = run_tuner(maker, args, default_autotuner_fn,
                                                           autotune_effort=effort,
                                                           autotune_log=f"{log}-helion-{effort}")
                row[f"helion_{effort}_s"] = seconds
                row[f"helion_{effort}"] = counts(helion_search)
                row[f"helion_{effort}"].update(
                    failures_by_origin(f"{log}-helion-{effort}", helion_search))
                row[f"helion_{effort}"].update(waited(f"{log}-helion-{effort}"))
                chosen = getattr(theirs.bind(args), "_config", None)  # what set_config() ran
                if chosen is not None:
                    row[f"helion_{effort}_config"] = json.loads(chosen.to_json())
            row[f"helion_{effort}_error"] = error(theirs(*args), ref)
            fns[f"helion_{effort}"] = (lambda k: lambda: k(*args))(theirs)
        names = list(fns)
        times = paired(timer, [fns[n] for n in names], opts.rounds)
        for i, n in enumerate(names[1:], start=1):
            # > 1: cutune's kernel is faster, paired within each round.
            row[f"speed_vs_{n}"] = statistics.median(t[i] / t[0] for t in times)
        row["times_ms"] = {n: statistics.median(t[i] for t in times) for i, n in enumerate(names)}
        print(json.dumps(row), flush=True)
        rows.append(row)
        with open(os.path.join(opts.out, "head_to_head.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")
    # "waits": each tune's wait for its first timing (first_timing.py), cutune's / Helion's.
    print("\nkernel       problem               cutune s  helion quick s  speed vs quick  "
          "cutune cfgs/fails  helion cfgs/fails  waits s")
    for r in rows:
        c, h = r.get("cutune", {}), r.get("helion_quick", {})
        waits = "/".join(f"{t.get('first_timing_wait_s', float('nan')):.1f}" for t in (c, h))
        print(f"{r['kernel']:<12} {r['problem']:<21} {r['cutune_s']:8.1f} {r['helion_quick_s']:15.1f} "
              f"{r.get('speed_vs_helion_quick', float('nan')):15.3f}  "
              f"{c.get('configs', '-')}/{c.get('compile_failures', '-'):<15} "
              f"{h.get('configs', '-')}/{h.get('compile_failures', '-'):<16} {waits}")


if __name__ == "__main__":
    main()
