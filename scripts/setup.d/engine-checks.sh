# Sourced by scripts/setup. How engines are compiled for this CPU (RUNANYWHERE_ENGINE_BUILD) and
# proven to run on it: one tiny real computation each in a child process (scripts/engine-check),
# rebuilt conservatively once where it dies by a signal.
# shellcheck shell=bash

cpu_key() {
  # llama.cpp is compiled with -march=native, so a build is only valid on CPUs with the same flags.
  # The flags line (x86) or Features line (Arm) also tells the architecture apart.
  { grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || uname -m; } | sha256sum | cut -c1-12
}

# How set-up compiles the engines it builds (llama.cpp, its GPU variant, stable-diffusion.cpp),
# from RUNANYWHERE_ENGINE_BUILD (auto by default):
#   native        -march=native (ggml's GGML_NATIVE): every instruction this CPU advertises;
#   native-no-amx -march=native without AMX (-mno-amx-tile -mno-amx-int8 -mno-amx-bf16, ggml's
#                 GGML_NATIVE off so that no flag of its own comes after ours). What auto picks on
#                 a CPU with AMX: ggml's AMX kernels run a tile instruction with no tile
#                 configuration loaded and die with SIGILL in a VM (llama.cpp PR 26954, open), and
#                 no fix of them is proven here;
#   conservative  no -march=native: SSE 4.2, AVX, AVX2, BMI2, FMA and F16C where the CPU has them;
#                 no AVX-512, no AMX. What a build falls back to when its check dies (check_engine).
# auto is native-no-amx on a CPU with AMX and native elsewhere (the same code there), and
# conservative for an engine whose native build already failed its check on this CPU.
cpu_has() { grep -m1 -E '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -qx "$1"; }

engine_build() {
  local engine=$1 mode=${RUNANYWHERE_ENGINE_BUILD:-auto}
  case "$mode" in
    native|native-no-amx|conservative) echo "$mode" ;;
    auto) if [ -f "$engine/.conservative" ]; then echo conservative
          elif cpu_has amx_tile; then echo native-no-amx
          else echo native; fi ;;
    *) die "RUNANYWHERE_ENGINE_BUILD must be auto, native, native-no-amx or conservative, not '$mode'" ;;
  esac
}

# The CMake arguments of build $1 (see engine_build). With GGML_NATIVE off, ggml turns its SSE 4.2,
# AVX, AVX2, BMI2, FMA and F16C options on by default and adds their flags after ours, so each is
# set here: off beside -march=native (which decides), on only where this CPU has it otherwise.
engine_build_args() {
  local args="" option feature
  case "$1" in
    native) ;;
    native-no-amx)
      local flags="-march=native -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
      args="-DGGML_NATIVE=OFF '-DCMAKE_C_FLAGS=$flags' '-DCMAKE_CXX_FLAGS=$flags'"
      for option in SSE42 AVX AVX2 BMI2 FMA F16C AMX_TILE AMX_INT8 AMX_BF16; do args+=" -DGGML_$option=OFF"; done ;;
    conservative)
      args="-DGGML_NATIVE=OFF"
      for feature in SSE42:sse4_2 AVX:avx AVX2:avx2 BMI2:bmi2 FMA:fma F16C:f16c; do
        if cpu_has "${feature#*:}"; then args+=" -DGGML_${feature%%:*}=ON"; else args+=" -DGGML_${feature%%:*}=OFF"; fi
      done
      for option in AVX512 AVX512_VBMI AVX512_VNNI AVX512_BF16 AVX_VNNI AMX_TILE AMX_INT8 AMX_BF16; do args+=" -DGGML_$option=OFF"; done ;;
  esac
  echo "$args"
}

# The build stamp $1 records (an empty stamp is from before builds were named: native); nothing
# where there is no stamp.
built_as() {
  [ -f "$1" ] || return 0
  local build
  build=$(cat "$1")
  echo "${build:-native}"
}

# Says which build set-up makes for engine $1 and why.
say_engine_build() {
  local name=$1 build=$2
  case "$build" in
    native-no-amx) say "$name: built for this CPU without AMX (the CPU has AMX; ggml's AMX kernels crash without a tile configuration, llama.cpp PR 26954)" ;;
    conservative) say "$name: built conservatively (no -march=native, no AVX-512 or AMX)" ;;
  esac
}

# How many AMX instructions the shared libraries under $1 hold (0 where objdump is missing).
amx_instructions() {
  command -v objdump >/dev/null || { echo 0; return; }
  find -L "$1" -maxdepth 1 -name '*.so*' -type f -exec objdump -d --no-show-raw-insn {} + 2>/dev/null \
    | grep -cE $'\t(tilezero|tileloadd|tileloaddt1|tilestored|ldtilecfg|sttilecfg|tilerelease|tdpb[a-z]+|tdpfp16ps)[[:space:]]' || true
}

# Stops set-up when build $2 of engine $1, whose libraries are under $3, still holds AMX code.
check_no_amx() {
  local name=$1 build=$2 lib=$3 count
  [ "$build" != native ] || return 0
  count=$(amx_instructions "$lib")
  [ "$count" = 0 ] || die "$name was built $build but $lib holds $count AMX instructions; its compiler flags did not take"
}

