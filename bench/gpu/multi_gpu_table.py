#!/usr/bin/env python3
"""The table of scripts/gpu/multi-gpu-tune.sh: per run (one GPU, all GPUs), the tune's configs,
search seconds, throughput, results per GPU, keys and the winner's time against cuBLASLt re-timed
on GPU 0; then the N-GPU throughput over one GPU's (bar 0.8 x N) and the winners' ratio (bar
0.99). Reads OUT/RUN.json (`cutune tune --json`), OUT/show_RUN.json (`cutune show --json`) and
OUT/winners.jsonl (gemm_peer_bench); prints markdown, writes OUT/summary.json.

    python3 bench/gpu/multi_gpu_table.py OUT GPUS RUN...
"""
import json
import os
import sys


def summarize(out: str, gpus: int, runs: list) -> tuple:
    """(markdown lines, summary dict)"""
    def load(name):
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    with open(os.path.join(out, "winners.jsonl")) as f:
        bench = {r["column"]: r for r in map(json.loads, f)
                 if r.get("outcome", "ok") == "ok" and "vs_cublas" in r}
    summary = {"gpus_on_host": gpus, "runs": {}}
    lines = ["| run | GPUs | configs | search s | configs/s | wall s to decision | results per GPU "
             "| keys | winner | winner / cuBLASLt (GPU 0) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        report, show = load(run + ".json"), load("show_" + run + ".json")
        search_s = report["seconds"] - report["tournament"]["seconds"]
        row = {"devices": len(report["measured_per_device"]), "evaluated": report["evaluated"],
               "search_s": search_s, "configs_per_s": report["evaluated"] / search_s,
               "wall_s": report["seconds"], "measured_per_device": report["measured_per_device"],
               "keys": len(show["results"]), "winner": bench.get(run, {}).get("config"),
               "winner_vs_cublas": bench.get(run, {}).get("vs_cublas")}
        summary["runs"][run] = row
        lines.append(f"| {run} | {row['devices']} | {row['evaluated']} | {search_s:.1f} | "
                     f"{row['configs_per_s']:.2f} | {row['wall_s']:.1f} | "
                     f"{row['measured_per_device']} | {row['keys']} | {row['winner']} | "
                     f"{row['winner_vs_cublas'] or float('nan'):.3f} |")
    one, many = summary["runs"]["one_gpu"], summary["runs"].get("all_gpus")
    lines.append("")
    if many:
        summary["throughput_ratio"] = many["configs_per_s"] / one["configs_per_s"]
        summary["throughput_bar"] = 0.8 * many["devices"]
        summary["winner_ratio"] = many["winner_vs_cublas"] / one["winner_vs_cublas"]
        lines.append(f"throughput {summary['throughput_ratio']:.2f}x one GPU (bar "
                     f"{summary['throughput_bar']:.1f}x); N-GPU winner / one-GPU winner, paired on "
                     f"GPU 0: {summary['winner_ratio']:.3f} (bar >= 0.99)")
    else:
        lines.append(f"this host has {gpus} GPU: the N-GPU tune was not run")
    return lines, summary


if __name__ == "__main__":
    out, gpus, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    lines, summary = summarize(out, gpus, runs)
    print("\n".join(lines))
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
