# shellcheck shell=bash disable=SC2154  # sourced by gemm-defaults.sh, which sets the variables
# The GPU half of scripts/gpu/gemm-defaults.sh: the tunes, the C++ columns, peers.py and the table.
# Every command runs under `timeout` within LIMIT, so that a hang costs its phase, not the call.

# tune SHAPE [REGIME] [BUDGET]: a cold tune (TUNE_BUDGET configs, 30) of the bf16 x @ W problem,
# timed flushed or (REGIME back_to_back) back to back; its winner to $work/tuned_SHAPE[_b2b].json.
# BUDGET "wide" tunes TUNE_WIDE_BUDGET configs (100) instead, its winner to tuned_wide_SHAPE.json:
# bench() times both winners in one process, so that 30 configs are compared with 100 paired.
tune() {
  local shape=$1 problem tag="$1_bf16_layout0" winner="tuned_$1" budget=${TUNE_BUDGET:-30}
  problem=$(problem_of "$shape" bf16 0)
  if [[ "${2:-flushed}" == back_to_back ]]; then
    problem="$problem,timing=back_to_back" tag="${tag}_b2b" winner="${winner}_b2b"
  fi
  if [[ "${3:-}" == wide ]]; then
    tag="${tag}_wide" winner="tuned_wide_$shape" budget=${TUNE_WIDE_BUDGET:-100}
  fi
  echo "=== $tag: tune (budget $budget) from $(elapsed) s"
  timeout "$(remaining 120)" "$bin/cutune" tune gemm --problem "$problem" --db "$work/$tag.db" \
    --budget "$budget" --json > "$out/tune_$tag.json" 2> "$out/tune_$tag.log" ||
    { echo "  tune failed: $(tail -1 "$out/tune_$tag.log")"; return; }
  "$bin/cutune" show --db "$work/$tag.db" --json | winner_config > "$work/$winner.json"
}

# bench SHAPE DTYPE LAYOUT TAG [gemm_peer_bench flags]: default_config, in bf16 x @ W also the rule's
# candidates and the tuned config, against cuBLASLt in one process, to $out/bench_TAG.jsonl.
ramp=2
bench() {
  local shape=$1 dtype=$2 layout=$3 tag=$4 problem line args=()
  shift 4
  problem=$(problem_of "$shape" "$dtype" "$layout")
  while read -r line; do args+=(--config "$line"); done < "$plans/${shape}_${dtype}_$layout.txt"
  local tuned="$work/tuned_$shape.json"
  [[ "$tag" == *_b2b ]] && tuned="$work/tuned_${shape}_b2b.json"
  if [[ "$dtype$layout" == bf160 && -s "$tuned" ]]; then
    args+=(--config "tuned=$(cat "$tuned")")
  fi
  if [[ "$tag" == *_bf16_layout0 && -s "$work/tuned_wide_$shape.json" ]]; then
    args+=(--config "tuned_wide=$(cat "$work/tuned_wide_$shape.json")")
  fi
  timeout "$(remaining 60)" "$bin/gemm_peer_bench" --problem "$problem" "${args[@]}" \
    --reps "${REPS:-30}" --rounds "${ROUNDS:-3}" --ramp-seconds "$ramp" "$@" \
    > "$out/bench_$tag.jsonl" 2> "$out/bench_$tag.log" ||
    echo "  $tag: bench failed: $(tail -1 "$out/bench_$tag.log")"
  ramp=0.5
  python3 -c 'import json, sys
for r in map(json.loads, sys.stdin):
    if r["column"] in ("default", "tuned", "tuned_wide"):
        print("  %s %s: %s %s" % (sys.argv[1], r["column"], r.get("vs_cublas", r.get("outcome")), r.get("config")))' \
    "$tag" < "$out/bench_$tag.jsonl"
}

for shape in "${tune_shapes[@]}"; do
  (( $(elapsed) < ${TUNE_STOP:-120} )) && tune "$shape"
done
for shape in "${tune_wide[@]}"; do
  (( $(elapsed) < ${TUNE_STOP:-120} )) && tune "$shape" flushed wide
done
# The back-to-back regime end to end: a tune that times without the flush, benched the same way.
for shape in "${tune_b2b[@]}"; do
  (( $(elapsed) < ${TUNE_STOP:-120} )) && tune "$shape" back_to_back
done
echo "=== C++ columns from $(elapsed) s"
is_skinny() { [[ ",$(IFS=,; echo "${skinny[*]}")," == *",$1,"* ]]; }
for shape in "${shapes[@]}"; do
  (( $(elapsed) < ${CPP_STOP:-270} )) || { echo "  $shape: out of time"; continue; }
  bench "$shape" bf16 0 "${shape}_bf16_layout0"
  is_skinny "$shape" && bench "$shape" bf16 0 "${shape}_bf16_layout0_b2b" --flush 0
done
for shape in "${subset[@]}"; do
  (( $(elapsed) < ${CPP_STOP:-270} )) || continue
  bench "$shape" fp16 0 "${shape}_fp16_layout0"
  bench "$shape" bf16 1 "${shape}_bf16_layout1"
done

echo "=== peers.py from $(elapsed) s"
python3 "$root/bench/gpu/cutune_columns.py" "$out" bf16_layout0 "$work/cutune.json" "${shapes[@]}"
SHAPES="$(IFS=,; echo "${shapes[*]}")" PEERS=cublas,triton,inductor OUT="$out" REPS="${REPS:-30}" \
  ROUNDS="${ROUNDS:-3}" DEADLINE=$(( clock_start + ${TRITON_STOP:-380} )) \
  BACK_TO_BACK_SHAPES="$(IFS=,; echo "${skinny[*]}")" CUTUNE_TUNED="$work/cutune.json" \
  CUTUNE_GEMM_LIB="$bundle/lib/libcutune_gemm_capi.so" \
  timeout "$(remaining 600)" python3 "$root/bench/gpu/peers.py" > "$out/peers.log" 2>&1 ||
  echo "  peers.py stopped: $(tail -1 "$out/peers.log")"
echo "=== done at $(elapsed) s"
python3 "$root/bench/gpu/peer_table.py" "$out"
# Only a few files come back from a call: the table, and everything else in one archive.
tar -czf "$work/gemm-defaults-logs.tgz" -C "$out" . && mv "$work/gemm-defaults-logs.tgz" "$out/"
find "$out" -mindepth 1 -maxdepth 1 ! -name 'table.*' ! -name 'gemm-defaults-logs.tgz' -exec rm -rf {} +
rm -rf "$work" "$plans"
