# Sourced by scripts/setup. llama.cpp's GPU variant (RUNANYWHERE_GPU: CUDA or Vulkan) beside the CPU
# engine, and for the tests the Vulkan variant on Mesa's CPU Vulkan driver (lavapipe).
# shellcheck shell=bash

# The GPU backend RUNANYWHERE_GPU=auto picks: CUDA with an NVIDIA driver and the CUDA compiler;
# Vulkan with a render node (/dev/dri/renderD*) or an NVIDIA driver, a Vulkan driver other than
# Mesa's CPU one (lavapipe) and glslc; else none. Prints the backend or nothing.
detect_gpu_backend() {
  if [ -e /proc/driver/nvidia/version ] && find_nvcc >/dev/null; then echo cuda; return; fi
  local icds
  icds=$(ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>/dev/null | grep -v '^lvp_' | grep '\.json$' || true)
  if { ls /dev/dri/renderD* >/dev/null 2>&1 || [ -e /proc/driver/nvidia/version ]; } && [ -n "$icds" ] && command -v glslc >/dev/null; then
    echo vulkan
  fi
}

find_nvcc() {
  local candidate
  for candidate in "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc; do
    [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
  done
  return 1
}

# The Debian packages the Vulkan build needs that are missing, separated by spaces.
vulkan_build_missing() {
  local missing=()
  command -v glslc >/dev/null || missing+=(glslc)
  [ -f /usr/include/vulkan/vulkan.h ] || missing+=(libvulkan-dev)
  [ -d /usr/include/spirv ] || missing+=(spirv-headers)
  command -v patch >/dev/null || missing+=(patch)
  echo "${missing[*]}"
}

# llama.cpp's GPU variant, built by pip from the llama-cpp-python source distribution into a
# folder of its own (the CPU engine stays as it is), keyed by backend, version and CPU flags:
#   - vulkan needs Debian's glslc, libvulkan-dev and spirv-headers (installed when missing and
#     running as root). Debian 12's Vulkan headers (1.3.239) predate VK_EXT_layer_settings, which
#     ggml-vulkan.cpp uses for its validation-layer setting; scripts/patches/ggml-vulkan-layer-
#     settings.patch guards that block, applied only when the headers lack the extension.
#   - cuda needs the CUDA toolkit (nvcc; PyPI's NVIDIA wheels have no nvcc and no cub/thrust) and
#     is built only for the GPUs present (CMAKE_CUDA_ARCHITECTURES from nvidia-smi, or
#     RUNANYWHERE_CUDA_ARCHITECTURES, e.g. 90 for an H100, when building for another machine).
# The engines link llama.cpp-gpu points to it; the SDK loads it when it finds a usable device.
install_llama_gpu() {
  local mode=${RUNANYWHERE_GPU:-auto} backend key venv engine src args log started build
  case "$mode" in
    off) return 0 ;;
    auto) backend=$(detect_gpu_backend)
          if [ -z "$backend" ]; then say "GPU: none found for llama.cpp (RUNANYWHERE_GPU=auto), so no GPU variant is built"; return 0; fi ;;
    cuda|vulkan) backend=$mode ;;
    *) die "RUNANYWHERE_GPU must be auto, cuda, vulkan or off, not '$mode'" ;;
  esac
  key=$(cpu_key)
  venv=$(venv_dir)
  engine="$home/engines/llama.cpp-$backend-$LLAMA_CPP_PYTHON_VERSION-$key"
  build=$(engine_build "$engine")
  # A variant built before builds were named was built native.
  if [ -f "$engine/py/llama_cpp/lib/libllama.so" ] && [ ! -f "$engine/.build" ]; then echo native >"$engine/.build"; fi
  if [ ! -f "$engine/py/llama_cpp/lib/libllama.so" ] || [ "$(built_as "$engine/.build")" != "$(llama_stamp "$build")" ]; then
    case "$backend" in
      vulkan)
        local missing
        missing=$(vulkan_build_missing)
        [ -z "$missing" ] || apt_install "for the Vulkan build" debian-vulkan $missing
        args="-DGGML_VULKAN=on" ;;
      cuda)
        local nvcc arch
        nvcc=$(find_nvcc) || die "the CUDA build needs the CUDA toolkit's nvcc (on the PATH or under CUDA_HOME): NVIDIA's CUDA 12, or on Debian 12 nvidia-cuda-toolkit from the non-free component (CUDA 11.8, for GPUs before Hopper); PyPI's NVIDIA wheels have no nvcc"
        arch=${RUNANYWHERE_CUDA_ARCHITECTURES:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d . | sort -u | paste -sd';' -)}
        local release
        release=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
        if [ -n "$release" ] && [ "$release" -lt 12 ] && tr ';' '\n' <<<"$arch" | grep -qE '^(9[0-9]|[1-9][0-9]{2})'; then
          die "CUDA $release ($nvcc) cannot build llama.cpp for compute capability $arch (Hopper and newer: ggml's code for them needs CUDA 12); install NVIDIA's CUDA 12 toolkit and set CUDA_HOME to it"
        fi
        args="-DGGML_CUDA=on -DCMAKE_CUDA_COMPILER=$nvcc${arch:+ -DCMAKE_CUDA_ARCHITECTURES=$arch}" ;;
    esac
    src="$home/downloads/.llama-cpp-$backend-src"
    rm -rf "$engine/py.partial"
    unpack_llama_source "$src" "$backend"
    log="$home/logs/llama.cpp-$backend-$LLAMA_CPP_PYTHON_VERSION-$key.log"
    args+=" $LLAMA_RPC_ARGS $(engine_build_args "$build")"
    say "building llama.cpp with $backend ($args); Vulkan takes about 5 minutes on 2 cores, CUDA longer; log: $log"
    say_engine_build "llama.cpp ($backend)" "$build"
    started=$SECONDS
    mkdir -p "$engine"
    rm -f "$engine/.build"
    if ! CMAKE_ARGS="$args" pip_build "$log" "$src" --target "$engine/py.partial"; then
      tail -n 30 "$log" >&2
      die "pip could not build llama.cpp with $backend; the full log is $log"
    fi
    rm -rf "$src" "$engine/py"
    mv "$engine/py.partial" "$engine/py"
    llama_stamp "$build" >"$engine/.build"
    say "llama.cpp with $backend built in $((SECONDS - started)) s"
  fi
  check_no_amx "llama.cpp ($backend)" "$build" "$engine/py/llama_cpp/lib"
  ln -sfn "$engine/py/llama_cpp/lib" "$engine/lib"
  ln -sfn "$engine/py/include" "$engine/include"
  ln -sfn "$engine" "$home/engines/llama.cpp-gpu"
  say "llama.cpp ($backend): $engine"
}

