#!/usr/bin/env bash
# bench/search/public_spaces.sh on a small repository laid out as benchmark_hub: cache files land
# one folder per kernel, T4 twins and "original" files are left out, the older Kernel Tuner sets
# land as kt_<kernel>, and a file the clone lacks is named and skipped, not fatal.
set -euo pipefail
script=${1:?usage: public_spaces_test.sh PUBLIC_SPACES_SH}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/hub"
mkdir -p "$repo/cachefiles/conv" "$repo/currently_unused/cachefiles/KernelTuner data/gemm"
echo a100 | gzip > "$repo/cachefiles/conv/A100.json.gz"
echo a100-t4 | gzip > "$repo/cachefiles/conv/A100_T4.json.gz"
echo a6000-original | gzip > "$repo/cachefiles/conv/A6000_original.json.gz"
echo titan | gzip > "$repo/currently_unused/cachefiles/KernelTuner data/gemm/RTX_Titan.json.gz"
git -C "$repo" init --quiet
git -C "$repo" -c user.name=t -c user.email=t@t add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit --quiet -m recordings
# A file whose content the clone lacks (a partial clone's large file): its blob removed.
echo lacking | gzip > "$repo/cachefiles/conv/W6600.json.gz"
git -C "$repo" -c user.name=t -c user.email=t@t add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit --quiet -m lacking
blob=$(git -C "$repo" rev-parse HEAD:cachefiles/conv/W6600.json.gz)
rm -f "$repo/.git/objects/${blob:0:2}/${blob:2}"

fail() { echo "FAIL: $*" >&2; exit 1; }
output=$(BENCHMARK_HUB_REV=HEAD "$script" "$work/out" "$repo" 2>&1)
[[ "$(gunzip -c "$work/out/conv/A100.json.gz")" == a100 ]] || fail "conv/A100 not copied: $output"
[[ "$(gunzip -c "$work/out/kt_gemm/RTX_Titan.json.gz")" == titan ]] || fail "kt_gemm: $output"
[[ ! -e "$work/out/conv/A100_T4.json.gz" ]] || fail "the T4 twin was copied"
[[ ! -e "$work/out/conv/A6000_original.json.gz" ]] || fail "the original file was copied"
[[ "$output" == *"2 recordings"* && "$output" == *"(1 skipped)"* ]] || fail "wrong count: $output"
[[ "$output" == *"skipped cachefiles/conv/W6600.json.gz"* ]] || fail "the lacking file unnamed: $output"
[[ ! -e "$work/out/conv/W6600.json.gz" && ! -e "$work/out/conv/W6600.json.gz.part" ]] ||
  fail "the lacking file left a file behind"

# A revision the clone lacks is an error naming it.
if BENCHMARK_HUB_REV=0123456789abcdef0123456789abcdef01234567 "$script" "$work/none" "$repo" \
    2> "$work/err"; then
  fail "a missing revision was accepted"
fi
grep -q "has no revision 0123456789abcdef" "$work/err" || fail "error does not name the revision"
echo "public_spaces.sh: ok"
