"""Issue 32: the package as a Python user expects it: documented exception classes for every
documented input (never a TypeError showing a C++ signature, never budget="7" taken silently), a
progress callback that sees the search and the tournament, typed results that are still dicts,
and type stubs for the public API."""
import ast
import os
from pathlib import Path

import pytest

import cutune

REPOSITORY = Path(os.environ.get("CUTUNE_REPOSITORY", Path(__file__).resolve().parents[2]))
MATMUL = str(REPOSITORY / "examples" / "cpu" / "matmul" / "matmul.json")
PROBLEM = "m=32,n=32,k=32"


@pytest.mark.parametrize("arguments, named", [
    ({"budget": "7"}, "budget must be an int, got str '7'"),
    ({"budget": 7.5}, "budget must be an int"),
    ({"budget": True}, "budget must be an int"),
    ({"seed": None}, "seed must be an int"),
    ({"seconds": "1"}, "seconds must be a number"),
    ({"effort": "medium"}, "effort must be one of 'quick', 'full'"),
    ({"store": 1}, "store must be True or False"),
    ({"progress": 3}, "progress must be a callable"),
])
def test_a_wrong_argument_is_an_argument_error_naming_it(arguments, named):
    with pytest.raises(cutune.ArgumentError) as caught:
        cutune.tune(MATMUL, problem=PROBLEM, **arguments)
    assert named in str(caught.value)
    assert "std::" not in str(caught.value) and "tune_json" not in str(caught.value)
    # documented as ValueError; a wrong type is a TypeError too
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)


def test_a_wrong_spec_or_problem_is_a_spec_error():
    with pytest.raises(cutune.SpecError, match="neither a kernel spec file nor a built-in family"):
        cutune.tune("no_such_family", store=False)
    with pytest.raises(cutune.SpecError):
        cutune.space(MATMUL, problem="m=")
    with pytest.raises(ValueError):  # what docs/python.md promised before the classes
        cutune.space(MATMUL, problem="m=")
    with pytest.raises(cutune.ArgumentError, match="spec_or_family must be a str or a path"):
        cutune.space(42)


def test_progress_sees_the_search_then_the_tournament_and_results_are_typed(tmp_path):
    seen = []
    result = cutune.tune(MATMUL, problem=PROBLEM, budget=6, seed=2, db=tmp_path / "t.db",
                         effort="quick", progress=seen.append)
    assert all(isinstance(p, cutune.Progress) for p in seen)
    searched = [p for p in seen if p.phase == "search"]
    assert [p.evaluated for p in searched] == sorted(p.evaluated for p in searched)
    assert searched[-1].evaluated == result.report["evaluated"] and searched[-1].budget == 6
    assert "tournament" in [p.phase for p in seen]
    assert [p for p in seen if p.phase == "tournament"][0].finalists >= 1
    # typed, and still the dicts they were
    assert isinstance(result.report, dict) and isinstance(result.decision, dict)
    assert result.report.evaluated == result.report["evaluated"]
    assert result.decision.config == result.decision["config"] == result.winner


def test_an_exception_in_the_callback_stops_the_tune_and_is_raised_as_it_is():
    class Enough(Exception):
        pass

    calls = []

    def stop(progress):
        calls.append(progress)
        raise Enough("seen enough")

    with pytest.raises(Enough, match="seen enough"):
        cutune.tune(MATMUL, problem=PROBLEM, budget=40, store=False, progress=stop)
    assert 1 <= len(calls) < 40


def test_the_public_api_has_type_stubs():
    package = Path(cutune.__file__).parent
    assert (package / "py.typed").exists()
    stub = ast.parse((package / "__init__.pyi").read_text())
    defined = {node.name for node in stub.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {alias.asname for node in stub.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert set(cutune.__all__) <= defined, set(cutune.__all__) - defined


def test_the_terminal_bar_names_the_tournament_and_ends_its_line():
    import io

    from cutune.progress import TerminalBar, status

    search = cutune.Progress(evaluated=10, budget=40, best_ms=1.25, failures=3, seconds=8,
                             phase="search", finalists=0)
    assert status(search) == "10/40 evaluated, 8s, best 1.25 ms, 3 failed, ETA 24s"  # as the tool's
    stream = io.StringIO()
    bar = TerminalBar(stream)
    bar(search)
    bar(cutune.Progress(evaluated=40, budget=40, best_ms=1.25, failures=3, seconds=75,
                        phase="tournament", finalists=3))
    bar.close()
    text = stream.getvalue()
    assert "] 10/40 evaluated" in text
    assert "[" + "=" * 10 in text  # the search's share filled
    assert "tournament of 3 finalists, 1m15s (search: 40/40 evaluated" in text
    assert text.endswith("\n")