# For the tests (RUNANYWHERE_TEST_VULKAN=1): Mesa's lavapipe, a Vulkan driver that runs on the
# CPU, and the Vulkan variant where no GPU variant is installed, so that `make test` runs the model
# on a real Vulkan device on a machine without a GPU. The SDK never uses lavapipe unless
# GGML_VK_VISIBLE_DEVICES names it (only the tests do), so `make run` is unchanged. Where packages
# cannot be installed (not root), the Vulkan tests are skipped and this says so.
install_lavapipe_for_tests() {
  [ "${RUNANYWHERE_TEST_VULKAN:-0}" = 1 ] && [ "${RUNANYWHERE_GPU:-auto}" != off ] || return 0
  local variant
  variant=$(readlink -f "$home/engines/llama.cpp-gpu" 2>/dev/null || true)
  case "$(basename "${variant:-none}")" in
    llama.cpp-cuda-*) return 0 ;;  # the tests run on the real GPU
  esac
  local missing=()
  ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
  if [ -z "$variant" ] || [ ! -f "$variant/lib/libllama.so" ]; then
    variant=""
    missing+=($(vulkan_build_missing))
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      say "tests: the Vulkan tests will be skipped; they need: sudo apt-get install ${missing[*]}"
      return 0
    fi
    apt_install "to test llama.cpp's Vulkan build on the CPU (lavapipe)" debian-lavapipe "${missing[@]}"
  fi
  [ -n "$variant" ] || RUNANYWHERE_GPU=vulkan install_llama_gpu
}
