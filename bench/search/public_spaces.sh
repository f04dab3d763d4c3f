#!/usr/bin/env bash
# Lays out the public recordings of AutoTuningAssociation/benchmark_hub (MIT licence) for
# `cutune bench-strategies` and its --transfer: OUT/<kernel>/<device>.json.gz, one folder per
# kernel so that leave-one-device-out finds a kernel's other devices. Kernel Tuner cache files
# only (the *_T4 twins record the same runs); the older Kernel Tuner sets under
# currently_unused/ land as OUT/kt_<kernel>/.
#
#   bench/search/public_spaces.sh OUT [SOURCE]
#
# SOURCE: a clone (or bare git directory) of benchmark_hub; without it the repository is cloned
# into OUT/.source. The revision read is BENCHMARK_HUB_REV (default: the one measured in
# docs/strategies.md). A file whose content the clone lacks is named and skipped.
set -euo pipefail
out=${1:?usage: public_spaces.sh OUT [SOURCE]}
source=${2:-}
rev=${BENCHMARK_HUB_REV:-8eeb99e7179e6838af95d392ac6c60cebfd8c434}
if [[ -z "$source" ]]; then
  source="$out/.source"
  if [[ ! -d "$source" ]]; then
    git clone --quiet https://github.com/AutoTuningAssociation/benchmark_hub.git "$source"
  fi
fi
git -C "$source" rev-parse --verify --quiet "$rev^{commit}" >/dev/null ||
  { echo "public_spaces.sh: $source has no revision $rev" >&2; exit 1; }

copied=0
skipped=0
while IFS= read -r path; do
  file=$(basename "$path")
  [[ "$file" == *.json.gz && "$file" != *_T4.json.gz && "$file" != *_original* ]] || continue
  kernel=$(basename "$(dirname "$path")")
  case "$path" in
    cachefiles/*) folder="$out/$kernel" ;;
    "currently_unused/cachefiles/KernelTuner data/"*) folder="$out/kt_$kernel" ;;
    *) continue ;;
  esac
  mkdir -p "$folder"
  if git -C "$source" cat-file -e "$rev:$path" 2>/dev/null &&
     git -C "$source" show "$rev:$path" > "$folder/$file.part"; then
    mv "$folder/$file.part" "$folder/$file"
    copied=$((copied + 1))
  else
    rm -f "$folder/$file.part"
    echo "public_spaces.sh: skipped $path (not in $source at $rev)" >&2
    skipped=$((skipped + 1))
  fi
done < <(git -C "$source" ls-tree -r --name-only "$rev")
find "$out" -mindepth 1 -maxdepth 1 -type d ! -name .source -empty -delete
echo "public_spaces.sh: $copied recordings in $out ($skipped skipped)"
