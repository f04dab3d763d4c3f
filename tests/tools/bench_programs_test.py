"""The Python programs the check scripts run (scripts/cpu/deploy-check.sh, dispatch-check.sh,
scripts/gpu/spec-rounds.sh, multi-gpu-tune.sh), each on inputs written here in the formats the
tool writes (`cutune tune --json`, `show --json`, `export --json`, bench_runtime_shapes' summary,
gemm_peer_bench's lines): synthetic, since the real ones need a tune or a GPU; the scripts run
them on the real outputs. Run by ctest (tests/tools/CMakeLists.txt); standard library only."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")
sys.path[:0] = [os.path.join(BENCH, "cpu"), os.path.join(BENCH, "gpu")]
import deploy_row  # noqa: E402
import dispatch_bar  # noqa: E402
import multi_gpu_table  # noqa: E402
import spec_rounds_check  # noqa: E402

WINNER = {"tile": 32, "unroll": 2}


def report(speedup=1.8, steady="untimed rounds until the first config's time settled", clock=1980):
    finalist = {"rounds": 9, "role": "search", "outcome": "ok"}
    return {"best": {"config": WINNER}, "speedup_over_default": speedup,
            "speedup_interval": [speedup - 0.1, speedup + 0.1], "seconds": 20.0,
            "evaluated": 40, "measured_per_device": [40],
            "tournament": {"finalists": [{"rounds": 9, "role": "default", "outcome": "ok"},
                                         finalist],
                           "winner": 1, "share_of_wall_time": 0.08, "seconds": 1.6,
                           "rounds": {"warmup_rounds": 5, "steady_state": steady,
                                      "sm_clock_mhz": [clock] * 9}}}


class DeployRow(unittest.TestCase):
    def test_the_deployed_winner_passes(self):
        line, ok = deploy_row.row(report(), [{"config": WINNER}], [{"config": WINNER}], "1")
        self.assertTrue(ok)
        self.assertIn("yes", line)
        self.assertIn("1.800 [1.700, 1.900]", line)

    def test_another_config_deployed_fails(self):
        other = {"tile": 64, "unroll": 2}
        line, ok = deploy_row.row(report(), [{"config": other}], [{"config": WINNER}], "2")
        self.assertFalse(ok)
        self.assertIn("NO", line)

    def test_a_winner_slower_than_the_default_fails(self):
        _, ok = deploy_row.row(report(speedup=0.97), [{"config": WINNER}], [{"config": WINNER}], "3")
        self.assertFalse(ok)


class DispatchBar(unittest.TestCase):
    def test_met_missed_and_missing(self):
        self.assertTrue(dispatch_bar.verdict("... held out: 1.0840 over 4 shapes (0 failed)")[1])
        self.assertFalse(dispatch_bar.verdict("held out: 0.9400 over 4 shapes (0 failed)")[1])
        self.assertFalse(dispatch_bar.verdict("held out: 1.2000 over 4 shapes (1 failed)")[1])
        message, ok = dispatch_bar.verdict("no summary")
        self.assertFalse(ok)
        self.assertIn("no summary line", message)


class SpecRounds(unittest.TestCase):
    def test_every_check_on_a_good_report(self):
        self.assertTrue(all(ok for _, ok, _ in spec_rounds_check.checks(report())))

    def test_each_failure_is_named(self):
        failed = {name for name, ok, _ in spec_rounds_check.checks(report(steady="none", clock=0))
                  if not ok}
        self.assertEqual(failed, {"steady state settles on the first config",
                                  "SM clock read every round"})


class MultiGpuTable(unittest.TestCase):
    def write(self, folder, runs, devices):
        with open(os.path.join(folder, "winners.jsonl"), "w") as f:
            for run in runs:
                f.write(json.dumps({"column": run, "config": "cfg_" + run, "vs_cublas": 0.99}) + "\n")
        for run, n in zip(runs, devices):
            r = report()
            r["measured_per_device"] = [40 // n] * n
            r["seconds"] = 20.0 / n + 1.6
            with open(os.path.join(folder, run + ".json"), "w") as f:
                json.dump(r, f)
            with open(os.path.join(folder, "show_" + run + ".json"), "w") as f:
                json.dump({"results": [{"config": WINNER}]}, f)

    def test_one_gpu_says_the_n_gpu_tune_did_not_run(self):
        with tempfile.TemporaryDirectory() as out:
            self.write(out, ["one_gpu"], [1])
            lines, summary = multi_gpu_table.summarize(out, 1, ["one_gpu"])
        self.assertIn("the N-GPU tune was not run", lines[-1])
        self.assertAlmostEqual(summary["runs"]["one_gpu"]["configs_per_s"], 2.0)

    def test_two_gpus_give_the_throughput_ratio_and_its_bar(self):
        with tempfile.TemporaryDirectory() as out:
            self.write(out, ["one_gpu", "all_gpus"], [1, 2])
            lines, summary = multi_gpu_table.summarize(out, 2, ["one_gpu", "all_gpus"])
        self.assertAlmostEqual(summary["throughput_ratio"], 2.0)
        self.assertAlmostEqual(summary["throughput_bar"], 1.6)
        self.assertAlmostEqual(summary["winner_ratio"], 1.0)
        self.assertIn("throughput 2.00x one GPU (bar 1.6x)", lines[-1])


if __name__ == "__main__":
    unittest.main()
