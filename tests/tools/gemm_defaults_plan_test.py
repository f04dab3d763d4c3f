"""The CPU-side pieces of scripts/gpu/gemm-defaults.sh: the extended shape list (bench/gpu/
gemm_shapes.txt), which rule candidates a shape can hold (defaults_plan.py) and the cutune columns
handed to peers.py (cutune_columns.py, on a gemm-peers.sh output recorded on the H200). Run by
ctest (tests/tools/CMakeLists.txt); standard library only."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "gpu"))
import cutune_columns  # noqa: E402
import defaults_plan  # noqa: E402
import gemm_shapes  # noqa: E402


class ShapeList(unittest.TestCase):
    def test_the_list_holds_every_kind_the_issue_names_and_only_shapes_the_kernel_runs(self):
        shapes = gemm_shapes.load()
        self.assertGreaterEqual(len(shapes), 20)
        self.assertEqual(len({s for s, _, _ in shapes}), len(shapes))  # no shape twice
        kinds = {kind for _, kind, _ in shapes}
        self.assertTrue({"ragged", "k_residue", "small", "skinny", "mlp", "attention"} <= kinds)
        for shape, kind, _ in shapes:
            m, n, k = map(int, shape.split("x"))
            # TMA's 16-byte row strides: the kernel's problem rule (gemm_problem.cpp).
            self.assertEqual((n % 8, k % 8), (0, 0), shape)
            if kind == "k_residue":
                self.assertNotEqual(k % 64, 0, shape)
        self.assertIn("3000x5000x2000", gemm_shapes.kinds())

    def test_a_malformed_line_names_its_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# comment\n16x8192x8192 skinny x\n16x8192 skinny x\n")
        try:
            with self.assertRaisesRegex(ValueError, r":3: expected 'MxNxK kind source'"):
                gemm_shapes.load(f.name)
        finally:
            os.unlink(f.name)


class Plan(unittest.TestCase):
    def test_a_cluster_wider_than_the_tile_grid_is_left_out(self):
        decode = {name for name, _ in defaults_plan.candidates("m=1,n=4096,k=4096,dtype=bf16")}
        ragged = {name for name, _ in defaults_plan.candidates("m=3000,n=5000,k=2000,dtype=bf16")}
        self.assertNotIn("large_c2", decode)  # 2x1 clusters on one row of tiles
        self.assertNotIn("half", decode)
        self.assertIn("large_c2", ragged)
        self.assertEqual(ragged - decode, {"large_c2", "large_c2x2", "fit192_c2", "fit192_c2x2", "half"})


class CutuneColumns(unittest.TestCase):
    def test_the_tuned_and_default_cubins_of_each_shape(self):
        folder = os.path.join(HERE, "data", "peer_table", "fp16")
        got = cutune_columns.columns(folder, "fp16_layout0", ["2048x4096x4096", "4096x4096x4096"])
        self.assertEqual(set(got), {"2048x4096x4096"})  # no bench file for the other
        s3 = got["2048x4096x4096"]
        self.assertEqual(s3["config"], "128x256x64_s4_c1x1_coop_rn8_k1_pdl")
        self.assertTrue(s3["cubin"].endswith(".cubin"))
        self.assertEqual(s3["default"]["config"], s3["config"])
        json.dumps(got)  # what peers.py reads back


if __name__ == "__main__":
    unittest.main()
