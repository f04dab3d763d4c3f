#!/usr/bin/env bash
# Checks and times configurations of the Hopper GEMM family against cuBLAS, on the GPU machine.
#
#   scripts/gpu/gemm-bench.sh [--configs FILE] [--dtype bf16|fp16] [--layout 0|1]
#                             [--shapes MxNxK,...] [--reps N] [--tag NAME] [--nvcc-flags FLAGS]
#
# Builds bench/gpu/gemm_bench.cu with nvcc, compiles every configuration in FILE (default
# bench/gpu/gemm_configs.txt) to a cubin in parallel, then runs the benchmark over the shapes
# (default: the issue's suite) and prints its table last. FLAGS go to every kernel compile (say
# -lineinfo for profiling), and get a cubin folder of their own. A configuration that faults or hangs
# kills the benchmark's CUDA context: the benchmark is rerun without it, and it is listed at the
# end. Logs and a CSV of every measurement go to $OUT (or build/gemm-bench/out).
# Needs CUDA 13 (nvcc, cuBLAS) and CUTLASS headers in third_party/cutlass/include.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
configs="$root/bench/gpu/gemm_configs.txt"
dtype=bf16
layout=0
shapes="2048x4096x4096,4096x4096x4096,8192x8192x8192,1024x8192x8192,128x8192x8192,8192x8192x1024,4096x14336x4096"
reps=30
tag=""
nvcc_flags=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --configs) configs="$2" ;;
    --dtype) dtype="$2" ;;
    --layout) layout="$2" ;;
    --shapes) shapes="$2" ;;
    --reps) reps="$2" ;;
    --tag) tag="$2" ;;
    --nvcc-flags) nvcc_flags="$2" ;;
    *) echo "gemm-bench.sh: unknown argument $1" >&2; exit 64 ;;
  esac
  shift 2
done
tag="${tag:-${dtype}_layout${layout}}"
build="$root/build/gemm-bench"
out="${OUT:-$build/out}"
flags_key=""
[[ -n "$nvcc_flags" ]] && flags_key="_$(echo "$nvcc_flags" | md5sum | cut -c1-8)"
cubins="$build/cubins_${dtype}_layout${layout}${flags_key}"
cutlass="$root/third_party/cutlass/include"
mkdir -p "$build" "$out" "$cubins"
[[ -d "$cutlass/cute" ]] || { echo "gemm-bench.sh: no CUTLASS headers in $cutlass" >&2; exit 1; }
arch=(-gencode=arch=compute_90a,code=sm_90a)
# C++17: nvcc 13's front end fails on some of gcc 12's C++20 library headers.
std=-std=c++17

bench="$build/gemm_bench"
sources=("$root/bench/gpu/gemm_bench.cu" "$root/src/families/gemm/gemm_launch.cpp"
         "$root/src/families/gemm/gemm_problem.cpp" "$root/src/families/gemm/gemm_launch.hpp"
         "$root/src/families/gemm/gemm_problem.hpp")
if [[ ! -x "$bench" ]] || [[ -n "$(find "${sources[@]}" -newer "$bench")" ]]; then
  echo "building gemm_bench"
  nvcc "$std" -O2 "${arch[@]}" -I"$root/src/families" -o "$bench" "${sources[@]:0:3}" \
    -lcublasLt -lcuda
fi

kernel="$root/src/families/gemm/device/hopper_gemm.cu"
start=$(date +%s)
"$bench" defines "$configs" "$dtype" "$layout" > "$build/defines_$tag.txt"
# One line per configuration: NAME -D... ; each compiles in its own process, all cores busy.
export kernel cubins cutlass std nvcc_flags
xargs -P "$(nproc)" -L 1 sh -c '
  name=$0
  if [ ! -s "$cubins/$name.cubin" ] || [ "$kernel" -nt "$cubins/$name.cubin" ]; then
    nvcc $std -O3 -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -I"$cutlass" \
      $nvcc_flags "$@" \
      -o "$cubins/$name.cubin" "$kernel" > "$cubins/$name.log" 2>&1 ||
      { echo "compile failed: $name"; cat "$cubins/$name.log"; }
  fi' < "$build/defines_$tag.txt"
echo "compiled $(wc -l < "$build/defines_$tag.txt") configurations in $(( $(date +%s) - start )) s"
grep -h "spill stores" "$cubins"/*.log | sort | uniq -c | head -5 || true
if command -v cuobjdump > /dev/null; then
  first=$(head -1 "$build/defines_$tag.txt" | cut -d' ' -f1)
  echo "$first: $(cuobjdump -sass "$cubins/$first.cubin" | grep -c HGMMA) HGMMA instructions"
fi

excluded=""
log="$out/gemm_bench_$tag.log"
for attempt in 1 2 3 4 5 6; do
  set +e
  "$bench" run --cubins "$cubins" --configs "$configs" --shapes "$shapes" --dtype "$dtype" \
    --layout "$layout" --reps "$reps" --exclude "${excluded:-none}" --csv "$out/gemm_$tag.csv" \
    > "$log" 2>&1
  status=$?
  set -e
  grep -v '^begin ' "$log" || true
  [[ $status -eq 0 ]] && break
  # A sticky error can surface in any later call: blame the configuration that ran last.
  culprit=$(grep '^begin ' "$log" | tail -1 | awk '{print $3}')
  if [[ -z "$culprit" ]]; then
    echo "gemm_bench failed (status $status) without naming a configuration" >&2
    exit 1
  fi
  echo "=== $culprit faulted or hung; rerunning without it"
  excluded="${excluded:+$excluded,}$culprit"
done
[[ -n "$excluded" ]] && echo "excluded after a fault or hang: $excluded"
exit "$status"
