#!/usr/bin/env bash
# Issue 29's table in one GPU call: the fp8 GEMM family (src/families/gemm_fp8) against
# torch._scaled_mm (cuBLASLt) per shape and scaling, in one process on the same tensors
# (bench/gpu/fp8_peers.py): per-tensor and per-row x column scales on the extended shape list
# (bench/gpu/gemm_shapes.txt; shapes whose k is not a multiple of 16 are out of fp8's reach), and
# DeepSeek-V3's 1x128 / 128x128 block scaling on its projections (N x K as DeepGEMM benchmarks
# them) at 128, 1024 and 4096 tokens. Columns: scaled_mm, cutune's default_config, the rule's
# candidates (bench/gpu/gemm_fp8_candidates.txt), and cutune's tuned winner on TUNE_PROBLEMS
# (`cutune tune gemm_fp8`, cuBLASLt fp8 timed in the same worker).
#
#   scripts/gpu/fp8-table.sh bundle   here: build/gemm-tune-bundle (gemm-tune.sh bundle, which
#                                     holds gemm_fp8_library), every default's library compiled
#                                     ahead into .device/fp8/cache (nvcc, no GPU: 30-60 s each on
#                                     two cores) with their paths in .device/fp8/libraries.jsonl,
#                                     and .device/fp8/carry.tar.xz (the bundle and the CUTLASS
#                                     headers)
#   scripts/gpu/fp8-table.sh deep-gemm here (network): the block rows' peer, DeepGEMM from its
#                                     public source at the commit that
#                                     bench/gpu/requirements-deep-gemm.txt names (DEEP_GEMM_GIT:
#                                     its repository, GitHub's by default) into .device/fp8/deep_gemm,
#                                     and the pinned wheels it needs into .device/fp8/wheels;
#                                     without them that column is empty
#   scripts/gpu/fp8-table.sh          on the H200, carrying .device/fp8 only
#
# Expected wall time on the H200 under 7 minutes, bounded by LIMIT (420 s): tunes until TUNE_STOP
# (200 s; their configs compile there, 16 cores: a tune of 12 configs takes 2-4 minutes), then
# fp8_peers.py until PEERS_STOP (400 s).
# Environment: TUNE_PROBLEMS (problem texts separated by ';'), TUNE_BUDGET (12), REPS (30),
# ROUNDS (3), OUT (build/fp8-table/out), SCALINGS (tensor,row_col,block: the table's rows, for
# bundle and run alike), SHAPES (MxNxK,...: only these of the table's shapes), FORMATS (A's and
# B's fp8 format, e4m3,e4m3; e5m2 on a side names it in every problem, for bundle and run alike).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
bundle="$root/build/gemm-tune-bundle"
bin="$bundle/bin"
carry="$root/.device/fp8"
cache="$carry/cache"  # XDG_CACHE_HOME: the compile cache under cutune/cuda
wheels="$carry/wheels"
scalings=",${SCALINGS:-tensor,row_col,block},"
IFS=, read -r a_format b_format <<< "${FORMATS:-e4m3,e4m3}"
formats=""  # what every problem text of the table names beyond its shape and scaling
[[ "$a_format" == e4m3 ]] || formats+=",a_format=$a_format"
[[ "$b_format" == e4m3 ]] || formats+=",b_format=$b_format"
# DeepSeek-V3's GEMMs (N x K): q_a + kv_a fused, q_b, kv_b, o_proj, an expert's gate + up, down.
deepseek_nk="2112x7168 24576x1536 32768x512 7168x16384 4096x7168 7168x2048"
tokens="128 1024 4096"
IFS=, read -r -a extended <<< "$(python3 "$root/bench/gpu/gemm_shapes.py")"
deepseek=()
for m in $tokens; do
  for nk in $deepseek_nk; do deepseek+=("${m}x$nk"); done
done
if [[ -n "${SHAPES:-}" ]]; then  # keep the listed shapes only
  keep() { local s; for s in "$@"; do [[ ,$SHAPES, == *,$s,* ]] && echo "$s"; done; }
  mapfile -t extended < <(keep "${extended[@]}")
  mapfile -t deepseek < <(keep "${deepseek[@]}")
fi
IFS=';' read -r -a tune_problems <<< "${TUNE_PROBLEMS:-m=2048,n=4096,k=4096,scaling=tensor;m=16,n=8192,k=8192,scaling=row_col;m=4096,n=7168,k=2048,scaling=block}"

# problems: every (shape, scaling) of the table as a problem text, one a line.
problems() {
  local shape m n k
  for shape in "${extended[@]}"; do
    IFS=x read -r m n k <<< "$shape"
    (( k % 16 == 0 && n % 16 == 0 )) || continue  # torch._scaled_mm's alignment, and fp8 TMA's
    [[ $scalings == *,tensor,* ]] && echo "k=$k,m=$m,n=$n,scaling=tensor$formats"
    [[ $scalings == *,row_col,* ]] && echo "k=$k,m=$m,n=$n,scaling=row_col$formats"
  done
  [[ $scalings == *,block,* ]] || return 0
  for shape in "${deepseek[@]}"; do
    IFS=x read -r m n k <<< "$shape"
    echo "k=$k,m=$m,n=$n,scaling=block$formats"
  done
}

if [[ "${1:-run}" == deep-gemm ]]; then
  set -e
  requirements="$root/bench/gpu/requirements-deep-gemm.txt"
  commit="$(sed -n 's/^# deep-gemm-commit: //p' "$requirements")"
  clone="$(mktemp -d)"
  git clone -q --no-checkout "${DEEP_GEMM_GIT:-https://github.com/deepseek-ai/DeepGEMM}" "$clone"
  rm -rf "$carry/deep_gemm" "$wheels"
  mkdir -p "$carry" "$wheels"
  # Its Python package and kernel headers; CUTLASS's come from the carry's own at run time.
  git -C "$clone" archive "$commit" deep_gemm | tar -x -C "$carry"
  rm -rf "$clone"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux2014_x86_64 --dest "$wheels" -r "$requirements"
  du -sh "$carry/deep_gemm" "$wheels"
  exit 0
