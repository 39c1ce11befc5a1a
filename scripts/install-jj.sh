#!/usr/bin/env bash
# Installs the pinned jj that `npm run test:jj` runs against, into a per-user cache
# outside the clone so later clones and CI runs on this machine reuse it:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/sourcesteward/jj-<version>/bin/jj
# Idempotent: when that binary already reports the pinned version, nothing is built.
# Prints the binary's absolute path on stdout (and nothing else there).
# The first build compiles jj from crates.io with cargo (about 18 minutes of CPU on a
# loaded 2-core machine); it needs a Rust toolchain, which `npm test` never does.
set -euo pipefail

JJ_VERSION=0.45.1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/sourcesteward"
root="$cache_root/jj-$JJ_VERSION"
bin="$root/bin/jj"

installed_version() {
  [ -x "$bin" ] || return 1
  "$bin" --version 2>/dev/null | head -n1
}

if [ "$(installed_version || true)" = "jj $JJ_VERSION" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "install-jj: cargo not found; jj $JJ_VERSION is built from source (install Rust with rustup, or put a jj $JJ_VERSION at $bin)" >&2
  exit 1
fi

mkdir -p "$cache_root"
echo "install-jj: building jj $JJ_VERSION into $root (the first build takes many minutes)" >&2
cargo install --locked jj-cli --version "$JJ_VERSION" --root "$root" \
  --no-default-features --features git >&2

found="$(installed_version || true)"
if [ "$found" != "jj $JJ_VERSION" ]; then
  echo "install-jj: $bin reports '${found:-nothing}', expected 'jj $JJ_VERSION'" >&2
  exit 1
fi
echo "$bin"
