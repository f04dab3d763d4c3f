#!/usr/bin/env bash
# Kernel Tuner's own CUDA examples, tuned by cutune through `cutune import-kt` of their tune
# scripts and by Kernel Tuner itself on the same budget (issue 32). The repository keeps none of
# Kernel Tuner's files: EXAMPLES is a copy of its examples/cuda folder.
#
#   scripts/gpu/kt-examples.sh wheels             here (network): the pinned Kernel Tuner wheel
#                                                 (bench/search/requirements-kernel-tuner.txt) and
#                                                 those of its requirements the GPU image lacks
#                                                 (numpy, scipy, pandas, scikit-learn, matplotlib and
#                                                 cuda-bindings are there), for Python 3.12, into
#                                                 .device/kt/wheels (ignored); and PyCUDA, which
#                                                 PyPI has as source only, built into a wheel by
#                                                 python3.12 (PYTHON312) and this machine's nvcc,
#                                                 with what it needs
#   scripts/gpu/kt-examples.sh check EXAMPLES     here (no GPU): import-kt of each example and an
#                                                 nvcc compile of its default config for sm_90a
#   scripts/gpu/kt-examples.sh bundle EXAMPLES    here, after scripts/gpu/carry.sh pack (which
#                                                 gathers build/release/devlib): .device/kt/carry.tar.xz
#                                                 with the release build's programs and libraries,
#                                                 the wheels and EXAMPLES as .device/kt/examples
#   scripts/gpu/kt-examples.sh run EXAMPLES [BUDGET]
#                                                 there (after `tar -xJf .device/kt/carry.tar.xz`):
#                                                 the wheels into a folder on PYTHONPATH, then per
#                                                 example cutune's tune and Kernel Tuner's
#                                                 (random_sample, max_fevals BUDGET, default 100;
#                                                 each tool at most PER_TOOL_S, 40 s, an example,
#                                                 more for the slow ones in tool_seconds below;
#                                                 ONLY=a,b runs those examples alone); Kernel
#                                                 Tuner's best checked as cutune checks its
#                                                 configs (kt_examples_run.py) and re-timed by
#                                                 cutune's harness; prints cutune's best, Kernel
#                                                 Tuner's by both timers, the ratio in cutune's
#                                                 harness and what each was checked against
#
# A script without an `answer` becomes a spec whose writable arrays are inouts, every config
# checked against the default config's results (docs/kernel-tuner.md). Some rows change what both
# tools tune, so that they do the same work and that work can be checked:
# - pins: a knob held at one value for cutune (the imported spec's choices) and Kernel Tuner (its
#   tune_params). convolution.py's first tune_kernel() tunes filter_height and filter_width (3 to
#   33) among the knobs, and sepconv.py's filter_width (3 to 17): each tool's fastest config would
#   be its smallest filter, less work rather than a faster kernel, and a config of another filter
#   computes another image than the default's. Both are pinned to 17, the filter
#   convolution_correct.py checks.
# - buffers: a buffer's role or fill. expdist's `cost` holds one partial sum per thread block of
#   the config's own grid, so no two grids agree element by element; their totals, which the
#   script's second kernel computes, do (role partial_sums). Its scales divide a distance in an
#   exponent, so they are positive, as the script's are (fill positive).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
bin="${BUILD_DIR:-$root/build/release}/bin"
wheels="$root/.device/kt/wheels"
# Kernel Tuner's requirements (and theirs) that the GPU image does not hold.
missing_on_gpu="kernel_tuner jsonschema jsonschema-specifications referencing rpds-py pymoo
python-constraint2 xmltodict moocore cffi pycparser autograd cma alive-progress about-time graphemeu
Deprecated pyaml scikit-optimize"
work="${WORK_DIR:-$root/build/kt-examples}"
# The examples whose first tune_kernel() call needs no Python host code (pnpoly's host code,
# convolution_streams' streams, spmv's CSR data built in Python, texture memory, precision
# wrappers, code generators and kernel builders do); the reference is a run_kernel() kernel where
# the script gives one, else the default config. reduction is left out: its `#pragma unroll loop_unroll_factor_0` needs
# Kernel Tuner's rewriting of the source (a constexpr, or the pragma removed for 0), as nvcc does
# not expand macros in a pragma's argument.
examples=(convolution convolution_correct expdist matmul sepconv stencil vector_add zeromeanfilter)
declare -A knob_pins=([convolution]="filter_height=17 filter_width=17" [sepconv]="filter_width=17")
declare -A buffer_edits=([expdist]="cost=partial_sums scale_A=positive scale_B=positive")
# Kernel Tuner's CUDA backend per example (default nvcuda, NVRTC, which Kernel Tuner 1.5 also
# picks for "CUDA" where cuda-python is installed): expdist includes <cub/cub.cuh>, which NVRTC
# cannot compile, so Kernel Tuner compiles it with PyCUDA and nvcc, named as such.
declare -A kt_backends=([expdist]=pycuda)
# PyCUDA and what it needs beyond the GPU image, for the wheels step.
pycuda_pins="pycuda==2026.1 pytools==2026.1.1 mako==1.4.3 platformdirs==4.14.9 markupsafe==3.0.4
siphash24==1.9 typing_extensions==4.16.0"
# Examples whose configs run for milliseconds (a 4096^2 matmul, 17x17 filters on 4096^2 images),
# and expdist, whose compiles take PyCUDA's nvcc about 4 s each (cub's headers): Kernel Tuner
# compiles and times its configs one after another, 4-5 s each, and needs 150 s for 30 of them.
declare -A tool_seconds=([matmul]=150 [convolution]=150 [convolution_correct]=150 [expdist]=150)

