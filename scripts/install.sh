#!/usr/bin/env bash
# `bash scripts/install.sh [--tests]`: installs and builds, from a fresh clone, what the demo and the
# benchmark need (no argument: `npm run demo`, `npm run bench`) or the tests (--tests: `npm test`,
# `npm run coverage`), each piece only when it is missing or out of date:
#   - on Linux, from apt, system-wide (as root, or with sudo), when missing, said on stderr first:
#     tmux, zstd (dsh's session logs are zstd frames) and bubblewrap (bwrap, the first sandbox
#     backend of the harness's ctx.shell);
#   - the npm packages (`npm ci`, when package-lock.json is newer than node_modules);
#   - this machine's own build, release profile, with plain cargo (scripts/targets.mjs --host: no zig,
#     no other target), into npm/<platform>/ and ./, with the loader binding.cjs; with --tests also the
#     WebAssembly package (its Rust standard library by rustup: scripts/toolchain.sh wasm);
#   - the packed tarballs in .tmp/packs/ (scripts/pack.sh);
#   - the dsh CLI the demo and the end-to-end suite run, with Node 22 and pnpm, into e2e/node_modules
#     (from e2e/'s lockfile).
# Nothing for other platforms: `npm run test:platforms` installs that (scripts/test-platforms.sh).
# TMUX_CONTEXT_PREBUILT=1 (the hosted workflow's test jobs): the build job's binaries, downloaded into
# .tmp/artifacts/<platform>/, are laid out instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
tests=false
for arg in "$@"; do
  case $arg in --tests) tests=true ;; *) echo "install: unknown argument $arg" >&2; exit 2 ;; esac
done
command -v cargo >/dev/null || { echo "install: Rust (cargo) is required to build the addon" >&2; exit 1; }

# System packages: tmux everywhere; on Linux also zstd and bwrap (the end-to-end suite runs the
# harness's sandboxing ctx.shell with both of its Linux backends, bwrap and Landlock).
wanted=(tmux); [ "$(uname -s)" = Linux ] && wanted+=(zstd bwrap)
absent=(); for cmd in "${wanted[@]}"; do command -v "$cmd" >/dev/null || absent+=("$cmd"); done
if [ ${#absent[@]} -gt 0 ]; then
  pkgs=$(for cmd in "${absent[@]}"; do [ "$cmd" = bwrap ] && echo bubblewrap || echo "$cmd"; done | tr '\n' ' ')
  as_root=; [ "$(id -u)" = 0 ] || as_root="sudo -n"
  if [ "$(uname -s)" = Linux ] && command -v apt-get >/dev/null && { [ -z "$as_root" ] || sudo -n true 2>/dev/null; }; then
    echo "install: apt-get install (system-wide): $pkgs" >&2
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    { $as_root apt-get install -y -qq --no-install-recommends $pkgs || { $as_root apt-get update -qq && $as_root apt-get install -y -qq --no-install-recommends $pkgs; }; } >/dev/null
  else
    echo "install: please install (as root): $pkgs" >&2; exit 1
  fi
fi
npm_ready .
# The real dsh CLI (0.1.0-rc.8 with the Cordis pins it boots with), Node 22 and pnpm, from e2e/'s lockfile,
# installed while the addon builds (npm waits on the registry and the disk, cargo on the CPU).
# The scenarios install the packed tarballs into a fresh dsh profile themselves (`dsh plugin add`).
mkdir -p .tmp
(npm_ready e2e --loglevel=error >.tmp/e2e-install.log 2>&1) &
e2e=$!

# This machine's build (rebuilt only when its inputs changed), npm/<platform>/, binding.cjs; the tarballs.
if [ -n "${TMUX_CONTEXT_PREBUILT:-}" ]; then
  node scripts/targets.mjs --prebuilt
elif [ "$tests" = true ]; then
  bash scripts/toolchain.sh wasm
  node scripts/targets.mjs --host wasm32-wasip1-threads
else
  node scripts/targets.mjs --host
fi
bash scripts/pack.sh >/dev/null

wait "$e2e" || { cat .tmp/e2e-install.log >&2; echo "install: npm ci in e2e/ failed" >&2; exit 1; }
cat .tmp/e2e-install.log >&2
echo "install: ready (addon built and packed into .tmp/packs/; dsh installed in e2e/)" >&2