# Proves that engine $1 runs on this CPU: scripts/engine-check runs one tiny real computation with
# it in a child process (arguments after $3). $2 is the engine's folder, where a check that passed
# is remembered under this CPU's identity and the library $3's size and time, so a build copied to
# another CPU, or rebuilt, is checked again. Returns 3 when the computation died by a signal (the
# caller rebuilds conservatively once), stops set-up on any other failure.
check_engine() {
  local name=$1 engine=$2 lib=$3 stamp rc=0
  shift 3
  stamp="$engine/.checked-$({ grep -m1 '^model name' /proc/cpuinfo; grep -m1 -E '^(flags|Features)' /proc/cpuinfo; stat -L -c '%s %Y' "$lib"; } 2>/dev/null | sha256sum | cut -c1-16)"
  [ -f "$stamp" ] && return 0
  "$(venv_dir)/bin/python" "$repo/scripts/engine-check" "$name" "$@" >"$home/logs/engine-check-$name.log" 2>&1 || rc=$?
  case "$rc" in
    0) rm -f "$engine"/.checked-*
       touch "$stamp"
       say "$(cat "$home/logs/engine-check-$name.log")" ;;
    3) cat "$home/logs/engine-check-$name.log" >&2
       return 3 ;;
    *) cat "$home/logs/engine-check-$name.log" >&2
       die "could not check $name on this CPU (log: $home/logs/engine-check-$name.log)" ;;
  esac
}

# Checks engine $1 (check_engine: folder $2, library $3, then scripts/engine-check's arguments
# after the rebuild command $4); where its computation dies by a signal, marks the engine's folder
# to be built conservatively, runs $4 to rebuild it, and checks once more before it gives up.
check_or_rebuild() {
  local name=$1 engine=$2 lib=$3 rebuild=$4 rc=0
  shift 4
  check_engine "$name" "$engine" "$lib" "$@" || rc=$?
  [ "$rc" = 3 ] || return 0
  [ -n "$rebuild" ] || die "$name comes prebuilt (pywhispercpp's wheel) and cannot run on this CPU; see $home/logs/engine-check-$name.log"
  if [ "$(engine_build "$engine")" = conservative ]; then
    die "$name dies on this CPU even built conservatively; see $home/logs/engine-check-$name.log"
  fi
  touch "$engine/.conservative"
  say "$name: rebuilding it conservatively (no -march=native), once"
  "$rebuild"
  rc=0
  check_engine "$name" "$engine" "$lib" "$@" || rc=$?
  [ "$rc" = 0 ] || die "$name dies on this CPU even built conservatively; see $home/logs/engine-check-$name.log"
}

# The tiny image model (scripts/fixtures/diffusion_fixture.py, random weights) stable-diffusion.cpp
# draws one step of in its check, rewritten whenever that script changes; prints its path.
engine_check_image_model() {
  local dir="$home/engines/checks" key
  key=$(sha256sum "$repo/scripts/fixtures/diffusion_fixture.py" | cut -c1-16)
  if [ "$(cat "$dir/.sd-fixture" 2>/dev/null)" != "$key" ]; then
    mkdir -p "$dir"
    "$(venv_dir)/bin/python" "$repo/scripts/fixtures/diffusion_fixture.py" "$dir/sd-fixture.gguf" >&2 \
      || die "could not write the image model stable-diffusion.cpp's check draws with"
    echo "$key" >"$dir/.sd-fixture"
  fi
  echo "$dir/sd-fixture.gguf"
}

# Every engine set-up installed, proven on this CPU (check_or_rebuild): llama.cpp with one token of
# the default model and one embedding, whisper.cpp with one second of audio through Silero VAD,
# stable-diffusion.cpp with one step of an image.
check_engines() {
  local site engine
  site=$("$(venv_dir)/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  if [ -z "${LLAMA_CPP_PREFIX:-}" ]; then
    engine="$home/engines/llama.cpp-$LLAMA_CPP_PYTHON_VERSION-$(cpu_key)"
    check_or_rebuild llama.cpp "$engine" "$site/llama_cpp/lib/libllama.so" install_llama_with_pip \
      "$site" "$home/models/$MODEL_ID/$MODEL_FILE"
  fi
  check_or_rebuild whisper.cpp "$home/engines/whisper.cpp-$WHISPER_CPP_VERSION" "$(ls "$site"/pywhispercpp.libs/libwhisper-*.so.$WHISPER_CPP_VERSION)" "" \
    "$(ls "$site"/pywhispercpp.libs/libwhisper-*.so.$WHISPER_CPP_VERSION)" "$home/models/silero-vad/silero-v6.2.0-ggml.bin"
  engine="$home/engines/stable-diffusion.cpp-$STABLE_DIFFUSION_CPP_PYTHON_VERSION-$(cpu_key)"
  check_or_rebuild stable-diffusion.cpp "$engine" "$site/stable_diffusion_cpp/lib/libstable-diffusion.so" install_stable_diffusion \
    "$(engine_check_image_model)"
  check_llama_gpu
}

# llama.cpp's GPU variant (engines/llama.cpp-gpu), where one is installed, checked as the CPU
# engine is (its CPU backend runs the computation).
rebuild_llama_gpu() {
  local variant
  variant=$(basename "$(readlink -f "$home/engines/llama.cpp-gpu")")
  variant=${variant#llama.cpp-}
  RUNANYWHERE_GPU=${variant%%-*} install_llama_gpu
}

check_llama_gpu() {
  local engine
  [ -z "${LLAMA_CPP_PREFIX:-}" ] && [ -f "$home/engines/llama.cpp-gpu/py/llama_cpp/lib/libllama.so" ] || return 0
  engine=$(readlink -f "$home/engines/llama.cpp-gpu")
  check_or_rebuild "llama.cpp-$(basename "$engine" | cut -d- -f2)" "$engine" "$engine/py/llama_cpp/lib/libllama.so" rebuild_llama_gpu \
    "$engine/py" "$home/models/$MODEL_ID/$MODEL_FILE"
}
