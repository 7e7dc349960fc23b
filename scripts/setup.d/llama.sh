# Sourced by scripts/setup. llama.cpp, the CPU engine: built by pip from the pinned llama-cpp-python
# source distribution (with scripts/patches), or taken from LLAMA_CPP_PREFIX; its headers for the
# declaration check.
# shellcheck shell=bash

LLAMA_CPP_PYTHON_VERSION=$(lock_version run.txt llama-cpp-python)
# Every llama.cpp build has ggml's RPC backend: `runanywhere rpc-worker` serves this machine's
# devices with it, and a load with RPC workers places layers on theirs. A build's stamp says so
# ("native+rpc"), so that a build from before is made again.
LLAMA_RPC_ARGS="-DGGML_RPC=ON"
llama_stamp() { echo "$1+rpc"; }
# The llama-cpp-python source distribution every llama.cpp build here is made from (downloaded once,
# checked against its sha256 before each use).
llama_sdist=""

install_llama_from_prefix() {
  local prefix=$1
  [ -f "$prefix/include/llama.h" ] || die "LLAMA_CPP_PREFIX=$prefix has no include/llama.h"
  ls "$prefix"/lib/libllama.so* >/dev/null 2>&1 || die "LLAMA_CPP_PREFIX=$prefix has no lib/libllama.so"
  ln -sfn "$prefix" "$home/engines/llama.cpp"
  say "llama.cpp: using $prefix (LLAMA_CPP_PREFIX)"
}

fetch_llama_sdist() {
  [ -n "$llama_sdist" ] && return 0
  llama_sdist=$(fetch_locked_sdist run.txt llama-cpp-python)
}

# The llama-cpp-python source unpacked into $1 for a build of backend $2 (cpu, vulkan, cuda),
# with our build-time patches from scripts/patches:
#   - llama-cpp-python-no-common.patch: llama.cpp's common library (argument parsing, downloads,
#     an HTTP client, chat templates) was a third of every build and nothing here loads it.
#   - ggml-vulkan-layer-settings.patch, for vulkan where the system's Vulkan headers lack
#     VK_EXT_layer_settings (see install_llama_gpu).
unpack_llama_source() {
  local src=$1 backend=$2 patch patches=(llama-cpp-python-no-common.patch)
  fetch_llama_sdist
  command -v patch >/dev/null || die "the llama.cpp build needs patch (Debian: apt-get install patch)"
  rm -rf "$src"
  mkdir -p "$src"
  tar -xzf "$llama_sdist" -C "$src" --strip-components=1
  if [ "$backend" = vulkan ] && ! grep -q VK_EXT_layer_settings /usr/include/vulkan/vulkan_core.h; then
    patches+=(ggml-vulkan-layer-settings.patch)
  fi
  for patch in "${patches[@]}"; do
    patch -d "$src" -p1 --quiet <"$repo/scripts/patches/$patch" \
      || die "scripts/patches/$patch does not apply to llama-cpp-python $LLAMA_CPP_PYTHON_VERSION"
  done
}

# The CPU engine's folder with llama.cpp's headers, linked as engines/llama.cpp: all the Swift build
# needs of it, so the build can start before the library is built.
prepare_llama_engine() {
  local engine
  engine="$home/engines/llama.cpp-$LLAMA_CPP_PYTHON_VERSION-$(cpu_key)"
  mkdir -p "$engine"
  install_llama_headers "$engine/include"
  ln -sfn "$engine" "$home/engines/llama.cpp"
}

# The CPU engine, built by pip into the venv; its stamp there holds the build it was made as
# (engine_build), and a stamp of another build (or an empty one, from before builds were named:
# native) is rebuilt.
install_llama_with_pip() {
  local key venv stamp site engine build
  key=$(cpu_key)
  venv=$(venv_dir)
  prepare_llama_engine
  engine="$home/engines/llama.cpp-$LLAMA_CPP_PYTHON_VERSION-$key"
  build=$(engine_build "$engine")
  stamp="$venv/.llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
  if [ "$(built_as "$stamp")" != "$(llama_stamp "$build")" ]; then
    command -v cc >/dev/null || command -v gcc >/dev/null \
      || die "a C/C++ compiler is needed to build llama.cpp (Debian: apt-get install build-essential)"
    local log="$home/logs/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-$key.log"
    say "building llama.cpp through pip (llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION, $build); about 3 minutes on 2 cores"
    say_engine_build llama.cpp "$build"
    say "build log: $log"
    local started=$SECONDS src="$home/downloads/.llama-cpp-cpu-src"
    unpack_llama_source "$src" cpu
    rm -f "$stamp"
    if ! CMAKE_ARGS="$LLAMA_RPC_ARGS $(engine_build_args "$build")" pip_build "$log" "$src" --force-reinstall; then
      tail -n 30 "$log" >&2
      die "pip could not build llama-cpp-python; the full log is $log"
    fi
    rm -rf "$src"
    say "llama.cpp built in $((SECONDS - started)) s"
    llama_stamp "$build" >"$stamp"
  fi
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  [ -f "$site/llama_cpp/lib/libllama.so" ] || die "llama-cpp-python installed no llama_cpp/lib/libllama.so under $site"
  check_no_amx llama.cpp "$build" "$site/llama_cpp/lib"
  ln -sfn "$site/llama_cpp/lib" "$engine/lib"
  say "llama.cpp: $engine"
}

# llama.cpp's public headers (llama, ggml, gguf, mtmd) from the source distribution the CPU engine
# was built from, in a folder of its own: pip installs them into the venv's include/, where
# stable-diffusion-cpp-python then writes its own, older ggml headers over them.
install_llama_headers() {
  local include=$1 stamp="$1/.llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION" work vendor
  [ -f "$stamp" ] && return 0
  fetch_llama_sdist
  work=$(mktemp -d)
  tar -xzf "$llama_sdist" -C "$work" --strip-components=1 --wildcards '*/vendor/llama.cpp/include/*.h' \
    '*/vendor/llama.cpp/ggml/include/*.h' '*/vendor/llama.cpp/tools/mtmd/mtmd.h' '*/vendor/llama.cpp/tools/mtmd/mtmd-helper.h' \
    || die "$llama_sdist has no llama.cpp headers"
  vendor="$work/vendor/llama.cpp"
  rm -rf "$include.partial"
  mkdir -p "$include.partial"
  cp "$vendor"/include/*.h "$vendor"/ggml/include/*.h "$vendor"/tools/mtmd/mtmd.h "$vendor"/tools/mtmd/mtmd-helper.h "$include.partial/"
  rm -rf "$work" "$include"
  touch "$include.partial/.llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
  mv "$include.partial" "$include"
}
