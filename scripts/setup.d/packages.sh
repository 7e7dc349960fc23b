# Sourced by scripts/setup. The Python packages of scripts/requirements/ (run.txt, and tests.txt for
# the tests) and the Debian packages, for running and for the tests.
# shellcheck shell=bash

# The Python venv every engine and tool here installs into, with the packages of run.txt but the two
# built from source below.
install_python_packages() {
  local venv stamp
  venv=$(venv_dir)
  if [ ! -x "$venv/bin/python" ]; then
    say "creating the Python venv $venv"
    "$python" -m venv "$venv" || die "could not create a venv (Debian: apt-get install python3-venv)"
  fi
  stamp="$venv/.run-$(sha256sum "$locks/run.txt" | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    say "installing scripts/requirements/run.txt (build tools, whisper.cpp, sherpa-onnx, onnx), every file checked against its sha256"
    pip_install_locked run.txt python-run llama-cpp-python stable-diffusion-cpp-python
    touch "$stamp"
  fi
  # The tests' clients and the benchmarks (against the Python binding of the same libllama) run it.
  ln -sfn "$venv" "$home/engines/venv"
  say "Python packages: $venv"
}

# For the tests: the packages of tests.txt (the official openai, anthropic and ollama clients, langchain-openai, selenium,
# jsonschema, schemathesis, gguf, the MCP SDK), every file checked against its sha256.
install_test_packages() {
  local venv stamp
  venv=$(venv_dir)
  stamp="$venv/.tests-$(sha256sum "$locks/tests.txt" | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    say "installing scripts/requirements/tests.txt (openai, anthropic, ollama, langchain-openai, selenium, jsonschema, schemathesis, gguf, mcp), every file checked against its sha256"
    pip_install_locked tests.txt python-tests
    touch "$stamp"
  fi
  say "test packages: $venv"
}

# Debian's packages for running: espeak-ng (phonemes, formant voices), FFmpeg's libraries and
# headers (audio files in: MP3, FLAC, Ogg, WebM…) and Poppler's GLib library (PDF files' text).
# Poppler's headers come too, for the declaration check (as espeak-ng's do): linked as
# engines/poppler/include, with the folders they include from (pkg-config's) listed in
# engines/poppler/include-paths.
install_debian_packages() {
  local missing=()
  { [ -f /usr/include/espeak-ng/speak_lib.h ] && ls /usr/lib/*/libespeak-ng.so.1; } >/dev/null 2>&1 \
    || missing+=(libespeak-ng-dev espeak-ng-data)
  ls /usr/include/*/libavformat/avformat.h /usr/include/*/libswresample/swresample.h >/dev/null 2>&1 \
    || missing+=(libavformat-dev libavcodec-dev libswresample-dev libavutil-dev)
  { [ -f /usr/include/poppler/glib/poppler.h ] && ls /usr/lib/*/libpoppler-glib.so.8 && command -v pkg-config; } >/dev/null 2>&1 \
    || missing+=(libpoppler-glib-dev pkg-config)
  [ ${#missing[@]} -eq 0 ] || apt_install "" debian-packages "${missing[@]}"
  mkdir -p "$home/engines/espeak-ng" "$home/engines/poppler"
  ln -sfn /usr/include/espeak-ng "$home/engines/espeak-ng/include"
  ln -sfn /usr/include/poppler/glib "$home/engines/poppler/include"
  pkg-config --cflags-only-I poppler-glib | tr ' ' '\n' | sed -n 's/^-I//p' >"$home/engines/poppler/include-paths"
  say "Debian: $(debian_versions libespeak-ng-dev espeak-ng-data libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libpoppler-glib-dev)"
}

# "package version, ..." of installed Debian packages (docs/setup.md states the versions tested).
debian_versions() {
  command -v dpkg-query >/dev/null || { echo "$*"; return; }
  dpkg-query -W -f='${Package} ${Version}, ' "$@" 2>/dev/null | sed 's/, $//'
}

# Debian's packages only the tests use: the ffmpeg command, which they make audio files with;
# Chromium with its chromedriver, the browser the web app's tests drive; PostgreSQL's server,
# which the telemetry, RAG and replica tests start throwaway clusters of; and nginx, the load
# balancer the replica tests put in front of two servers with deploy/nginx.conf.
install_debian_test_packages() {
  local missing=()
  command -v ffmpeg >/dev/null || missing+=(ffmpeg)
  [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || missing+=(chromium chromium-driver)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
  [ ${#missing[@]} -eq 0 ] || apt_install "for the tests" debian-test-packages "${missing[@]}"
  say "Debian: $(debian_versions ffmpeg chromium chromium-driver postgresql nginx-light)"
}
