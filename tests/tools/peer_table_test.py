"""bench/gpu/peer_table.py on outputs recorded on the H200 (2026-12-04, scripts/gpu/gemm-peers.sh:
an fp16 run and an x @ W.T run, trimmed to three shapes): the merged table that issue 11's bars are
read from; and on synthetic lines in the same formats (data/peer_table/regimes and wide) for the
two timing regimes, the inductor column, the rule candidates and the wide tunes of
scripts/gpu/gemm-defaults.sh. Run by ctest (tests/tools/CMakeLists.txt); standard library only."""
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "peer_table")
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "gpu"))
import peer_table  # noqa: E402


def merged(*folders, timing=False):
    """peer_table's rows (its table.json) and printed table for the given folders of DATA, keyed by
    shape, dtype and layout (and timing when asked)."""
    with tempfile.TemporaryDirectory() as target:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            peer_table.main([os.path.join(DATA, f) for f in folders] + ["--write", target])
        with open(os.path.join(target, "table.json")) as f:
            rows = {(r["shape"], r["dtype"], r["layout"]) + ((r["timing"],) if timing else ()): r
                    for r in json.load(f)}
        return rows, printed.getvalue()


def edited_run(folder, edit):
    """peer_table's rows for a copy of DATA/folder whose peers.jsonl lines went through edit(line)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, folder)
        shutil.copytree(os.path.join(DATA, folder), copy)
        with open(os.path.join(copy, "peers.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        for line in lines:
            edit(line)
        with open(os.path.join(copy, "peers.jsonl"), "w") as f:
            f.writelines(json.dumps(line) + "\n" for line in lines)
        with contextlib.redirect_stdout(io.StringIO()):
            peer_table.main([copy])
        with open(os.path.join(copy, "table.json")) as f:
            return json.load(f)


class PeerTable(unittest.TestCase):
    def test_rows_are_keyed_by_dtype_and_layout_with_each_harness_merged_in(self):
        rows, _ = merged("fp16", "layout1")
        self.assertEqual(set(rows), {("2048x4096x4096", "fp16", "0"), ("128x8192x8192", "fp16", "0"),
                                     ("2048x4096x4096", "bf16", "1")})
        fp16 = rows[("2048x4096x4096", "fp16", "0")]
        self.assertAlmostEqual(fp16["py_cutune_vs_cublas"], 0.98160, places=4)  # peers.py
        self.assertAlmostEqual(fp16["tuned_vs_cublas"], 0.98877, places=4)  # gemm_peer_bench
        self.assertAlmostEqual(fp16["tune_s"], 16.5, places=1)  # the tune's report
        layout1 = rows[("2048x4096x4096", "bf16", "1")]
        self.assertAlmostEqual(layout1["py_cutune_vs_cublas"], 0.98248, places=4)
        self.assertNotIn("tune_s", layout1)  # no report recorded for it

    def test_default_column_is_the_tuned_one_only_where_the_tune_kept_the_default(self):
        rows, _ = merged("fp16")
        s3 = rows[("2048x4096x4096", "fp16", "0")]
        self.assertEqual(s3["py_cutune_config"], s3["default_config"])
        self.assertEqual(s3["py_default_vs_cublas"], s3["py_cutune_vs_cublas"])
        # The same run, as if the tune had crowned another config than default_config.
        rows = edited_run("fp16", lambda line: line.update(cutune_config="128x192x64_s4_c1x1_ping_rn8_k1"))
        self.assertTrue(all(r["py_default_vs_cublas"] is None for r in rows))

    def test_lines_from_before_dtype_and_layout_were_written_count_as_bf16_layout_0(self):
        rows = edited_run("layout1", lambda line: (line.pop("dtype"), line.pop("layout")))
        keys = {(r["shape"], r["dtype"], r["layout"]): r for r in rows}
        self.assertIn("py_cutune_vs_cublas", keys[("2048x4096x4096", "bf16", "0")])
        self.assertNotIn("py_cutune_vs_cublas", keys[("2048x4096x4096", "bf16", "1")])

    def test_a_geomean_per_dtype_and_layout(self):
        _, printed = merged("fp16", "layout1")
        self.assertIn("geomean over 2 shapes, fp16, B layout 0: ", printed)
        self.assertIn("geomean over 1 shapes, bf16, B layout 1: ", printed)
        fp16 = next(line for line in printed.splitlines() if "fp16, B layout 0" in line)
        # 0.98160 (S3) and 1.05147 (128x8192x8192) in peers.py
        self.assertIn("py_cutune_vs_cublas 1.016", fp16)


class Regimes(unittest.TestCase):
    def test_back_to_back_lines_make_rows_of_their_own(self):
        rows, printed = merged("regimes", timing=True)
        self.assertEqual(set(rows), {("16x8192x8192", "bf16", "0", "flushed"),
                                     ("16x8192x8192", "bf16", "0", "back_to_back")})
        flushed = rows[("16x8192x8192", "bf16", "0", "flushed")]
        b2b = rows[("16x8192x8192", "bf16", "0", "back_to_back")]
        self.assertAlmostEqual(flushed["default_vs_cublas"], 0.99)  # gemm_peer_bench, flushed
        self.assertAlmostEqual(b2b["default_vs_cublas"], 1.07)  # its --flush 0 file
        self.assertAlmostEqual(flushed["py_inductor_vs_cublas"], 0.98)  # peers.py FLUSH=driver
        self.assertAlmostEqual(b2b["py_inductor_vs_cublas"], 1.02)  # peers.py FLUSH=none
        self.assertIn("geomean over 1 shapes, bf16, B layout 0, back_to_back: ", printed)
        self.assertIn("inductor Triton/cuB", printed.splitlines()[0])

    def test_the_candidates_table_marks_each_rows_best_and_lists_failures(self):
        _, printed = merged("regimes")
        self.assertIn("| 16x8192x8192 | bf16 | 0 | flushed | 0.990 | **1.010** | 0.950 |", printed)
        self.assertIn("| 16x8192x8192 | bf16 | 0 | back_to_back | 1.070 | - | **1.100** |", printed)
        self.assertIn("failed: 16x8192x8192 cand_large: wrong_result", printed)


class WideTunes(unittest.TestCase):
    """Synthetic lines (data/peer_table/wide): a 30-config and a 100-config tune's winners, timed in
    one gemm_peer_bench process."""

    def test_the_short_tune_is_divided_by_the_wide_one_of_its_shape(self):
        rows, printed = merged("wide")
        small = rows[("512x2048x2048", "bf16", "0")]
        self.assertAlmostEqual(small["tuned_vs_wide"], 322.0 / 336.0)
        self.assertEqual((small["tune_configs"], small["wide_tune_configs"]), (30, 100))
        self.assertAlmostEqual(rows[("16x8192x8192", "bf16", "0")]["tuned_vs_wide"], 1.0)
        self.assertIn("tuned/wide over 2 shapes: geomean 0.979, lowest 0.958 (512x2048x2048 flushed)",
                      printed)

    def test_no_summary_without_wide_tunes(self):
        _, printed = merged("regimes")
        self.assertNotIn("tuned/wide over", printed)


if __name__ == "__main__":
    unittest.main()
