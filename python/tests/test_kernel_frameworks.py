"""cutune.triton and cutune.helion on the CPU: real Triton and Helion kernels run by Triton's
interpreter (TRITON_INTERPRET=1) on CPU tensors, tuned by cutune's core through the package's
host path, stored, and found again by a second kernel object without measuring anything. The
timings are wall-clock (Helion's own benchmark needs a GPU: bench/helion/head_to_head.py runs it
on the H200)."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton and helion are imported

import pytest  # noqa: E402

import torch  # noqa: E402  (python/requirements-kernels.txt installs it, with triton)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import cutune.triton  # noqa: E402
from cutune import _timing  # noqa: E402


@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, BUG: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, 2 * x + y + BUG, mask=mask)


def tuned_add(db, budget=8):
    # BLOCK 24 is not a power of two (tl.arange refuses it); BUG 1 computes a wrong result.
    return cutune.triton.autotune(knobs={"BLOCK": [32, 16, 64, 24], "BUG": [0, 1]}, key=["n"],
                                  outputs=["out_ptr"], budget=budget, db=db)(scaled_add)


def launch(kernel, n=200):
    x, y = torch.randn(n), torch.randn(n)
    out = torch.empty(n)
    kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    return x, y, out


def test_triton_tunes_checks_and_stores(tmp_path):
    db = tmp_path / "t.db"
    kernel = tuned_add(db)
    x, y, out = launch(kernel)
    torch.testing.assert_close(out, 2 * x + y)
    _, result = kernel.last
    outcomes = result.report["outcomes"]
    assert outcomes.get("wrong_result", 0) >= 1, outcomes
    assert outcomes.get("compile_error", 0) + outcomes.get("crash", 0) >= 1, outcomes
    assert result.decision["config"]["BUG"] == 0
    assert result.report["key"]["problem"] == "n=200"


def test_triton_second_process_takes_the_stored_winner(tmp_path, monkeypatch):
    db = tmp_path / "t.db"
    first = tuned_add(db)
    launch(first)
    measured = []
    monkeypatch.setattr(_timing.BatchMeasurer, "__call__",
                        lambda self, batch: measured.append(batch) or [])
    second = tuned_add(db)  # a new kernel object, as in a new process
    x, y, out = launch(second)
    torch.testing.assert_close(out, 2 * x + y)
    assert measured == [] and second.last is None


def test_triton_takes_a_config_list_as_seeds(tmp_path):
    configs = [triton.Config({"BLOCK": 64, "BUG": 0}, num_warps=4),
               triton.Config({"BLOCK": 16, "BUG": 0}, num_warps=2)]
    kernel = cutune.triton.autotune(configs=configs, key=["n"], outputs=["out_ptr"], budget=4,
                                    db=tmp_path / "t.db")(scaled_add)
    knobs = {k["name"]: k["choices"] for k in kernel.spec["knobs"]}
    # triton.Config's own launch fields too (num_stages 3 and num_ctas 1 by default).
    assert knobs == {"BLOCK": [64, 16], "BUG": [0], "num_warps": [4, 2], "num_stages": [3],
                     "num_ctas": [1]}
    assert [s["config"]["BLOCK"] for s in kernel.spec["seeds"]] == [64, 16]
    x, y, out = launch(kernel)
    torch.testing.assert_close(out, 2 * x + y)
    # The first listed config is the pinned default.
    assert kernel.last[1].report["default"]["config"]["BLOCK"] == 64


def test_triton_refuses_an_empty_space():
    with pytest.raises(ValueError, match="knob 'BLOCK' has no values"):
        cutune.triton.autotune(knobs={"BLOCK": []}, key=["n"])
