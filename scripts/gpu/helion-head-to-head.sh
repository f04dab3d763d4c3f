#!/usr/bin/env bash
# cutune.helion and cutune.triton against Helion's and Triton's own autotuners on the GPU
# (bench/helion/head_to_head.py, bench/helion/triton_head_to_head.py; docs/perf.md keeps the table).
#
#   scripts/gpu/helion-head-to-head.sh wheels   here: Helion's pinned wheel and filecheck (its one
#                                               need the GPU image lacks) into .whl, beside the
#                                               wheels `scripts/gpu/carry.sh pack` puts there
#   scripts/gpu/helion-head-to-head.sh [run]    there (carry .carry, unpacked, and .whl): installs
#                                               the package for its python3, then runs
#   KERNELS=matmul,softmax,...  the Helion kernels (default: all six); FULL=matmul,...  kernels
#   Helion also tunes at full effort; TWICE=...  kernels cutune tunes twice, cold (do two cold
#   tunes agree?); BUDGET=N  cutune's configs (default: by effort); TRITON=0
#   skips the Triton pair; HELION_FROM=FILE  an earlier call's head_to_head.jsonl, whose Helion
#   winners on the same card are re-timed instead of tuned again. A Helion quick tune costs 1-4
#   minutes of GPU a kernel.
#   scripts/gpu/helion-head-to-head.sh worker-start   there, as run: where a cold tune's first
#                                               seconds go, a phase of Helion's benchmark worker
#                                               at a time (bench/helion/worker_start.py, KERNEL)
#   scripts/gpu/helion-head-to-head.sh why-fail   there, as run: each config that LOGS (a tune's
#                                               autotune CSV logs) has failed, compiled and run
#                                               again to print its error (bench/helion/why_fail.py)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="${PY_BUNDLE:-$root/build/python-bundle}"
wheels="${PY_WHEELS:-$root/.whl}"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"

if [[ "${1:-run}" == wheels ]]; then
  mkdir -p "$wheels"
  for requirement in $(grep -E '^(helion|filecheck)==' "$root/python/requirements-kernels.txt"); do
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" "$requirement"
  done
  ls "$wheels"
  exit 0
fi
mode="${1:-run}"
[[ "$mode" == run || "$mode" == worker-start || "$mode" == why-fail ]] ||
  { echo "helion-head-to-head.sh: wheels | run | worker-start | why-fail" >&2; exit 64; }

start_clock
out="${OUT:-$root/build/helion-head-to-head}"
work=/tmp/helion-h2h  # kept while the machine is: the next call reuses the package
mkdir -p "$out" "$work"
[[ -f "$bundle/lib/libcutune_python_core.so" ]] || { echo "helion-head-to-head.sh: no $bundle" >&2; exit 1; }
install_python_package "$work" "$bundle" "$wheels" "$out" || exit 1
record_gpu "$out/gpu.txt"
export XDG_CACHE_HOME="$work/cache" HELION_SKIP_CACHE=1
cd "$work"  # `import cutune` is the installed package
if [[ "$mode" == worker-start ]]; then
  python3 "$root/bench/helion/worker_start.py" --kernel "${KERNEL:-rms_norm}"
  exit $?
fi
if [[ "$mode" == why-fail ]]; then
  # shellcheck disable=SC2086  # LOGS is a list of paths
  python3 "$root/bench/helion/why_fail.py" --kernel "${KERNEL:-attention}" --log $LOGS
  exit $?
fi
status=0
PYTHONUNBUFFERED=1 python3 "$root/bench/helion/head_to_head.py" --out "$out" \
  --kernels "${KERNELS:-matmul,softmax,rms_norm,layer_norm,swiglu,attention}" \
  --full "${FULL:-}" --twice "${TWICE:-}" --budget "${BUDGET:-0}" \
  --helion-from "${HELION_FROM:-}" || status=$?
if [[ "${TRITON:-1}" == 1 ]]; then
  PYTHONUNBUFFERED=1 python3 "$root/bench/helion/triton_head_to_head.py" --out "$out" || status=$?
fi
echo "helion-head-to-head.sh: done at $(elapsed) s (exit status $status)"
exit $status
