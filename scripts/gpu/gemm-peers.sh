#!/usr/bin/env bash
# The GEMM peer table of issue 11, on the GPU machine: per suite shape, cutune tuned (a cold full
# tune through `cutune tune gemm`), cutune's default_config, cuBLASLt and cublasGemmEx (torch's
# call) in one C++ process; and the Python peers (torch.matmul's cuBLAS, the two Triton columns of
# bench/gpu/triton_peers.py: a 14-config autotune in the tutorial's form and inductor's max-autotune
# Triton templates, Helion's autotuner, and the tuned config again through libcutune_gemm_capi: cutune in
# the same harness as torch), each timed after an L2 flush of twice its size, median of REPS x
# ROUNDS after a clock ramp, ratios paired within rounds (C++: the worker's plain stream launches,
# bench/gpu/graph_timer.hpp; Python: replays of a one-launch graph, bench/gpu/peers.py).
#
#   scripts/gpu/gemm-tune.sh bundle        here first: builds build/gemm-tune-bundle (carry it)
#   scripts/gpu/gemm-peers.sh              on the GPU machine, from the repository root
#   python3 bench/gpu/peer_table.py OUT... anywhere: merges the runs' folders into one table
#
# Environment: SHAPES (MxNxK,... or all | part1 | part2; default all; a 600 s call holds one
# part: part1 is S3, 4096^3, 1024x8192x8192 and 128x8192x8192 with Helion at S3, part2 the three
# largest), TUNE_BUDGET (configs per tune, 100), STOP_AFTER (seconds after which no further tune
# starts, so that the peers and the table still come within a call's limit; 420), PEERS
# (cublas,triton,inductor,helion; empty: the C++ columns only), HELION_SHAPES (default
# 2048x4096x4096: Helion's autotune costs about 80 s of GPU per shape), DTYPE (bf16 | fp16),
# LAYOUT (0: B is K x N; 1: B is N x K, x @ W.T), REPS (30), ROUNDS (5), OUT (build/gemm-peers/out).
# The Python peers run in every dtype and layout (x @ W.T: torch and Triton multiply by the
# transpose of the same N x K tensor cutune reads); Helion only in bf16, layout 0. Helion comes from
# .whl/ (its wheel and filecheck's), installed to /tmp/site when it is not importable.
# Per shape, in OUT: tune_TAG.json/.log (the tune's report), bench_TAG.jsonl (gemm_peer_bench's
# columns); peers.jsonl; table.md and table.json from peer_table.py.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/gemm-tune-bundle/bin"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
suite=(2048x4096x4096 4096x4096x4096 8192x8192x8192 1024x8192x8192 128x8192x8192 8192x8192x1024
       4096x14336x4096)
case "${SHAPES:-all}" in
  all) shapes=("${suite[@]}") ;;
  part1) shapes=("${suite[0]}" "${suite[1]}" "${suite[3]}" "${suite[4]}") ;;
  part2) shapes=("${suite[2]}" "${suite[5]}" "${suite[6]}") ;;
  *) IFS=, read -r -a shapes <<< "$SHAPES" ;;
esac
dtype="${DTYPE:-bf16}"
layout="${LAYOUT:-0}"
peers="${PEERS-cublas,triton,inductor,helion}"
out="${OUT:-$root/build/gemm-peers/out}"
work="$(mktemp -d /tmp/gemm-peers.XXXXXX)"
mkdir -p "$out"
start_clock

[[ -x "$bin/gemm_peer_bench" ]] || { echo "gemm-peers.sh: no $bin/gemm_peer_bench (bundle first)" >&2; exit 1; }
require_nvcc gemm-peers.sh
export LD_LIBRARY_PATH="$root/build/gemm-tune-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
add_cublaslt_path
export_gemm_environment gemm-peers.sh "$bin"
record_gpu "$out/gpu.txt"

# The tune's report holds default_config as the tune computed it for this device; the store
# holds the config that `cutune show`/`export` deploy.
# config_of FILE KEY...: the JSON at that path of keys (digits index arrays).
config_of() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for key in sys.argv[2:]:
    d = d[int(key)] if key.isdigit() else d[key]
print(json.dumps(d, separators=(",", ":")))' "$@"
}
for shape in "${shapes[@]}"; do
  IFS=x read -r m n k <<< "$shape"
  problem="m=$m,n=$n,k=$k,dtype=$dtype"
  [[ "$layout" == 1 ]] && problem="$problem,b_layout=n_by_k"
  tag="${shape}_${dtype}_layout$layout"
  (( $(elapsed) < ${STOP_AFTER:-420} )) || { echo "=== $tag: skipped, out of time"; continue; }
  export XDG_CACHE_HOME="$work/cache_$tag"  # a cold compile cache for every tune
  echo "=== $tag: tune (budget ${TUNE_BUDGET:-100}) from $(elapsed) s"
  "$bin/cutune" tune gemm --problem "$problem" --db "$work/$tag.db" --budget "${TUNE_BUDGET:-100}" \
    --json > "$out/tune_$tag.json" 2> "$out/tune_$tag.log" ||
    { echo "  tune failed:"; tail -5 "$out/tune_$tag.log"; continue; }
  "$bin/cutune" show --db "$work/$tag.db" --json > "$work/show_$tag.json"
  tuned=$(config_of "$work/show_$tag.json" results 0 config)
  default=$(config_of "$out/tune_$tag.json" default config)
  echo "  bench from $(elapsed) s: tuned $tuned default $default"
  "$bin/gemm_peer_bench" --problem "$problem" --config "tuned=$tuned" --config "default=$default" \
    --reps "${REPS:-30}" --rounds "${ROUNDS:-5}" > "$out/bench_$tag.jsonl" 2> "$out/bench_$tag.log" ||
    { echo "  bench failed:"; tail -5 "$out/bench_$tag.log"; }
  cat "$out/bench_$tag.jsonl"
done

if [[ -n "$peers" ]]; then
  if [[ "$peers" == *helion* ]] && ! python3 -c 'import helion' 2> /dev/null && [[ -d "$root/.whl" ]]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site "$root"/.whl/*.whl
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
  fi
  # Each shape's tuned and default configs and the cubins gemm_peer_bench timed, for peers.py's
  # cutune columns.
  python3 "$root/bench/gpu/cutune_columns.py" "$out" "${dtype}_layout$layout" "$work/tuned.json" "${shapes[@]}"
  echo "=== Python peers ($peers, cutune from $work/tuned.json) from $(elapsed) s"
  SHAPES="$(IFS=,; echo "${shapes[*]}")" PEERS="$peers" OUT="$out" DTYPE="$dtype" LAYOUT="$layout" \
    CUTUNE_GEMM_LIB="$root/build/gemm-tune-bundle/lib/libcutune_gemm_capi.so" \
    CUTUNE_TUNED="$work/tuned.json" python3 "$root/bench/gpu/peers.py" 2>&1 | tee "$out/peers.log"
fi
echo "=== done at $(elapsed) s"
python3 "$root/bench/gpu/peer_table.py" "$out"
rm -rf "$work"
