"""The Python package on the CPU path (scripts/python-test.sh): a space report, a real tune of
examples/cpu/matmul/matmul.json, and the Runtime's lookups of what it decided. Run against the
installed package, with CUTUNE_REPOSITORY naming the checkout (for the example), CUTUNE_CLI the
`cutune` tool (for an exported store) and CUTUNE_UNTUNED_READERS tests/runtime's
cutune_untuned_readers (the C++ readers of a deployed config)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

import cutune

REPOSITORY = Path(os.environ.get("CUTUNE_REPOSITORY", Path(__file__).resolve().parents[2]))
MATMUL = str(REPOSITORY / "examples" / "cpu" / "matmul" / "matmul.json")
PROBLEM = "m=64,n=64,k=64"


def test_installed_package_is_not_the_source_tree():
    assert (Path(cutune.__file__).parent / "bin" / "cutune-cpu-worker").exists()


def test_space_reports_the_spec_space_as_a_dict():
    report = cutune.space(MATMUL, problem=PROBLEM, draws=50, seed=1)
    assert report["space"] == "cpu_matmul"
    assert report["problem"] == "k=64,m=64,n=64"
    assert report["population"] == 50
    assert 1 < report["distinct"] <= 50
    assert "vector_fits_block" in [c["name"] for c in report["constraints"]]
    # 64 x 64 fits the spec's "tiny" seed (m * n <= 4096), which the default config comes from.
    assert report["eligible_seeds"] == ["tiny"]
    assert report["default_config"]["BM"] == 8


def test_space_rejects_unknown_names_and_bad_problems():
    with pytest.raises(ValueError, match="neither a kernel spec file nor a built-in family"):
        cutune.space("no_such_family")
    with pytest.raises(ValueError):
        cutune.space(MATMUL, problem="m=")


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    db = tmp_path_factory.mktemp("store") / "tunes.db"
    result = cutune.tune(MATMUL, problem=PROBLEM, budget=8, seed=3, db=db, effort="quick")
    return db, result


def test_a_tune_takes_another_shapes_results_as_priors_unless_told_not_to(tmp_path):
    # As `cutune tune` does (and --no-transfer turns off): one tune session for both.
    db = tmp_path / "transfer.db"
    cutune.tune(MATMUL, problem="m=32,n=64,k=64", budget=12, seed=1, db=db, effort="quick",
                progress=False)
    report, _ = cutune.tune(MATMUL, problem=PROBLEM, budget=4, seed=1, db=db, effort="quick",
                            warm_start=False, progress=False)
    assert report["transfer"]["enabled"] is True
    priors = report["transfer"]["priors"]
    assert [p["source"].split(" on ")[0] for p in priors] == ["k=64,m=32,n=64"]
    assert priors[0]["rows"] >= 8 and priors[0]["seeds"] >= 1
    alone, _ = cutune.tune(MATMUL, problem="m=64,n=32,k=64", budget=4, seed=1, db=db,
                           effort="quick", warm_start=False, transfer=False, progress=False)
    assert alone["transfer"] == {"enabled": False, "priors": []}


def test_tune_measures_and_decides(tuned):
    db, (report, decision) = tuned
    assert report["key"]["family"] == "cpu_matmul"
    assert report["key"]["problem"] == "k=64,m=64,n=64"
    assert report["store"] == str(db)
    assert report["evaluated"] >= 2
    assert report["outcomes"].get("ok", 0) >= 1
    assert report["best"]["time_ms"] > 0
    assert decision is not None and decision["config"] == report["best"]["config"]
    print(f"winner: {decision['config']} at {report['best']['time_ms']:.4f} ms, "
          f"{decision['speedup_over_default']} x the default")


def test_a_tune_without_a_store_names_its_winner_as_the_store_does(tuned):
    import re
    _, (_, stored) = tuned
    alone = cutune.tune(MATMUL, problem=PROBLEM, budget=2, store=False, progress=False)
    for decision in (stored, alone.decision):
        assert re.fullmatch("[0-9a-f]{16}", decision["winner_hash"]), decision


def test_runtime_loads_the_tuned_winner(tuned):
    db, result = tuned
    found = cutune.Runtime(db=db).lookup(MATMUL, PROBLEM)
    assert found["origin"] == "store"
    assert found["config"] == result.winner
    assert found["problem"] == "k=64,m=64,n=64"


def test_runtime_falls_back_to_the_default_for_an_untuned_problem(tuned):
    db, _ = tuned
    found = cutune.Runtime(db=db).lookup(MATMUL, "m=32,n=32,k=32")
    assert found["origin"] == "default_config"
    assert found["config"]["VEC"] == 8


def test_the_tuned_cpu_kernel_runs_on_numpy_arrays(tuned):
    import numpy as np
    db, _ = tuned
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64), dtype=np.float32)
    b = rng.standard_normal((64, 64), dtype=np.float32)
    c = np.full((64, 64), np.nan, dtype=np.float32)
    cutune.Runtime(db=db).run(MATMUL, PROBLEM, a, b, c)  # the spec's buffers: A, B, C
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    # An untuned problem runs the default config, on arrays of its own size.
    a, b, c = a[:32, :32].copy(), b[:32, :32].copy(), np.zeros((32, 32), dtype=np.float32)
    cutune.Runtime(db=db).run(MATMUL, "m=32,n=32,k=32", a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_arrays_that_do_not_fit_the_buffers_are_refused_by_name(tuned):
    import numpy as np
    db, _ = tuned
    runtime = cutune.Runtime(db=db)
    a = np.zeros((64, 64), dtype=np.float32)
    with pytest.raises(cutune.ArgumentError, match=r"takes 3 arrays \(A, B, C\), 2 given"):
        runtime.run(MATMUL, PROBLEM, a, a)
    with pytest.raises(cutune.ArgumentError, match=r"buffer 'B' \(argument 1\) holds f32, given f64"):
        runtime.run(MATMUL, PROBLEM, a, a.astype(np.float64), a)
    with pytest.raises(cutune.ArgumentError, match=r"buffer 'C' \(argument 2\) needs m \* n = 4096"):
        runtime.run(MATMUL, PROBLEM, a, a, a[:8].copy())
    with pytest.raises(cutune.ArgumentError, match="argument 2 is a list, not a C-contiguous"):
        runtime.run(MATMUL, PROBLEM, a, a, [0.0] * 4096)


OWN_ARGUMENTS = str(REPOSITORY / "tests" / "backend" / "cpu" / "data" / "masked_axpby.json")


def test_a_kernel_with_its_own_parameters_runs_on_numpy_arrays(tmp_path):
    """A spec with `arguments` (a C kernel's own parameter list: pointers and i32, f32, i64, f64
    scalars in its order): tuned, then called with its buffers in the spec's order, the scalars
    coming from the spec."""
    import numpy as np
    db = tmp_path / "tunes.db"
    cutune.tune(OWN_ARGUMENTS, budget=8, strategy="exhaustive", seed=1, db=db, effort="quick")
    n, m = 1000, 7
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    w = rng.standard_normal(m)
    mask = rng.integers(0, 4, n).astype(np.uint8)
    out = np.zeros(n, dtype=np.float32)
    cutune.Runtime(db=db).run(OWN_ARGUMENTS, "n=1000,m=7", out, x, w, mask)
    i = np.arange(n)
    expected = np.where(mask & 1, (0.5 * x - 2.0 * w[i % m]).astype(np.float32), x)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.skipif(not Path(os.environ.get("CUTUNE_CLI", "/nonexistent")).exists(),
                    reason="needs the cutune tool (CUTUNE_CLI)")
def test_runtime_reads_an_exported_store(tuned, tmp_path):
    db, result = tuned
    exported = tmp_path / "tuned.json"
    subprocess.run([os.environ["CUTUNE_CLI"], "export", "--db", str(db), "--json", str(exported)],
                   check=True, capture_output=True)
    runtime = cutune.Runtime(db=exported)
    assert runtime.lookup(MATMUL, PROBLEM)["config"] == result.winner
    assert runtime.lookup(MATMUL, PROBLEM)["origin"] == "store"


READERS = os.environ.get("CUTUNE_UNTUNED_READERS", "/nonexistent")


@pytest.mark.skipif(not (Path(os.environ.get("CUTUNE_CLI", "/nonexistent")).exists()
                         and Path(READERS).exists()),
                    reason="needs the cutune tool (CUTUNE_CLI) and tests/runtime's "
                           "cutune_untuned_readers (CUTUNE_UNTUNED_READERS)")
def test_all_four_readers_give_an_untuned_shape_one_config_and_origin(tuned, tmp_path):
    """The one rule for an untuned shape (cutune/lookup.hpp), asked of every reader of one tuned
    store: the C++ cutune::Runtime over the store and the lookup-only LookupTable over its export
    (cutune_untuned_readers), Runtime(db) and Runtime("best.json"). A shape near the tuned one gets
    its winner (repaired for it), a far one the family's default config; all four give the same
    config, origin and warning."""
    db, _ = tuned
    exported = tmp_path / "best.json"
    subprocess.run([os.environ["CUTUNE_CLI"], "export", "--db", str(db), "--json", str(exported)],
                   check=True, capture_output=True)
    for problem, origin in (("m=96,n=64,k=64", "nearest"), ("m=32,n=32,k=32", "default_config")):
        native = json.loads(subprocess.run([READERS, str(db), str(exported), MATMUL, problem],
                                           check=True, capture_output=True, text=True).stdout)
        answers = {"C++ Runtime(store)": native["runtime"],
                   "C++ LookupTable(export)": native["lookup_table"],
                   "Runtime(db)": cutune.Runtime(db=db).lookup(MATMUL, problem),
                   "Runtime(best.json)": cutune.Runtime(db=exported).lookup(MATMUL, problem)}
        seen = {name: (a["config"], a["origin"], a["warnings"]) for name, a in answers.items()}
        assert len({json.dumps(answer, sort_keys=True) for answer in seen.values()}) == 1, seen
        _, said, warnings = seen["Runtime(db)"]
        assert said == origin, (problem, seen)
        assert len(warnings) == 1 and "untuned" in warnings[0], warnings


def test_tune_rejects_a_bad_budget_and_effort():
    with pytest.raises(ValueError, match="budget"):
        cutune.tune(MATMUL, problem=PROBLEM, budget=0, store=False)
    with pytest.raises(ValueError, match="effort"):
        cutune.tune(MATMUL, problem=PROBLEM, effort="slow", store=False)


# Ctrl-C in Python stops the tune after the batch in flight and raises KeyboardInterrupt carrying
# the result; every result is in the store. The tune runs in a child interpreter, which says when
# it has measured a config and holds its tune there until the parent's SIGINT is delivered: the
# tune cannot end before Ctrl-C reaches it, however loaded the machine (a cached kernel's whole
# tune takes a fraction of a second).
INTERRUPTED = """
import json, signal, sys, threading, cutune
delivered = threading.Event()

