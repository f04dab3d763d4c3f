#!/usr/bin/env bash
# The wheel as a user without the build's apt packages meets it (issue 32): scripts/wheel.sh
# builds and repairs it, `auditwheel show` must name a manylinux tag, pip installs it into a fresh
# virtual environment with no index, and wheel_tune.py tunes examples/cpu/matmul there, in a mount
# namespace where every file of the apt packages whose libraries the wheel carries a copy of (and
# of their -dev packages: headers, pkg-config files) is covered by an empty file, and the
# repository's build folders and environments are empty folders. Left visible, as on any machine
# the wheel is for: the manylinux baseline (glibc, libstdc++, libgcc_s, zlib), the C++ compiler
# with every package it depends on (the CPU backend compiles candidates with it) and what the
# interpreter itself loads for ctypes.
# Runs as root (CI) or as a user (a user namespace maps it to root inside).
#   wheel_test.sh REPOSITORY
set -euo pipefail
root="$1"
auditwheel="$root/.venv-wheel/bin/auditwheel"
[[ -x "$auditwheel" ]] ||
  { echo "wheel_test: no $auditwheel: run scripts/install-deps.sh --test" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

wheel="$("$root/scripts/wheel.sh" | tail -1)"
"$auditwheel" show "$wheel" > "$work/show.txt"
tag="$(grep -o 'manylinux_[0-9]*_[0-9]*_x86_64' "$work/show.txt" | head -1)" ||
  { cat "$work/show.txt"; echo "wheel_test: auditwheel show names no manylinux tag" >&2; exit 1; }
[[ "$(basename "$wheel")" == *"$tag"* ]] ||
  { echo "wheel_test: $wheel is not tagged $tag" >&2; exit 1; }
echo "wheel_test: $(basename "$wheel") ($tag)"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel"

# The system libraries the wheel grafted (cutune.libs/libpq-0123abcd.so.5.15 is a copy of
# libpq.so.5.15), the packages that installed them and their -dev packages, less what the compiler
# depends on and what this interpreter loads for ctypes (wheel_tune.py's loading check).
python3 -m zipfile -l "$wheel" |
  sed -n 's|^cutune\.libs/\([^ ]*\)-[0-9a-f]\{8\}\(\.[^ ]*\) .*|\1\2|p' > "$work/grafted.txt"
while read -r name; do
  dpkg -S "*/$name" | sed -E 's/^([^:, ]+)(:[^ :]+)?: /\1 /' ||
    { echo "wheel_test: no apt package installed $name" >&2; exit 1; }
done < "$work/grafted.txt" > "$work/libraries.txt"  # package path
cut -d' ' -f1 "$work/libraries.txt" | sort -u | while read -r package; do
  echo "$package"
  apt-cache rdepends --installed "$package" | sed -n 's/^ *\([^ ]*-dev\)$/\1/p'
done | sort -u > "$work/packages.txt"
{
  apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances g++ | grep -v '^ '
  "$work/venv/bin/python" -c 'import ctypes; print(open("/proc/self/maps").read())' |
    grep -o '/[^ ]*\.so[^ ]*$' | sort -u | xargs -r realpath | xargs -r -n1 basename |
    while read -r name; do dpkg -S "*/$name" 2> /dev/null | sed 's/:.*//' || true; done
} | sort -u > "$work/kept.txt"
mapfile -t hidden < <(comm -23 "$work/packages.txt" "$work/kept.txt")
kept="$(comm -12 "$work/packages.txt" "$work/kept.txt" | xargs)"
echo "wheel_test: hiding ${hidden[*]}"
echo "wheel_test: kept for the compiler and the interpreter: ${kept:-none}"
mapfile -t hidden_libraries < <(awk 'NR == FNR { kept[$1]; next } !($1 in kept) { print $2 }' \
  "$work/kept.txt" "$work/libraries.txt")
dpkg -L "${hidden[@]}" | while read -r f; do
  if [[ -f "$f" && ! -L "$f" ]]; then echo "$f"; fi
done > "$work/hidden-files.txt"
touch "$work/empty"
mkdir -p "$work/home" "$work/spec"
cp "$root"/examples/cpu/matmul/*.json "$root"/examples/cpu/matmul/*.cpp "$work/spec/"

# Inside: cover the files, empty the repository's build outputs, then check and tune with a clean
# environment (no CUTUNE_* variable, no LD_LIBRARY_PATH) from a folder outside the repository.
namespace=(unshare --mount)
[[ "$(id -u)" == 0 ]] || namespace+=(--map-root-user)
# shellcheck disable=SC2016  # the inner script expands its own arguments
"${namespace[@]}" bash -euo pipefail -c '
  work="$1" root="$2"; shift 2
  while read -r f; do mount --bind "$work/empty" "$f"; done < "$work/hidden-files.txt"
  for d in "$root"/build "$root"/.venv-*; do
    if [[ -d "$d" ]]; then mount -t tmpfs none "$(realpath "$d")"; fi
  done
  if pkg-config --exists libpq 2> /dev/null; then
    echo "wheel_test: pkg-config still finds libpq" >&2
    exit 1
  fi
  cd "$work"
  exec env -i PATH=/usr/bin:/bin HOME="$work/home" "$work/venv/bin/python" \
    "$root/tests/package/wheel_tune.py" "$work/spec/matmul.json" "$work/store.db" "$@"
' wheel_test "$work" "$root" "${hidden_libraries[@]}"
echo "wheel_test: the wheel tuned a CPU kernel with ${#hidden_libraries[@]} system libraries hidden"
