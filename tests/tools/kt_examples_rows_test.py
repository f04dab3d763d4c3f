"""bench/gpu/kt_examples_rows.py, the Python side of scripts/gpu/kt-examples.sh: pins and buffer
edits on an imported spec, and a table row from the two tools' outputs. Run by ctest
(tests/tools/CMakeLists.txt); standard library only."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "gpu"))
import kt_examples_rows  # noqa: E402


def spec():
    return {"knobs": [{"name": "filter_width", "choices": [3, 5, 17], "default": 3},
                      {"name": "block_size_x", "choices": [16, 32], "default": 16}],
            "buffers": [{"name": "out", "role": "inout", "fill": "random"},
                        {"name": "cost", "role": "inout", "fill": "random"},
                        {"name": "in", "role": "input"}]}


class PinAndEdit(unittest.TestCase):
    def test_a_pin_holds_the_knob_and_a_summed_buffer_is_compared_by_its_total(self):
        s = spec()
        against = kt_examples_rows.pin_and_edit(s, ["cost=partial_sums", "in=positive"],
                                              ["filter_width=17"])
        self.assertEqual(s["knobs"][0], {"name": "filter_width", "choices": [17], "default": 17})
        self.assertEqual(s["knobs"][1]["choices"], [16, 32])
        self.assertEqual(s["buffers"][1], {"name": "cost", "role": "partial_sums"})
        self.assertEqual(s["buffers"][2], {"name": "in", "role": "input", "fill": "positive"})
        self.assertEqual(against, "default")

    def test_what_the_tune_is_checked_against(self):
        s = dict(spec(), check={"entry": "convolution_naive"})
        self.assertEqual(kt_examples_rows.pin_and_edit(s, [], []), "convolution_naive")
        inputs = dict(spec(), buffers=[{"name": "in", "role": "input"}])
        self.assertEqual(kt_examples_rows.pin_and_edit(inputs, [], []), "none")
        summed = dict(spec(), buffers=[{"name": "cost", "role": "scratch"}])
        self.assertEqual(kt_examples_rows.pin_and_edit(summed, [], []), "none")
        self.assertEqual(kt_examples_rows.pin_and_edit(summed, ["cost=partial_sums"], []),
                         "default")

    def test_an_unknown_buffer_is_refused_naming_the_buffers(self):
        with self.assertRaises(SystemExit) as raised:
            kt_examples_rows.pin_and_edit(spec(), ["costs=partial_sums"], [])
        self.assertIn("costs", str(raised.exception))
        self.assertIn("out, cost, in", str(raised.exception))

    def test_an_unknown_knob_is_refused_naming_the_knobs(self):
        with self.assertRaises(SystemExit) as raised:
            kt_examples_rows.pin_and_edit(spec(), [], ["filter_height=17"])
        self.assertIn("filter_height", str(raised.exception))
        self.assertIn("filter_width, block_size_x", str(raised.exception))

    def test_the_spec_command_writes_the_spec_back(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "spec.json")
            json.dump(spec(), open(path, "w"))
            kt_examples_rows.main(["spec", path, "", "block_size_x=32"])
            self.assertEqual(json.load(open(path))["knobs"][1]["choices"], [32])


class Row(unittest.TestCase):
    def test_a_row_gives_both_bests_and_their_ratio_in_cutunes_harness(self):
        cutune = {"best": {"time_ms": 0.5}, "checked_against": "the default config",
                  "outcomes": {"ok": 28, "wrong_result": 2}}
        kt = {"best_ms": 0.7, "wrong": 1, "rejected": 2}
        line = kt_examples_rows.row("matmul", cutune, kt, {"best": {"time_ms": 0.625}}, "")
        self.assertEqual(line.split()[:5], ["matmul", "0.5000", "0.7000", "0.6250", "0.80"])
        self.assertIn("against the default config (2 wrong)", line)
        self.assertIn("(Kernel Tuner: 1 wrong, 2 fastest rejected)", line)

    def test_a_tool_without_a_result_shows_a_dash(self):
        line = kt_examples_rows.row("expdist", {}, {"best_ms": 1.0}, {},
                                    ["cost=partial_sums", "scale_A=positive"])
        self.assertEqual(line.split()[:5], ["expdist", "-", "1.0000", "-", "-"])
        self.assertIn("not checked (cost by its sum)", line)


class Pinned(unittest.TestCase):
    def test_the_default_is_kernel_tuners_checked_best_and_every_choice_stays(self):
        s = kt_examples_rows.pinned(spec(), {"best_config": {"filter_width": 5,
                                                             "block_size_x": 32}})
        self.assertEqual([k["default"] for k in s["knobs"]], [5, 32])
        # A reference kernel's config may use 16 (convolution_naive): it must stay legal.
        self.assertEqual([k["choices"] for k in s["knobs"]], [[3, 5, 17], [16, 32]])

    def test_no_checked_best_is_an_error(self):
        with self.assertRaises(SystemExit) as raised:
            kt_examples_rows.pinned(spec(), {"best_ms": None, "best_config": None})
        self.assertIn("no checked best", str(raised.exception))

    def test_output_before_the_json_is_skipped(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "kt.json")
            open(path, "w").write('Using: NVIDIA H200\n{"best_ms": 2.0}\n')
            self.assertEqual(kt_examples_rows.load_json_tail(path), {"best_ms": 2.0})
            self.assertEqual(kt_examples_rows.load_json_tail(path + ".none"), {})


if __name__ == "__main__":
    unittest.main()
