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
  python3 - "$work" "$i" <<'PY' || failures=$((failures + 1))
import json, sys
work, i = sys.argv[1], sys.argv[2]
report = json.load(open(f"{work}/report{i}.json"))
shown = json.load(open(f"{work}/show{i}.json"))["results"]
exported = json.load(open(f"{work}/export{i}.json"))["results"]
winner = report["best"]["config"]
same = len(shown) == 1 and shown[0]["config"] == winner and exported[0]["config"] == winner
t = report["tournament"]
f = t["finalists"][t["winner"]]
low, high = report["speedup_interval"]
print(f"{i:<4} {'yes' if same else 'NO':<8} "
      f"{report['speedup_over_default']:.3f} [{low:.3f}, {high:.3f}]{'':<5} "
      f"{f['rounds']:<8} {100 * t['share_of_wall_time']:5.1f}%  {len(t['finalists']):<9} "
      f"{f['role']} {json.dumps(winner, separators=(',', ':'))}")
sys.exit(0 if same and report["speedup_over_default"] >= 1.0 else 1)
PY
done
echo "runs with the deployed config not the reported winner (or a speedup under 1): $failures"
exit $(( failures > 0 ))
