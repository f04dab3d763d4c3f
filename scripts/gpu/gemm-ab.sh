#!/usr/bin/env bash
# A/B of Hopper GEMM kernel builds in one call on the GPU machine, from a self-contained bundle of
# prebuilt binaries (it needs the CUDA toolkit's libcuda and libcublasLt):
#
#   scripts/gpu/gemm-ab.sh build DIR   # here: build/release's gemm_bench, every cubin by nvcc
#   bash DIR/run.sh                    # there: checks, then timing; logs and CSV to $OUT
#
# A cubin the build did not finish (BUILD_SECONDS bounds it: two shared cores compile about four
# a minute) is compiled by run.sh from the bundled sources, with nvcc and the CUTLASS headers in
# $CUTLASS or third_party/cutlass/include under the current folder.
#
# Builds ("labels"): main = main's kernel (`git show main:...`, with main's gemm_rules.hpp); every
# other label is this tree's kernel with the label's TEMPORARY switches (label_defines). Every
# label builds every config ("CONFIG@label"). To A/B a change, make it on a branch behind a switch
# and build the bundle there.
# The configs come from the space: each suite shape times its default config and its seeds'
# configs, as `cutune space gemm --problem ... --json` names them (build/release's cutune, when the
# bundle is built), so that the A/B follows the seeds as they change.
# Every candidate (config@label) is first checked against cuBLAS on a ragged 1000x2056x1064 (bf16
# and fp16, both B layouts), then each suite shape times its configs in rounds alternating with
# cuBLAS (L2 flushed before each launch, medians). A candidate that faults or hangs is reported and
# dropped, and the rest rerun. The table of ratios to cuBLAS per label and shape comes last.
set -euo pipefail

mode="${1:-}"
# No switch is under test now: add a label and its -D defines here (and the switch in the
# kernel) to A/B one, e.g. labels=(main x) and [x]="-DCUTUNE_AB_X=1". The host side (gemm_bench)
# is this tree's.
labels=(main)
declare -A label_defines=([main]="")
# Timed in this order, until RUN_BUDGET seconds have passed.
shapes=(2048x4096x4096 4096x4096x4096 1024x8192x8192 4096x14336x4096 4096x6144x4096 1024x4096x4096
  4096x4096x14336 2048x8192x8192 128x8192x8192 8192x8192x8192 8192x8192x1024)
# Checked in fp16 and layout 1 too, beside every shape's default: one config per epilogue path of
# the kernel (two staging boxes, one box, split-K's fp32 slices, 64-row ping-pong tiles). Named
# here because they cover the kernel's code paths, whichever configs the seeds choose.
epilogue_paths="128x256x64_s4_c2x1_coop_rn8_k1 128x192x64_s5_c1x1_ping_rn8_k1
  128x128x64_s6_c1x1_ping_rn8_k2 64x128x128_s4_c2x1_ping_rn8_k1"

# A shape's configs ("MxNxK"), from the space: its default config's name, then its seeds'.
space_configs() {  # cutune shape
  local m n k
  IFS=x read -r m n k <<< "$2"
  "$1" space gemm --problem "m=$m,n=$n,k=$k" --draws 1 --json |
    jq -r '.default_config_name // empty, .seed_config_names[]' | awk '!seen[$0]++'
}
# Every config read for every label: "CONFIG@label" per line.
for_labels() {
  local config label
  while read -r config; do
    [[ -n "$config" ]] || continue
    for label in "${labels[@]}"; do echo "$config@$label"; done
  done
}

