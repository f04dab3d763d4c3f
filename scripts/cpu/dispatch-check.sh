#!/usr/bin/env bash
# Issue 19's CPU check: shape dispatch and warm start on the matmul example. Tunes 14 shapes
# (m, n, k from 16 to 512, square and not; each tune warm-started from the shapes before it, as
# the runtime does), cross-measures each shape's 3 best configs on every shape as the space repairs
# them for it, fits the dispatch rule (at most 8 configs) and reports it leave-one-shape-out, with
# the curve of held-out geomean against the number of configs; then tunes 4 held-out shapes (never
# tuned before) cold and warm, counting evaluations and seconds to within 2% of each one's best.
# Prints bench_runtime_shapes' tables and checks the bar: no held-out pick fails, held-out geomean
# >= 0.95 of per-shape tuning. About 4-8 minutes on the 2-core machine.
#
#   scripts/cpu/dispatch-check.sh [BUILD_DIR] [extra bench_runtime_shapes arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
shift $(( $# > 0 ? 1 : 0 ))
bench=$build/bench/runtime/bench_runtime_shapes
[[ -x $bench ]] || { echo "dispatch-check.sh: no $bench (cmake --build --preset release --target bench_runtime_shapes)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shapes="m=16,n=64,k=64;m=24,n=200,k=48;m=32,n=32,k=256;m=64,n=64,k=64;m=64,n=256,k=128"
shapes+=";m=96,n=96,k=96;m=128,n=128,k=128;m=128,n=512,k=64;m=192,n=192,k=192;m=256,n=64,k=256"
shapes+=";m=256,n=256,k=256;m=320,n=320,k=320;m=384,n=384,k=128;m=512,n=128,k=256"
held_out="m=48,n=48,k=400;m=96,n=384,k=192;m=160,n=160,k=160;m=384,n=96,k=96"

"$bench" --spec "$root/examples/cpu/matmul/matmul.json" --budget 16 --candidates 3 \
  --max-configs 8 --shapes "$shapes" --compare "$held_out" --db "$work/results.db" "$@" \
  | tee "$work/out.txt"

# The bar, from the summary line "... held out: G over N shapes (F failed)".
python3 "$root/bench/cpu/dispatch_bar.py" "$work/out.txt"
