# Sourced by scripts/setup. The other engines: stable-diffusion.cpp (built by pip), whisper.cpp
# (from the pywhispercpp wheel), sherpa-onnx and LiteRT (from their wheels).
# shellcheck shell=bash

STABLE_DIFFUSION_CPP_PYTHON_VERSION=$(lock_version run.txt stable-diffusion-cpp-python)
SHERPA_ONNX_VERSION=$(lock_version run.txt sherpa-onnx-core)
LITERT_VERSION=$(lock_version files.txt ai-edge-litert)

# stable-diffusion.cpp, built by pip like llama.cpp (-march=native, so keyed by this CPU's flags).
# WebP and WebM output (its examples' formats) are left out: RunAnywhere writes PNG.
# The stable-diffusion.cpp engine's folder with its header, linked as engines/stable-diffusion.cpp.
prepare_stable_diffusion_engine() {
  local engine sdist unpack="$home/downloads/.stable-diffusion-src"
  engine="$home/engines/stable-diffusion.cpp-$STABLE_DIFFUSION_CPP_PYTHON_VERSION-$(cpu_key)"
  if [ ! -f "$engine/include/stable-diffusion.h" ]; then
    sdist=$(fetch_locked_sdist run.txt stable-diffusion-cpp-python)
    rm -rf "$unpack" && mkdir -p "$unpack" "$engine/include"
    tar -xzf "$sdist" -C "$unpack" --wildcards '*/vendor/stable-diffusion.cpp/include/stable-diffusion.h'
    cp "$unpack"/*/vendor/stable-diffusion.cpp/include/stable-diffusion.h "$engine/include/"
    rm -rf "$unpack"
  fi
  ln -sfn "$engine" "$home/engines/stable-diffusion.cpp"
}

install_stable_diffusion() {
  local key venv stamp site engine sdist build
  key=$(cpu_key)
  venv=$(venv_dir)
  prepare_stable_diffusion_engine
  engine="$home/engines/stable-diffusion.cpp-$STABLE_DIFFUSION_CPP_PYTHON_VERSION-$key"
  build=$(engine_build "$engine")
  stamp="$venv/.stable-diffusion-cpp-python-$STABLE_DIFFUSION_CPP_PYTHON_VERSION"
  if [ "$(built_as "$stamp")" != "$build" ]; then
    local log="$home/logs/stable-diffusion-cpp-python-$STABLE_DIFFUSION_CPP_PYTHON_VERSION-$key.log"
    say "building stable-diffusion.cpp through pip (stable-diffusion-cpp-python==$STABLE_DIFFUSION_CPP_PYTHON_VERSION, $build); about 5 minutes on 2 cores"
    say_engine_build stable-diffusion.cpp "$build"
    say "build log: $log"
    local started=$SECONDS
    sdist=$(fetch_locked_sdist run.txt stable-diffusion-cpp-python)
    rm -f "$stamp"
    if ! CMAKE_ARGS="-DSD_WEBP=OFF -DSD_WEBM=OFF $(engine_build_args "$build")" pip_build "$log" "$sdist" --force-reinstall; then
      tail -n 30 "$log" >&2
      die "pip could not build stable-diffusion-cpp-python; the full log is $log"
    fi
    say "stable-diffusion.cpp built in $((SECONDS - started)) s"
    echo "$build" >"$stamp"
  fi
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  [ -f "$site/stable_diffusion_cpp/lib/libstable-diffusion.so" ] \
    || die "stable-diffusion-cpp-python installed no stable_diffusion_cpp/lib/libstable-diffusion.so under $site"
  check_no_amx stable-diffusion.cpp "$build" "$site/stable_diffusion_cpp/lib"
  ln -sfn "$site/stable_diffusion_cpp/lib" "$engine/lib"
  say "stable-diffusion.cpp: $engine"
}

install_whisper() {
  local venv site libs engine sdist
  venv=$(venv_dir)
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  libs="$site/pywhispercpp.libs"
  ls "$libs"/libwhisper-*.so.$WHISPER_CPP_VERSION >/dev/null 2>&1 || die "pywhispercpp installed no libwhisper-*.so.$WHISPER_CPP_VERSION under $libs"
  engine="$home/engines/whisper.cpp-$WHISPER_CPP_VERSION"
  if [ ! -f "$engine/include/whisper.h" ] || [ ! -f "$engine/share/for-tests-silero-v6.2.0-ggml.bin" ]; then
    sdist=$(fetch_locked_sdist files.txt pywhispercpp)
    local unpack="$home/downloads/.pywhispercpp-src"
    rm -rf "$unpack" && mkdir -p "$unpack" "$engine/include" "$engine/share"
    tar -xzf "$sdist" -C "$unpack" --wildcards '*/whisper.cpp/include/*.h' '*/whisper.cpp/ggml/include/*.h' \
      '*/whisper.cpp/models/for-tests-ggml-tiny.en.bin' '*/whisper.cpp/models/for-tests-silero-v6.2.0-ggml.bin'
    cp "$unpack"/*/whisper.cpp/include/*.h "$unpack"/*/whisper.cpp/ggml/include/*.h "$engine/include/"
    cp "$unpack"/*/whisper.cpp/models/for-tests-*.bin "$engine/share/"
    rm -rf "$unpack"
  fi
  ln -sfn "$libs" "$engine/lib"
  ln -sfn "$engine" "$home/engines/whisper.cpp"
  say "whisper.cpp: $engine"
}

