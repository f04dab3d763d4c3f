#!/usr/bin/env bash
# Issue 10's CPU check: N tunes of the matmul example (default 5), each into a fresh store, and
# for each one whether what the store deploys (`cutune show --json`, `cutune export --json`) is the
# winner the tune reported, with the winner's paired speedup over the default and its interval.
# The runtime's lookup reads the same Store::deployed (tests/runtime/deploy_cli_test.cpp checks
# it). Usage: scripts/cpu/deploy-check.sh [BUILD_DIR] [N] [extra cutune tune arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
tool=$build/bin/cutune
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
printf '%-4s %-8s %-26s %-8s %-7s %-9s %s\n' run deployed "speedup [95% CI]" rounds share finalists winner
for i in $(seq 1 "$runs"); do
  db=$work/run$i.db
  "$tool" tune "$root/examples/cpu/matmul/matmul.json" --seed "$i" --db "$db" --json "$@" \
    >"$work/report$i.json" 2>"$work/stderr$i.txt"
  "$tool" show --json --db "$db" >"$work/show$i.json"
  "$tool" export --db "$db" --json "$work/export$i.json" >/dev/null
  python3 "$root/bench/cpu/deploy_row.py" "$work/report$i.json" "$work/show$i.json" \
    "$work/export$i.json" "$i" || failures=$((failures + 1))
done
echo "runs with the deployed config not the reported winner (or a speedup under 1): $failures"
exit $(( failures > 0 ))
