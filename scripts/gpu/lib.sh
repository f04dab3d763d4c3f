# shellcheck shell=bash disable=SC2154  # $root comes from the sourcing script
# Sourced by the GPU machine's scripts (gemm-tune.sh, runtime-bench.sh, ...) for their common setup.
# Needs $root (the repository) set by the script.

# require_nvcc NAME: puts the toolkit's bin folder on PATH; exits when there is no nvcc.
require_nvcc() {
  export PATH="$PATH:/usr/local/cuda/bin"
  command -v nvcc > /dev/null || { echo "$1: no nvcc" >&2; exit 1; }
}

# add_cublaslt_path: cuBLASLt (the worker's reference) and NVRTC on LD_LIBRARY_PATH: the toolkit's,
# else the ones PyTorch's wheels carry.
add_cublaslt_path() {
  local dir
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
             $(python3 -c 'import nvidia.cublas, os; print(os.path.join(nvidia.cublas.__path__[0], "lib"))' 2>/dev/null); do
    if [[ -e "$dir/libcublasLt.so.13" ]]; then
      export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
      break
    fi
  done
}

# export_gemm_environment NAME BIN: the CUDA worker of BIN, the Hopper GEMM kernel's source and the
# CUTLASS headers; exits when the headers are missing.
export_gemm_environment() {
  export CUTUNE_CUDA_WORKER="$2/cutune-cuda-worker"
  export CUTUNE_GEMM_SOURCE="$root/src/families/gemm/device/hopper_gemm.cu"
  export CUTUNE_CUTLASS_INCLUDE="$root/third_party/cutlass/include"
  [[ -d "$CUTUNE_CUTLASS_INCLUDE/cute" ]] || { echo "$1: no CUTLASS headers" >&2; exit 1; }
}

# winner_config < SHOW_JSON: the config of the first row of `cutune show --json` (the store's
# decision for its one key: what `cutune export` deploys), as one line of JSON.
winner_config() {
  python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["results"][0]["config"]))'
}

# record_gpu FILE: the GPU's name, driver, clocks and power, printed and written to FILE.
record_gpu() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader |
    tee "$1"
}

# bundle_libraries DEST BINARY...: copies into DEST the libraries the binaries load that the GPU
# image may lack; the C and C++ runtimes, CUDA's own libraries and the driver are the machine's.
bundle_libraries() {
  local dest="$1" binary
  shift
  for binary in "$@"; do
    ldd "$binary" | awk '/=> \// {print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|libcublas|libcublasLt|libcudart|libnvrtc|libnvrtc-builtins)\.so' |
    while read -r library; do
      # A bundled library that links another one of the bundle finds it there already.
      [[ "$(readlink -f "$(dirname "$library")")" == "$(readlink -f "$dest")" ]] && continue
      cp -L "$library" "$dest/"
    done
}

# start_clock [LIMIT]: elapsed prints the seconds since; given LIMIT, remaining WANTED prints the
# smaller of WANTED and what is left before LIMIT (at least 10), for `timeout`.
# shellcheck disable=SC2120  # LIMIT is for the scripts that call remaining
start_clock() {
  clock_start=$(date +%s)
  clock_limit=${1:-}
}
elapsed() { echo $(( $(date +%s) - clock_start )); }
remaining() {
  local left=$(( ${clock_limit:?remaining: start_clock was given no LIMIT} - $(elapsed) ))
  (( left > $1 )) && left=$1
  (( left < 10 )) && left=10
  echo "$left"
}

# enter_runtime_bundle NAME BUNDLE OUT: for the runtime benches (runtime-bench.sh, dispatch-bench.sh):
# a scratch folder under OUT for compile caches and nvcc's temporary files (removed on exit; sets
# $scratch), the toolkit, the bundle's binaries (sets $bin) and libraries, cuBLASLt, the GEMM
# kernel's environment and the examples. Exits when BUNDLE holds no bench_runtime_shapes.
enter_runtime_bundle() {
  local name="$1" bundle_dir="$2" out_dir="$3"
  scratch="$out_dir/scratch"
  rm -rf "$scratch"
  mkdir -p "$scratch/tmp" "$scratch/cache" "$out_dir/shapes"
  # shellcheck disable=SC2064  # expanded now: the locals are gone at exit
  trap "rm -rf '$scratch' '$out_dir/shapes/kernel-cache'" EXIT
  require_nvcc "$name"
  [[ -x "$bundle_dir/bin/bench_runtime_shapes" ]] ||
    { echo "$name: no $bundle_dir (run '$name bundle' on the build machine and carry it)" >&2; exit 1; }
  bin="$bundle_dir/bin"
  export LD_LIBRARY_PATH="$bundle_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  add_cublaslt_path
  export_gemm_environment "$name" "$bin"
  export CUTUNE_NVRTC_HELPER="$bin/cutune-nvrtc"
  export CUTUNE_EXAMPLES_DIR="$root/examples"
}

