#!/usr/bin/env bash
# Issue 10 on the GPU for CUDA specs: a cold tune of examples/cuda/reduction.json whose final
# tournament must come from the worker's paired rounds (warm-up until the default's time and the SM
# clock settle, SM clock per round), not from one evaluate() per round. Uses build/gemm-tune-bundle
# (scripts/gpu/gemm-tune.sh bundle) when it exists, else build/release. Prints one line per check
# and exits non-zero when one fails. Reports go to $OUT (or build/spec-rounds).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
bin="$root/build/release/bin"
if [[ -x "$root/build/gemm-tune-bundle/bin/cutune" ]]; then
  bin="$root/build/gemm-tune-bundle/bin"
  export LD_LIBRARY_PATH="$root/build/gemm-tune-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
add_cublaslt_path
export CUTUNE_CUDA_WORKER="$bin/cutune-cuda-worker" CUTUNE_NVRTC_HELPER="$bin/cutune-nvrtc"
out="${OUT:-$root/build/spec-rounds}"
work="$(mktemp -d /tmp/spec-rounds.XXXXXX)"
mkdir -p "$out"
export XDG_CACHE_HOME="$work/cache"  # cold compile cache
"$bin/cutune" tune "$root/examples/cuda/reduction.json" --budget 30 --db "$work/r.db" --json \
  > "$out/reduction.json" 2> "$out/reduction.log" || { tail -20 "$out/reduction.log"; exit 1; }
python3 "$root/bench/gpu/spec_rounds_check.py" "$out/reduction.json"