install_sherpa() {
  local venv site engine
  venv=$(venv_dir)
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  [ -f "$site/sherpa_onnx/lib/libsherpa-onnx-c-api.so" ] || die "sherpa-onnx-core installed no libsherpa-onnx-c-api.so"
  engine="$home/engines/sherpa-onnx-$SHERPA_ONNX_VERSION"
  mkdir -p "$engine"
  ln -sfn "$site/sherpa_onnx/lib" "$engine/lib"
  ln -sfn "$site/sherpa_onnx/include" "$engine/include"
  ln -sfn "$engine" "$home/engines/sherpa-onnx"
  say "sherpa-onnx: $engine"
}

# Only libLiteRt.so is taken from the wheel (it needs nothing but the C and C++ runtimes); a
# platform with no wheel keeps BenchRunner on ONNX Runtime, which says so when --use-tflite is asked.
install_litert() {
  local venv engine download wheel rc=0
  venv=$(venv_dir)
  engine="$home/engines/litert-$LITERT_VERSION"
  if [ ! -f "$engine/lib/libLiteRt.so" ]; then
    say "installing LiteRT $LITERT_VERSION (libLiteRt.so from the ai-edge-litert wheel)"
    download=$(mktemp -d "$home/downloads/litert.XXXXXX")
    wheel=$(fetch_locked_wheel files.txt ai-edge-litert "$download") || rc=$?
    if [ "$rc" != 0 ]; then
      rm -rf "$download"
      [ "$rc" = 1 ] || exit 1
      say "warning: no ai-edge-litert $LITERT_VERSION wheel for this platform (see $home/logs/download-ai-edge-litert.log); BenchRunner's TensorFlow Lite backend will fall back to ONNX Runtime"
      return 0
    fi
    mkdir -p "$engine/lib"
    "$venv/bin/python" - "$wheel" "$engine/lib" <<'PY' || die "the ai-edge-litert wheel has no ai_edge_litert/libLiteRt.so"
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    data = archive.read("ai_edge_litert/libLiteRt.so")
partial = os.path.join(sys.argv[2], "libLiteRt.so.partial")
with open(partial, "wb") as out:
    out.write(data)
os.replace(partial, os.path.join(sys.argv[2], "libLiteRt.so"))
PY
    rm -rf "$download"
  fi
  ln -sfn "$engine" "$home/engines/litert"
  say "LiteRT: $engine"
}