build() {
  local dir="$1" root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  local cutlass="$root/third_party/cutlass/include"
  [[ -d "$cutlass/cute" ]] || { echo "gemm-ab.sh: no CUTLASS headers in $cutlass" >&2; exit 1; }
  rm -rf "$dir" && mkdir -p "$dir/src/device" "$dir/cubins"
  cp "$root/src/families/gemm/device/hopper_gemm.cu" "$dir/src/device/"
  cp "$root/src/families/gemm/gemm_rules.hpp" "$root/src/families/gemm/gemm_schedule.hpp" "$dir/src/"
  # main's kernel includes "../gemm_rules.hpp" and "../gemm_schedule.hpp": main's own sit above it.
  mkdir -p "$dir/main/device"
  git -C "$root" show main:src/families/gemm/device/hopper_gemm.cu > "$dir/main/device/hopper_gemm.cu"
  for header in gemm_rules.hpp gemm_schedule.hpp; do
    git -C "$root" show "main:src/families/gemm/$header" > "$dir/main/$header"
  done
  cp "${BASH_SOURCE[0]}" "$dir/gemm-ab.sh"
  # Each shape's configs, from this tree's space: configs/SHAPE.txt, one name a line.
  local cutune="$root/build/release/bin/cutune" shape
  mkdir -p "$dir/configs"
  for shape in "${shapes[@]}"; do
    space_configs "$cutune" "$shape" > "$dir/configs/$shape.txt"
    [[ -s "$dir/configs/$shape.txt" ]] || { echo "gemm-ab.sh: no configs for $shape" >&2; exit 1; }
  done
  # The bench (this tree's host side) and graph_timer.hpp's methods side by side: `cmake --build
  # --preset release --target gemm_bench graph_timer_check` builds them first.
  cp "$root/build/release/bench/gpu/gemm_bench" "$dir/"
  cp "$root/build/release/bench/gpu/graph_timer_check" "$dir/" ||
    echo "gemm-ab: no graph_timer_check in build/release: the bundle will not compare timing methods"
  # run.sh: the A/B with its console kept in $OUT, then everything in $OUT packed into one file.
  cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export OUT="${OUT:-$here/out}"
mkdir -p "$OUT"
bash "$here/gemm-ab.sh" run "$here" 2>&1 | tee "$OUT/console.txt"
bash "$here/gemm-ab.sh" pack
RUN
  # C++17: nvcc 13's front end fails on some of gcc 12's C++20 library headers.
  g++ -std=c++17 -O1 -I"$root/src/families" -I"$root/include" -o "$dir/gemm_defines" "$root/bench/gpu/gemm_defines.cpp" \
    "$root/src/families/gemm/gemm_problem.cpp"
  # One line per cubin: "FILE SOURCE EXTRA_DEFINES... CONFIG_DEFINES...", paths inside DIR.
  local jobs="$dir/jobs.txt"
  : > "$jobs"
  add_jobs() {  # dtype layout CONFIG@label...
    local dtype=$1 layout=$2 source label
    shift 2
    printf '%s\n' "$@" > "$dir/names.tmp"
    "$dir/gemm_defines" "$dir/names.tmp" "$dtype" "$layout" | while read -r name defines; do
      label=${name#*@}
      [[ $label == main ]] && source=main/device/hopper_gemm.cu || source=src/device/hopper_gemm.cu
      echo "$dtype$layout/$name.cubin $source $defines ${label_defines[$label]}"
    done >> "$jobs"
  }
  # bf16, layout 0: every shape's configs (timed and checked) and the epilogue paths; the other
  # combinations (checked only): the epilogue paths and every shape's default (its first line).
  local timed checked
  timed=$({ cat "$dir"/configs/*.txt; tr -s ' ' '\n' <<< "$epilogue_paths"; } | sort -u | for_labels)
  checked=$({ head -qn1 "$dir"/configs/*.txt; tr -s ' ' '\n' <<< "$epilogue_paths"; } | sort -u |
    for_labels)
  # shellcheck disable=SC2086
  add_jobs bf16 0 $timed
  for combo in "bf16 1" "fp16 0" "fp16 1"; do
    # shellcheck disable=SC2086
    add_jobs $combo $checked
  done
  rm -f "$dir/names.tmp"
  mkdir -p "$dir/cubins/bf160" "$dir/cubins/bf161" "$dir/cubins/fp160" "$dir/cubins/fp161"
  echo "gemm-ab: $(wc -l < "$jobs") cubins"
  timeout "${BUILD_SECONDS:-100000}" bash -c "$(declare -f compile_missing); compile_missing '$dir' '$cutlass'" ||
    echo "gemm-ab: stopped after BUILD_SECONDS; run.sh compiles the rest"
  # Registers and spills per cubin (ptxas), compactly.
  for log in "$dir"/cubins/*/*.log; do
    entry=$(grep -A3 "entry function 'cutune_gemm' " "$log" || true)
    echo "$(basename "$(dirname "$log")")/$(basename "$log" .cubin.log):" \
      "$(echo "$entry" | grep -o 'Used [0-9]* registers' | head -1)," \
      "$(echo "$entry" | grep -o '[0-9]* bytes spill stores' | head -1)"
  done > "$dir/registers.txt"
  grep -v " 0 bytes spill stores" "$dir/registers.txt" || echo "gemm-ab: no spills"
  du -sh "$dir"
}

# Compiles every cubin of DIR/jobs.txt not yet in DIR/cubins, all cores at once (sh expands the
# single-quoted program's variables).
# shellcheck disable=SC2016
compile_missing() {  # dir cutlass
  local dir=$1
  export cutlass=$2
  (cd "$dir" && while read -r out rest; do [[ -s "cubins/$out" ]] || echo "$out $rest"; done < jobs.txt |
    xargs -r -P "$(nproc)" -L 1 sh -c '
      out=$0 source=$1; shift
      nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -I"$cutlass" "$@" \
        -o "cubins/$out.tmp" "$source" > "cubins/$out.log" 2>&1 && mv "cubins/$out.tmp" "cubins/$out" ||
        { echo "compile failed: $out"; cat "cubins/$out.log"; rm -f "cubins/$out.tmp"; }')
}

# One gemm_bench run; a candidate that faults or hangs takes the CUDA context with it, so the run
# is repeated without it (it is reported on the console and in $OUT/dropped.txt).
bench_run() {  # tag cubin_dir configs_file shapes dtype layout reps rounds
  local tag=$1 cubins=$2 configs=$3 shape=$4 dtype=$5 layout=$6 reps=$7 rounds=$8
  local log="$OUT/$tag.log" excluded="" status=1
  for _ in 1 2 3 4 5 6 7 8; do
    set +e
    timeout 240 "$bundle/gemm_bench" run --cubins "$cubins" --configs "$configs" --shapes "$shape" \
      --dtype "$dtype" --layout "$layout" --reps "$reps" --rounds "$rounds" --ab main \
      --exclude "${excluded:-none}" --csv "$OUT/$tag.csv" > "$log" 2>&1
    status=$?
    set -e
    [[ $status -eq 0 ]] && break
    local culprit
    culprit=$(grep '^begin ' "$log" | tail -1 | awk '{print $3}' || true)
    if [[ -z "$culprit" ]]; then
      tail -5 "$log"; echo "$tag: gemm_bench failed (status $status) naming no candidate"; return 0
    fi
    echo "$tag: $culprit faulted or hung (status $status); dropped, rerunning" | tee -a "$OUT/dropped.txt"
    excluded="${excluded:+$excluded,}$culprit"
  done
  grep -E '^(wrong|error|skip)' "$log" | sed "s/^/$tag: /" || true
}

run() {
  bundle="$(cd "$1" && pwd)"
  OUT="${OUT:-$bundle/out}"
  mkdir -p "$OUT"
  export OUT bundle
  # gemm_bench links the toolkit's libcublasLt.so.13, which the loader may not know of.
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  local start
  start=$(date +%s)
  local missing
  missing=$(cd "$bundle" && while read -r out _; do [[ -s "cubins/$out" ]] || echo "$out"; done < jobs.txt | wc -l)
  if [[ $missing -gt 0 ]]; then
    echo "--- compiling the $missing cubins the bundle lacks"
    compile_missing "$bundle" "$(cd "${CUTLASS:-third_party/cutlass/include}" && pwd)"
    echo "compiled at $(( $(date +%s) - start )) s"
  fi
  echo "--- checks against cuBLAS, 1000x2056x1064 (wrong/error/skip lines, if any)"
  for combo in bf16:0 bf16:1 fp16:0 fp16:1; do
    local dtype=${combo%:*} layout=${combo#*:}
    find "$bundle/cubins/$dtype$layout" -name '*.cubin' -printf '%f\n' | sed 's/\.cubin$//' | sort \
      > "$OUT/check_$dtype$layout.txt"
    bench_run "check_$dtype$layout" "$bundle/cubins/$dtype$layout" "$OUT/check_$dtype$layout.txt" \
      1000x2056x1064 "$dtype" "$layout" 3 1
    echo "check $dtype layout $layout: $(grep -c '^ok ' "$OUT/check_$dtype$layout.log" || true) ok," \
      "$(grep -c '^wrong\|^error' "$OUT/check_$dtype$layout.log" || true) wrong/error"
  done
  if [[ -x "$bundle/graph_timer_check" ]]; then
    echo "--- timing methods on cuBLASLt (median ms; minus_stream_us: the difference from events"
    echo "    around plain stream launches, the worker's method)"
    timeout 90 "$bundle/graph_timer_check" > "$OUT/timing_methods.jsonl" 2>&1 || echo "graph_timer_check failed"
    cat "$OUT/timing_methods.jsonl"
  fi
  echo "--- timing (bf16, layout 0) at $(( $(date +%s) - start )) s"
  for shape in "${shapes[@]}"; do
    if (( $(date +%s) - start > ${RUN_BUDGET:-250} )); then
      echo "$shape: skipped, past RUN_BUDGET (${RUN_BUDGET:-250} s)"
      continue
    fi
    for_labels < "$bundle/configs/$shape.txt" > "$OUT/time_$shape.txt"
    bench_run "time_$shape" "$bundle/cubins/bf160" "$OUT/time_$shape.txt" "$shape" bf16 0 30 7
    echo "$shape done at $(( $(date +%s) - start )) s"
  done
  echo "--- A/B per shape (gemm_bench's tables)"
  for shape in "${shapes[@]}"; do
    [[ -f "$OUT/time_$shape.log" ]] && sed -n '/^A\/B (re-timed/,$p' "$OUT/time_$shape.log"
  done
  echo "--- ratio to cuBLAS per label (best of the shape's configs; re-timed medians)"
  python3 - "$OUT" "${labels[@]}" <<'EOF' || echo "(no python3: read the A/B tables above)"
import csv, math, sys, glob
out, labels = sys.argv[1], sys.argv[2:]
best, cublas, shapes, every = {}, {}, [], []
for path in sorted(glob.glob(out + "/time_*.csv")):
    for row in csv.reader(open(path)):
        if len(row) < 6 or row[2] != "retimed":
            continue
        shape, name, tflops = row[0], row[1], float(row[5])
        every.append((shape, name, tflops))
        if shape not in shapes:
            shapes.append(shape)
        if name == "cublas":
            cublas[shape] = tflops
            continue
        label = name.split("@")[1] if "@" in name else "-"
        best[(shape, label)] = max(best.get((shape, label), 0), tflops)
with open(out + "/all.csv", "w") as f:
    f.write("shape,config,tflops,cublas_tflops,ratio\n")
    for shape, name, tflops in every:
        if name != "cublas":
            f.write("%s,%s,%.2f,%.2f,%.4f\n" % (shape, name, tflops, cublas[shape],
                                              tflops / cublas[shape]))
print("every config (ratio to cuBLASLt, paired rounds' medians; also all.csv)")
for shape, name, tflops in every:
    if name != "cublas":
        print("  %-18s %-42s %6.1f %6.3f" % (shape, name, tflops, tflops / cublas[shape]))
print("%-18s %8s " % ("shape", "cublas") + " ".join("%7s" % l for l in labels))
logs = {l: [] for l in labels}
for shape in shapes:
    cells = []
    for l in labels:
        t = best.get((shape, l))
        if t and shape in cublas:
            logs[l].append(math.log(t / cublas[shape]))
            cells.append("%7.3f" % (t / cublas[shape]))
        else:
            cells.append("%7s" % "-")
    print("%-18s %8.1f " % (shape, cublas.get(shape, 0)) + " ".join(cells))
print("%-18s %8s " % ("geomean", "") + " ".join(
    "%7.3f" % math.exp(sum(v) / len(v)) if v else "%7s" % "-" for v in logs.values()))
EOF
  [[ -s "$OUT/dropped.txt" ]] && { echo "dropped after a fault or hang:"; cat "$OUT/dropped.txt"; }
  echo "gemm-ab: total $(( $(date +%s) - start )) s"
}

# Only a few files come back from the GPU machine: everything in $OUT goes into one tarball.
pack() {
  local packed
  packed=$(mktemp /tmp/ab-results.XXXXXX)
  tar czf "$packed" -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv "$packed" "$OUT/ab-results.tgz" &&
    chmod 644 "$OUT/ab-results.tgz"
  ls -la "$OUT"
}

case "$mode" in
  build) build "${2:?build needs a folder}" ;;
  run) run "${2:?run needs the bundle folder}" ;;
  pack) pack ;;
  *) echo "usage: gemm-ab.sh build DIR | run DIR" >&2; exit 64 ;;
esac