fi

# libraries OUTPUT: each problem's default_config library, and each candidate of the table's
# scalings (bench/gpu/gemm_fp8_candidates.txt, column cand_NAME, timed on every shape of its
# scaling), compiled in parallel (or found in the cache), as gemm_fp8_library's JSON lines.
libraries() {
  {
    problems | sed 's/^/--config default --problem /'
    grep -v '^#' "$root/bench/gpu/gemm_fp8_candidates.txt" | while read -r name scaling config; do
      [[ -n "$name" && $scalings == *,$scaling,* ]] || continue
      echo "--column cand_$name --config $config" \
        "--problem m=4096,n=4096,k=4096,scaling=$scaling$formats"
    done
  } | xargs -P "$(nproc)" -L1 "$bin/gemm_fp8_library" > "$1" 2> "$1.log"
}

if [[ "${1:-run}" == bundle ]]; then
  set -e
  BUILD_DIR="${BUILD_DIR:-$root/build/release}" "$root/scripts/gpu/gemm-tune.sh" bundle > /dev/null
  mkdir -p "$cache"
  export XDG_CACHE_HOME="$cache"
  export_gemm_environment fp8-table.sh "$bin"
  echo "$root" > "$carry/built-at.txt"  # the cache keys name the CUTLASS folder's path
  libraries "$carry/libraries.jsonl"
  pack_carry "$carry/carry.tar.xz"
  du -sh "$carry"
  exit 0
fi

unpack_carry "$carry/carry.tar.xz" "$bin/gemm_fp8_library"
out="${OUT:-$root/build/fp8-table/out}"
work="$(mktemp -d /tmp/fp8-table.XXXXXX)"
mkdir -p "$out"
start_clock "${LIMIT:-420}"
enter_gemm_carry fp8-table.sh "$bin/gemm_fp8_library" "$cache"  # carry .device/fp8
export CUTUNE_GEMM_FP8_SOURCE="$root/src/families/gemm_fp8/device/hopper_gemm_fp8.cu"
reach_built_at "$carry/built-at.txt"
record_gpu "$out/gpu.txt"
if [[ -d "$carry/deep_gemm" ]]; then  # DeepGEMM, the block rows' peer: its package and wheels
  python3 -m pip install -q --no-index --no-deps --target "$work/site" "$wheels"/*.whl
  cp -r "$carry/deep_gemm" "$work/site/"
  ln -s "$CUTUNE_CUTLASS_INCLUDE/cute" "$CUTUNE_CUTLASS_INCLUDE/cutlass" "$work/site/deep_gemm/include/"
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
  CUDA_HOME="$(dirname "$(dirname "$(command -v nvcc)")")" DG_CACHE_DIR="$work/deep_gemm_cache"
  export CUDA_HOME DG_CACHE_DIR
fi
# The carried libraries, or (a cache that misses) compiled here.
libraries "$work/libraries.jsonl"
touch "$work/tuned.jsonl"
for problem in "${tune_problems[@]}"; do
  (( $(elapsed) < ${TUNE_STOP:-200} )) || break
  tag="$(echo "$problem" | tr ',=' '_-')"
  echo "=== tune $problem from $(elapsed) s"
  timeout "$(remaining 240)" "$bin/cutune" tune gemm_fp8 --problem "$problem" --db "$work/$tag.db" \
    --budget "${TUNE_BUDGET:-12}" --json > "$out/tune_$tag.json" 2> "$out/tune_$tag.log" ||
    { echo "  tune failed: $(tail -1 "$out/tune_$tag.log")"; continue; }
  winner="$("$bin/cutune" show --db "$work/$tag.db" --json | winner_config)"
  "$bin/gemm_fp8_library" --problem "$problem" --config "$winner" >> "$work/tuned.jsonl"
done
echo "=== fp8_peers.py from $(elapsed) s"
run_peers() {  # SCALINGS SHAPE...
  local scalings=$1
  shift
  SHAPES="$(IFS=,; echo "$*")" SCALINGS="$scalings" FORMATS="$a_format,$b_format" \
    FP8_LIBRARIES="$work/libraries.jsonl" \
    FP8_TUNED="$work/tuned.jsonl" OUT="$out" REPS="${REPS:-30}" ROUNDS="${ROUNDS:-3}" \
    DEADLINE=$(( clock_start + ${PEERS_STOP:-400} )) \
    timeout "$(remaining 400)" python3 "$root/bench/gpu/fp8_peers.py" >> "$out/peers.log" 2>&1 ||
    echo "  fp8_peers.py stopped: $(tail -1 "$out/peers.log")"
}
[[ $scalings == *,block,* ]] && run_peers block "${deepseek[@]}"
per_tensor=$(echo "$scalings" | tr , '\n' | grep -x -e tensor -e row_col | paste -sd,)
[[ -n "$per_tensor" ]] && run_peers "$per_tensor" "${extended[@]}"
echo "=== done at $(elapsed) s"
python3 "$root/bench/gpu/fp8_peers.py" --table "$out/fp8_peers.jsonl" | tee "$out/table.md"
tar -czf "$work/fp8-table-logs.tgz" -C "$out" . && mv "$work/fp8-table-logs.tgz" "$out/"
find "$out" -mindepth 1 -maxdepth 1 ! -name 'table.md' ! -name 'fp8-table-logs.tgz' -exec rm -rf {} +
rm -rf "$work"
