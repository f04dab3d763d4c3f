#!/usr/bin/env bash
# One tune across every GPU of a host (issue 16), on the GPU machine from the repository root,
# with build/gemm-tune-bundle carried (scripts/gpu/gemm-tune.sh bundle, or scripts/gpu/carry.sh):
#
#   scripts/gpu/multi-gpu-tune.sh
#
# 1. The full S3 tune (2048x4096x4096 bf16, BUDGET configs, default 100) on GPU 0 alone, then on
#    every GPU nvidia-smi lists (`--devices all`), each with a cold compile cache and a fresh store.
# 2. Per run: configs per second during the search (configs measured / the tune's seconds before
#    its final tournament: compiles included, since all GPUs' candidates share the host's cores),
#    wall time to the decision, the winner, the results each GPU measured, and the tuning keys the
#    store holds (results of identical GPUs pool under one key).
# 3. Both winners re-timed in one process on GPU 0 (gemm_peer_bench: rounds paired with cuBLASLt),
#    so that their ratio is paired: the N-GPU winner's time over the one-GPU winner's.
# On a host with one GPU only the one-GPU half runs, and the table says so. Reports, logs and
# summary.json go to OUT (default build/multi-gpu/out).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/gemm-tune-bundle/bin"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
[[ -x "$bin/cutune" ]] || { echo "multi-gpu-tune.sh: no $bin/cutune (bundle first)" >&2; exit 1; }
require_nvcc multi-gpu-tune.sh
export LD_LIBRARY_PATH="$root/build/gemm-tune-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
add_cublaslt_path
export_gemm_environment multi-gpu-tune.sh "$bin"
out="${OUT:-$root/build/multi-gpu/out}"
work="$(mktemp -d /tmp/multi-gpu.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
problem="m=2048,n=4096,k=4096,dtype=bf16"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
nvidia-smi -L | tee "$out/gpus.txt"
start_clock

# tune NAME VISIBLE: the S3 tune on the GPUs CUDA_VISIBLE_DEVICES=VISIBLE names; store and report
# kept as $work/NAME.db and $out/NAME.json.
tune() {
  local name=$1 visible=$2
  echo "=== $name: CUDA_VISIBLE_DEVICES=$visible, budget ${BUDGET:-100}, cold cache, from $(elapsed) s"
  XDG_CACHE_HOME="$work/cache_$name" CUDA_VISIBLE_DEVICES="$visible" "$bin/cutune" tune gemm \
    --problem "$problem" --devices all --budget "${BUDGET:-100}" --db "$work/$name.db" --json \
    > "$out/$name.json" 2> "$out/$name.log" || { echo "  $name failed:"; tail -5 "$out/$name.log"; }
  "$bin/cutune" show --db "$work/$name.db" --json > "$out/show_$name.json" 2>> "$out/$name.log"
}
tune one_gpu 0
runs=(one_gpu)
if (( gpus >= 2 )); then
  tune all_gpus "$(seq -s, 0 $((gpus - 1)))"
  runs+=(all_gpus)
fi

# The winners, re-timed together on GPU 0.
configs=()
for run in "${runs[@]}"; do
  # The decision: the config `cutune show` lists (and `cutune export` deploys) for the key.
  winner=$(winner_config < "$out/show_$run.json") && configs+=(--config "$run=$winner")
done
echo "=== winners re-timed on GPU 0 from $(elapsed) s"
CUDA_VISIBLE_DEVICES=0 "$bin/gemm_peer_bench" --problem "$problem" "${configs[@]}" --reps 30 --rounds 7 \
  > "$out/winners.jsonl" 2> "$out/winners.log" || { echo "  gemm_peer_bench failed:"; tail -5 "$out/winners.log"; }

python3 "$root/bench/gpu/multi_gpu_table.py" "$out" "$gpus" "${runs[@]}" | tee "$out/table.md"
echo "=== done at $(elapsed) s"
