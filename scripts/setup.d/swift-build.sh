# Sourced by scripts/setup. The Swift build (--build).
# shellcheck shell=bash

# The Swift build (--build), started in the background right after the Debian packages, so that it
# runs beside the engine builds: started by start_swift_build, waited for by finish_swift_build.
swift=${SWIFT:-swift}
swift_pid=""
swift_log="$home/logs/swift-build-$build.log"

start_swift_build() {
  [ -n "$build" ] || return 0
  if [ "$build" = release ]; then
    say "the release build of the runanywhere CLI starts now, beside the engine builds (log: $swift_log)"
    (cd "$repo" && exec "$swift" build -c release --product runanywhere) >"$swift_log" 2>&1 &
  else
    say "the debug build of the package and its tests starts now, beside the engine builds (log: $swift_log)"
    (cd "$repo" && exec "$swift" build --build-tests) >"$swift_log" 2>&1 &
  fi
  swift_pid=$!
}

stop_swift_build() { [ -z "$swift_pid" ] || kill "$swift_pid" 2>/dev/null || true; }

finish_swift_build() {
  local rc=0
  wait "$swift_pid" || rc=$?
  swift_pid=""
  if [ "$rc" != 0 ]; then
    tail -n 40 "$swift_log" >&2
    die "the Swift build failed; the full log is $swift_log"
  fi
  say "$(grep -E '^(Build complete|Compiling|Build of)' "$swift_log" | tail -n 1)"
}