def on_sigint(signum, frame):
    delivered.set()
    signal.default_int_handler(signum, frame)  # what Ctrl-C does: KeyboardInterrupt

signal.signal(signal.SIGINT, on_sigint)

def progress(p):
    if p.evaluated >= 1 and not delivered.is_set():
        print("measured", flush=True)
        delivered.wait()

try:
    cutune.tune(sys.argv[1], problem="m=96,n=96,k=96", budget=400, db=sys.argv[2],
                warm_start=False, progress=progress)
    print(json.dumps({"interrupted": False}))
except KeyboardInterrupt as stop:
    result = stop.result
    print(json.dumps({"interrupted": True, "stopped": result.report["stopped"],
                      "evaluated": result.report["evaluated"], "winner": result.winner}))
"""


def test_ctrl_c_stops_the_tune_and_raises_keyboard_interrupt_with_the_result(tmp_path):
    import signal
    import sqlite3
    import sys
    db = tmp_path / "results.db"
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED, MATMUL, str(db)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "measured"
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate()
    report = __import__("json").loads(out.strip().splitlines()[-1])
    assert report["interrupted"] and report["stopped"], report
    assert report["winner"] is not None  # the best so far
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT count(*) FROM measurements").fetchone()[0]
    assert stored >= report["evaluated"] >= 1