# install_python_package WORK BUNDLE WHEELS OUT: the carried wheels, then the package's modules
# for this python3 built against BUNDLE's core libraries (pip, as a user would; plain CMake when
# that fails), under WORK (kept: a second call with the same WORK reuses them); sets PYTHONPATH
# and LD_LIBRARY_PATH for them. Logs under OUT.
install_python_package() {
  local work="$1" package="$1/package"
  python3 --version
  if [[ ! -d "$package/cutune" || ! -d "$work/site" ]]; then  # else: an earlier call's, reused
    build_python_package "$@" || return 1
  fi
  export PYTHONPATH="$package:$work/site"
  # The workers the package starts need the bundle's libraries.
  export LD_LIBRARY_PATH="$package/cutune/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# build_python_package WORK BUNDLE WHEELS OUT: install_python_package's install.
build_python_package() {
  local work="$1" bundle_dir="$2" wheels="$3" out_dir="$4" package="$1/package"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$wheels"/*.whl || return 1
  # The build's own needs (nanobind, scikit-build-core) are among the wheels.
  export PYTHONPATH="$work/site"
  if python3 -m pip install --no-index --no-build-isolation --no-deps --target "$package" \
       --config-settings=cmake.define.CUTUNE_PYTHON_PREBUILT="$bundle_dir" \
       --config-settings=build-dir="$work/build" "$root" > "$out_dir/pip-install.log" 2>&1; then
    echo "pip install . done at $(elapsed) s"
  else
    tail -30 "$out_dir/pip-install.log"
    echo "pip install . failed at $(elapsed) s; building with CMake"
    rm -rf "$package"
    cmake -S "$root/python" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCUTUNE_PYTHON_PREBUILT="$bundle_dir" -DPython_EXECUTABLE="$(command -v python3)" \
      -Dnanobind_ROOT="$(python3 -m nanobind --cmake_dir)" > "$out_dir/cmake.log" 2>&1 &&
      cmake --build "$work/cmake" -j16 >> "$out_dir/cmake.log" 2>&1 &&
      cmake --install "$work/cmake" --component python --prefix "$package" >> "$out_dir/cmake.log" 2>&1 ||
      { tail -40 "$out_dir/cmake.log"; echo "the module did not build" >&2; return 1; }
    echo "CMake build done at $(elapsed) s"
  fi
}

# pack_carry ARCHIVE: build/gemm-tune-bundle and the CUTLASS headers as one xz archive, so that a
# call carries one folder (the two together exceed what a call may carry unpacked);
# unpack_carry ARCHIVE TOOL on the GPU machine, unless TOOL (a binary of the bundle) is there from
# this same archive: a warm machine keeps the bundle of an earlier call, which may have come from
# another script's archive, built at another commit.
pack_carry() {
  (cd "$root" && tar -cf - build/gemm-tune-bundle third_party/cutlass/include) | xz -T0 -6 > "$1"
}
unpack_carry() {
  [[ -f "$1" ]] || return 0
  local stamp_file="$root/build/gemm-tune-bundle/.unpacked-from" stamp
  stamp="$(cksum < "$1")"
  if [[ ! -x "$2" || "$(cat "$stamp_file" 2> /dev/null)" != "$stamp" ]]; then
    (cd "$root" && tar -xJf "$1") && echo "$stamp" > "$stamp_file"
  fi
}

# reach_built_at FILE: a carried compile cache is keyed by the absolute CUTLASS path it was
# compiled with, which the bundle step wrote to FILE: link that path to this checkout and reach
# the headers through it.
reach_built_at() {
  local built_at
  built_at="$(cat "$1" 2> /dev/null || echo "$root")"
  if [[ "$built_at" != "$root" && ! -e "$built_at" ]]; then
    mkdir -p "$(dirname "$built_at")" && ln -sfn "$root" "$built_at"
  fi
  if [[ -d "$built_at/third_party/cutlass/include/cute" ]]; then
    export CUTUNE_CUTLASS_INCLUDE="$built_at/third_party/cutlass/include"
  fi
}

# enter_gemm_carry NAME TOOL CACHE: on the GPU machine, for a script whose bundle was carried
# ($bundle, unpacked by unpack_carry): exits unless TOOL, one of its binaries, is there; then the
# toolkit, the bundle's libraries, cuBLASLt, the GEMM kernels' environment, and CACHE as the
# compile cache (XDG_CACHE_HOME).
enter_gemm_carry() {
  [[ -x "$2" ]] || { echo "$1: no $2 (carry the bundle)" >&2; exit 1; }
  require_nvcc "$1"
  export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  add_cublaslt_path
  export_gemm_environment "$1" "$(dirname "$2")"
  mkdir -p "$3" && export XDG_CACHE_HOME="$3"
}
