#!/usr/bin/env bash
# A/B of the Hopper GEMM kernel's experimental variants against the kernel as measured, in one
# call on the GPU machine (CUDA 13, nvcc, cuBLAS; CUTLASS headers in third_party/cutlass/include;
# no network, no CMake dependencies).
#
#   scripts/gpu/gemm-ab.sh [--shapes MxNxK,...] [--variants "0 1 2 4 5 7"] [--configs FILE]
#                          [--layout 0|1] [--reps N] [--rounds N] [--build-only | --prebuilt]
#
# --build-only compiles everything (no GPU needed; nvcc 13 here builds what the H200 runs);
# --prebuilt runs what an earlier --build-only left in build/gemm-ab (carry that folder), so that
# the GPU machine spends no time compiling.
#
# Variants (GemmConfig::variant, CUTUNE_VARIANT in device/hopper_gemm.cu): 0 the kernel as is,
# 1 TMA-store epilogue through shared memory, 2 one 3-D TMA for B (layout 0), 4 cuBLAS-like wgmma
# issue (two batches per k-block, no drain), 5 = 1+4, 7 all three. Every (config, variant) is compiled to its
# own cubin in parallel with the benchmark's own build, checked against cuBLAS on fresh inputs,
# timed, then re-timed in rounds alternating with cuBLAS; the A/B table comes last. A faulting or
# hanging candidate is dropped and the benchmark rerun without it. Logs and CSV go to $OUT (or
# build/gemm-ab/out).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
shapes="2048x4096x4096,4096x4096x4096,8192x8192x1024,128x8192x8192,4096x14336x4096"
variants="0 1 2 4 5 7"
configs_file=""
layout=0
reps=30
rounds=9
build_only=0
prebuilt=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shapes) shapes="$2"; shift 2 ;;
    --variants) variants="$2"; shift 2 ;;
    --configs) configs_file="$2"; shift 2 ;;
    --layout) layout="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --prebuilt) prebuilt=1; shift ;;
    *) echo "gemm-ab.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done

build="$root/build/gemm-ab"
out="${OUT:-$build/out}"
cubins="$build/cubins_layout$layout"
cutlass="$root/third_party/cutlass/include"
kernel="$root/src/kernels/gemm/device/hopper_gemm.cu"
mkdir -p "$build" "$out" "$cubins"
[[ -d "$cutlass/cute" ]] || { echo "gemm-ab.sh: no CUTLASS headers in $cutlass" >&2; exit 1; }
# C++17: nvcc 13's front end fails on some of gcc 12's C++20 library headers.
std=-std=c++17
start=$(date +%s)

# Base configurations: the default (cuBLAS's own choice in our terms: 128 rows x 256 columns per
# CTA, 2 CTAs along M sharing B, cooperative), and the suite's best per shape (docs/perf.md).
bases="$build/bases.txt"
if [[ -n "$configs_file" ]]; then
  grep -v '^[[:space:]]*\(#\|$\)' "$configs_file" > "$bases"
else
  cat > "$bases" <<'EOF'
128x256x64_s4_c2x1_coop_rn8_k1
128x256x64_s4_c1x1_coop_rn8_k1
256x128x64_s4_c1x2_coop_rn8_k1
128x192x64_s5_c1x1_ping_rn8_k1
128x128x64_s6_c1x1_ping_rn8_k2
EOF
fi
configs="$build/configs.txt"
: > "$configs"
while read -r base; do
  for v in $variants; do
    if [[ "$v" == 0 ]]; then echo "$base"; else echo "${base}_v$v"; fi
  done
done < "$bases" >> "$configs"
echo "gemm-ab: $(wc -l < "$configs") candidates ($(wc -l < "$bases") configs x variants: $variants)"

bench="$build/gemm_bench"
if [[ $prebuilt == 1 ]]; then
  [[ -x "$bench" ]] || { echo "gemm-ab.sh: --prebuilt but no $bench" >&2; exit 1; }
  missing=$(while read -r name; do [[ -s "$cubins/$name.cubin" ]] || echo "$name"; done < "$configs")
  [[ -z "$missing" ]] || { echo "gemm-ab.sh: --prebuilt but no cubin for: $missing" >&2; exit 1; }
