#!/usr/bin/env bash
# Kernel Tuner's own simulation mode and schema checks on cutune's exports (issue 32): three CPU
# families (a permutation knob and a three-argument problem; one argument; failures of every
# kind) are tuned for real into a fresh store and compile cache, exported with --kt-cache and
# --t4, and checked by kt_replay_check.py under the pinned Kernel Tuner (.venv-kernel-tuner,
# made by scripts/install-deps.sh --test).
#   kt_replay_test.sh CUTUNE_TOOL REPOSITORY
set -euo pipefail
tool="$1"
root="$2"
python="$root/.venv-kernel-tuner/bin/python"
if [[ ! -x "$python" ]]; then
  echo "kt_replay_test: $python is missing: run scripts/install-deps.sh --test" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A fresh compile cache: every config is compiled, so every compile time is a real one.
export XDG_CACHE_HOME="$work/cache"
db="$work/results.db"

# family spec problem kt_problem_size tune_args check_args
check() {
  local name="$1" spec="$2" problem="$3" size="$4" tune_args="$5" check_args="${6:-}"
  # shellcheck disable=SC2086
  "$tool" tune "$spec" --problem "$problem" --seed 3 --no-warm-start --db "$db" $tune_args \
    > "$work/$name.tune.log" 2>&1 || { cat "$work/$name.tune.log"; exit 1; }
  "$tool" export --db "$db" --family "$name" --problem "$problem" --spec "$spec" \
    --kt-cache "$work/$name.cache.json" --t4 "$work/$name.t4.json" > /dev/null
  # shellcheck disable=SC2086
  "$python" "$root/tests/kt/kt_replay_check.py" "$work/$name.cache.json" "$work/$name.t4.json" \
    "$size" $check_args
}

examples="$root/examples/cpu"
check cpu_matmul "$examples/matmul/matmul.json" m=64,n=48,k=32 64,48,32 "--budget 8"
check cpu_stencil "$examples/stencil/stencil.json" n=256 256 "--budget 6"
check cpu_faults "$examples/faults/faults.json" n=4096 4096 "--strategy exhaustive --budget 9" \
  --failures
echo "kt_replay_test: three families replayed by Kernel Tuner"
