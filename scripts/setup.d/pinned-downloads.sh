# Sourced by scripts/setup. Pinned downloads: the locks in scripts/requirements/ (every PyPI file
# pinned by version and sha256), pip from them into the venv, builds by pip of a pinned source tree,
# and Debian's apt-get.
# shellcheck shell=bash

# The locks (scripts/requirements/): every file downloaded from PyPI, pinned by version and sha256.
locks="$repo/scripts/requirements"

# The entry of package $2 in lock $1: its name==version line and its --hash lines.
lock_entry() {
  awk -v name="$2" '$0 ~ "^" name "==" {on = 1} on {print; if ($0 !~ /\\$/) exit}' "$locks/$1"
}

# The version lock $1 pins package $2 at.
lock_version() {
  local version
  version=$(lock_entry "$1" "$2" | sed -n '1s/^[^=]*==\([^ ]*\).*/\1/p')
  [ -n "$version" ] || die "scripts/requirements/$1 pins no $2"
  echo "$version"
}

# Stops unless file $1 has a sha256 that lock $2 lists for package $3; a mismatching file is deleted,
# so that the next run downloads it again.
verify_pinned() {
  local file=$1 lock=$2 name=$3 got
  got=$(sha256sum "$file" | cut -d' ' -f1)
  lock_entry "$lock" "$name" | grep -q "sha256:$got" && return 0
  rm -f "$file"
  die "$(basename "$file") has sha256 $got, which scripts/requirements/$lock does not list for $name; it was deleted (run set-up again to download it afresh)"
}

# pip install, in the venv, of every entry of lock $1 but the names after it, each file checked against
# its sha256 (the lock lists every dependency, so pip resolves nothing itself); output to log $2.
pip_install_locked() {
  local lock=$1 log="$home/logs/$2.log" req
  shift 2
  req=$(mktemp)
  awk -v skip=" $* " '/^[a-z0-9]/ {split($1, pin, "=="); on = index(skip, " " pin[1] " ") == 0} on' "$locks/$lock" >"$req"
  if ! "$(venv_dir)/bin/pip" install --disable-pip-version-check --no-cache-dir --require-hashes --no-deps -r "$req" >"$log" 2>&1; then
    rm -f "$req"
    if grep -q "DO NOT MATCH THE HASHES" "$log"; then
      grep -A6 "DO NOT MATCH THE HASHES" "$log" >&2
      die "a download does not match the sha256 pinned in scripts/requirements/$lock; nothing from it was installed (log: $log)"
    fi
    tail -n 20 "$log" >&2
    die "pip could not install scripts/requirements/$lock; see $log"
  fi
  rm -f "$req"
}

# Downloads package $2's wheel for this machine, pinned in lock $1, into $3 and prints its path:
# pip checks a download against the lock's sha256 values, verify_pinned a file found in $3.
# Returns 1 where PyPI has no wheel for this machine, and exits 3 (with a message) on a mismatch.
fetch_locked_wheel() {
  local lock=$1 name=$2 dest=$3 req log="$home/logs/download-$2.log" pattern version cached
  version=$(lock_version "$lock" "$name")
  pattern="$(echo "$name" | tr -- '-.' '__')-$version-*.whl"
  if cached=$(ls "$dest"/$pattern 2>/dev/null | head -n 1) && [ -n "$cached" ]; then
    verify_pinned "$cached" "$lock" "$name"
  else
    say "downloading $name $version from PyPI" >&2
    mkdir -p "$dest"
    req=$(mktemp)
    lock_entry "$lock" "$name" >"$req"
    if ! "$(venv_dir)/bin/pip" download --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$req" -d "$dest" >"$log" 2>&1; then
      rm -f "$req"
      if grep -A6 "DO NOT MATCH THE HASHES" "$log" >&2; then
        printf '[setup] error: %s\n' "the download of $name does not match the sha256 pinned in scripts/requirements/$lock; nothing was kept (log: $log)" >&2
        exit 3
      fi
      return 1
    fi
    rm -f "$req"
  fi
  ls "$dest"/$pattern | head -n 1
}

# Downloads package $2's source distribution, pinned in lock $1, into $home/downloads/pypi-sdist
# and prints its path: scripts/requirements/fetch-sdist checks a download (and runs nothing from
# it), verify_pinned a file found there.
fetch_locked_sdist() {
  local lock=$1 name=$2 dest="$home/downloads/pypi-sdist" file version
  version=$(lock_version "$lock" "$name")
  file=$(ls "$dest/$(echo "$name" | tr -- '-.' '__')-$version.tar.gz" "$dest/$name-$version.tar.gz" 2>/dev/null | head -n 1 || true)
  if [ -n "$file" ]; then
    verify_pinned "$file" "$lock" "$name"
  else
    say "downloading the $name $version source distribution" >&2
    file=$("$python" "$locks/fetch-sdist" "$locks/$lock" "$name" "$dest") || die "could not download the $name source distribution (see above)"
  fi
  echo "$file"
}

venv_dir() {
  local pyver
  pyver=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  echo "$home/venv-py$pyver-$(cpu_key)"
}

# pip building a pinned source tree ($2) into the venv or a --target (further arguments), with the
# build tools the venv has from run.txt (no isolated build environment, no dependencies fetched).
pip_build() {
  local log=$1 src=$2
  shift 2
  PATH="$(venv_dir)/bin:$PATH" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$(venv_dir)/bin/pip" install --disable-pip-version-check \
    --no-cache-dir --no-build-isolation --no-deps "$@" "$src" >"$log" 2>&1
}

# Installs Debian packages (as root, with apt-get), logging to $home/logs/LOG.log; otherwise
# says which to install. Usage: apt_install PURPOSE LOG PACKAGE...
apt_install() {
  local purpose=$1 log="$home/logs/$2.log"
  shift 2
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
    || die "these Debian packages are needed${purpose:+ $purpose}: run 'sudo apt-get install $*' and try again"
  say "installing from Debian${purpose:+ $purpose}: $*"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1 \
    || die "apt-get could not install $*; see $log"
}