# import EXAMPLES NAME: the spec of NAME.py in $work/NAME/spec.json, with the row's pins and
# buffer edits; prints what it is checked against: a reference entry, "default" or "none".
import_one() {
  mkdir -p "$work/$2"
  "$bin/cutune" import-kt "$1/$2.py" -o "$work/$2/spec.json" > "$work/$2/import.log" 2>&1 ||
    { cat "$work/$2/import.log" >&2; return 1; }
  # shellcheck disable=SC2086  # one word a pin
  python3 "$root/bench/gpu/kt_examples_rows.py" spec "$work/$2/spec.json" "${buffer_edits[$2]:-}" \
    ${knob_pins[$2]:-}
}

case "${1:-}" in
  wheels)
    mkdir -p "$wheels"
    pins=()
    for name in $missing_on_gpu; do
      pins+=("$(grep -i "^$name==" "$root/bench/search/requirements-kernel-tuner.txt")")
    done
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --dest "$wheels" "${pins[@]}"
    # shellcheck disable=SC2086  # one word a pin
    "${PYTHON312:-python3.12}" -m pip wheel -q --wheel-dir "$wheels" $pycuda_pins
    ;;
  bundle)
    examples_dir="$(cd "${2:?usage: kt-examples.sh bundle EXAMPLES}" && pwd)"
    [[ -d "$root/build/release/devlib" ]] || { echo "kt-examples.sh: run carry.sh pack first" >&2; exit 1; }
    if [[ "$examples_dir" != "$root/.device/kt/examples" ]]; then  # else: already there
      rm -rf "$root/.device/kt/examples" && cp -r "$examples_dir" "$root/.device/kt/examples"
    fi
    (cd "$root" && tar -cf - build/release/bin build/release/lib build/release/devlib \
      .device/kt/wheels .device/kt/examples | xz -T0 -6 > .device/kt/carry.tar.xz)
    du -h "$root/.device/kt/carry.tar.xz"
    ;;
  check)
    examples_dir="$(cd "${2:?usage: kt-examples.sh check EXAMPLES}" && pwd)"
    require_nvcc kt-examples
    printf '%-22s %-8s %-22s %s\n' example import reference "nvcc sm_90a (default config)"
    for name in "${examples[@]}"; do
      if ! reference=$(import_one "$examples_dir" "$name" 2>"$work-$name.err"); then
        printf '%-22s %-8s %s\n' "$name" failed "$(tail -1 "$work-$name.err")"
        continue
      fi
      defines=$("$bin/cutune" space "$work/$name/spec.json" --json |
        python3 -c 'import json,sys; c=json.load(sys.stdin)["default_config"]; print(" ".join("-D%s=%s" % kv for kv in c.items()))')
      flags=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(" ".join(s["compile"]["flags"]) + " " + s["source"])' "$work/$name/spec.json")
      # shellcheck disable=SC2086  # word splitting wanted
      if (cd "$work/$name" && nvcc -cubin -arch=sm_90a -o kernel.cubin $defines $flags) > "$work/$name/nvcc.log" 2>&1; then
        printf '%-22s %-8s %-22s %s\n' "$name" ok "$reference" compiles
      else
        printf '%-22s %-8s %-22s %s\n' "$name" ok "$reference" "fails: $(grep -m1 error "$work/$name/nvcc.log")"
      fi
    done
    ;;
  run)
    examples_dir="$(cd "${2:?usage: kt-examples.sh run EXAMPLES [BUDGET]}" && pwd)"
    budget="${3:-100}"
    # Each tool's limit per example (PER_TOOL_S, default 40 s): Kernel Tuner compiles its configs
    # one by one, and one slow example must not take the whole call; a tool stopped there shows "-".
    per_tool_s="${PER_TOOL_S:-40}"
    require_nvcc kt-examples
    add_cublaslt_path
    export CUTUNE_CUDA_WORKER="$bin/cutune-cuda-worker"
    # The libraries carry.sh bundles beside the build (the GPU image lacks the Debian packages).
    export LD_LIBRARY_PATH="$bin/../devlib:$bin/../lib:${LD_LIBRARY_PATH:-}"
    [[ -d "$work/site/kernel_tuner" ]] ||
      python3 -m pip install -q --no-index --no-deps --no-compile --target "$work/site" "$wheels"/*.whl
    export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
    record_gpu "$work/gpu.txt"
    rows="$root/bench/gpu/kt_examples_rows.py"
    python3 "$rows" header
    IFS=, read -r -a selected <<< "${ONLY:-$(IFS=,; echo "${examples[*]}")}"
    for name in "${selected[@]}"; do
      seconds="${tool_seconds[$name]:-$per_tool_s}"
      dir="$work/$name"
      import_one "$examples_dir" "$name" > /dev/null || { echo "$name: import failed"; continue; }
      timeout "$seconds" "$bin/cutune" tune "$dir/spec.json" --budget "$budget" --no-store --json \
        > "$dir/cutune.json" 2> "$dir/cutune.log" || true
      # Kernel Tuner tunes for all but 10 s of its share, then checks its fastest configs.
      # shellcheck disable=SC2086  # one word a pin
      timeout $((seconds + 20)) python3 "$root/scripts/gpu/kt_examples_run.py" "$examples_dir/$name.py" \
        "$budget" "${kt_backends[$name]:-nvcuda}" $((seconds - 10)) "$dir/spec.json" \
        "$dir/cutune.json" ${knob_pins[$name]:-} \
        > "$dir/kt.json" 2> "$dir/kt.log" || true
      # Kernel Tuner's checked best, timed by cutune's harness: a one-config tune of the spec
      # whose default is that config.
      if python3 "$rows" pinned "$dir/spec.json" "$dir/kt.json" "$dir/kt_spec.json" 2> "$dir/kt_in_cutune.log"; then
        timeout 60 "$bin/cutune" tune "$dir/kt_spec.json" --budget 1 --no-store --json \
          > "$dir/kt_in_cutune.json" 2>> "$dir/kt_in_cutune.log" || true
      fi
      python3 "$rows" row "$name" "$dir" "${buffer_edits[$name]:-}"
    done
    ;;
  *)
    sed -n '2,38p' "$0"
    exit 2
    ;;
esac