else
# 1. The defines tool (g++, seconds), then the benchmark (nvcc, in the background) and every
#    kernel cubin in parallel.
g++ "$std" -O1 -I"$root/src/kernels" -o "$build/gemm_defines" "$root/bench/gpu/gemm_defines.cpp" \
  "$root/src/kernels/gemm/gemm_problem.cpp"
"$build/gemm_defines" "$configs" bf16 "$layout" > "$build/defines.txt"

(nvcc "$std" -O2 -gencode=arch=compute_90a,code=sm_90a -I"$root/src/kernels" -o "$bench" \
   "$root/bench/gpu/gemm_bench.cu" "$root/src/kernels/gemm/gemm_launch.cpp" \
   "$root/src/kernels/gemm/gemm_problem.cpp" -lcublasLt -lcuda > "$build/bench_build.log" 2>&1 &&
   echo ok > "$build/bench_build.status" || echo failed > "$build/bench_build.status") &
bench_pid=$!

jobs=$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))
export kernel cubins cutlass std
xargs -P "$jobs" -L 1 sh -c '
  name=$0
  if [ ! -s "$cubins/$name.cubin" ] || [ "$kernel" -nt "$cubins/$name.cubin" ]; then
    nvcc $std -O3 -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -I"$cutlass" "$@" \
      -o "$cubins/$name.cubin" "$kernel" > "$cubins/$name.log" 2>&1 ||
      { echo "compile failed: $name"; cat "$cubins/$name.log"; rm -f "$cubins/$name.cubin"; }
  fi' < "$build/defines.txt"
echo "gemm-ab: kernels compiled at $(( $(date +%s) - start )) s"
wait "$bench_pid" || true
if [[ "$(cat "$build/bench_build.status" 2>/dev/null)" != ok ]]; then
  cat "$build/bench_build.log"; echo "gemm-ab: building gemm_bench failed" >&2; exit 1
fi
echo "gemm-ab: gemm_bench built at $(( $(date +%s) - start )) s"
# Registers and spills per candidate (ptxas), compactly.
for log in "$cubins"/*.log; do
  name=$(basename "$log" .log)
  entry=$(grep -A3 "entry function 'cutune_gemm' " "$log" || true)
  regs=$(echo "$entry" | grep -o 'Used [0-9]* registers' | head -1 | awk '{print $2}')
  spill=$(echo "$entry" | grep -o '[0-9]* bytes spill stores' | head -1 | awk '{print $1}')
  echo "  $name: ${regs:-?} regs, ${spill:-?} B spill stores"
done | sort
fi
[[ $build_only == 1 ]] && exit 0

# 2. Run; a candidate that faults or hangs kills the CUDA context: rerun without it.
excluded=""
log="$out/gemm_ab.log"
status=1
for attempt in 1 2 3 4 5 6; do
  set +e
  "$bench" run --cubins "$cubins" --configs "$configs" --shapes "$shapes" --dtype bf16 \
    --layout "$layout" --reps "$reps" --rounds "$rounds" --ab 1 \
    --exclude "${excluded:-none}" --csv "$out/gemm_ab.csv" > "$log" 2>&1
  status=$?
  set -e
  [[ $status -eq 0 ]] && break
  grep -E '^(fault|hang|wrong|error)' "$log" || true
  culprit=$(grep '^begin ' "$log" | tail -1 | awk '{print $3}')
  if [[ -z "$culprit" ]]; then
    tail -20 "$log"; echo "gemm_bench failed (status $status) without naming a candidate" >&2; exit 1
  fi
  echo "=== $culprit faulted or hung; rerunning without it"
  excluded="${excluded:+$excluded,}$culprit"
done
echo "--- checks (any wrong/error/skip lines; the full log is $log)"
grep -E '^(wrong|error|skip|fault|hang)' "$log" || echo "(none: every candidate that fits matched cuBLAS)"
[[ -n "$excluded" ]] && echo "excluded after a fault or hang: $excluded"
echo "gemm-ab: total $(( $(date +%s) - start )) s"
# The compact table, last.
sed -n '/^A\/B (re-timed/,$p' "$log"
exit "$status"
