#!/usr/bin/env bash
# Installs and builds everything the tests, the demo and the benchmark need, from a fresh clone:
# npm packages (root and e2e/, each only when its lockfile is newer than its install), the tools
# that build and check the platform binaries, the binaries themselves (release profile, with
# @napi-rs/cli): this machine's platform, or with --all-targets (npm test) all eleven native targets, the packed
# tarballs, and the dsh CLI the e2e runs (e2e/node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
command -v tmux >/dev/null || { echo "install: tmux is required (apt-get install tmux)" >&2; exit 1; }
command -v cargo >/dev/null || { echo "install: Rust (cargo) is required to build the addon" >&2; exit 1; }
# The e2e runs the harness's sandboxing ctx.shell with both of its Linux backends, bwrap and Landlock;
# bwrap comes from Debian's bubblewrap (CI starts without it). Installed only when missing.
if [ "$(uname -s)" = Linux ] && ! command -v bwrap >/dev/null; then
  command -v apt-get >/dev/null || { echo "install: bwrap is required on Linux (install bubblewrap)" >&2; exit 1; }
  as_root=; [ "$(id -u)" -eq 0 ] || as_root=sudo
  [ -z "$as_root" ] || command -v sudo >/dev/null || { echo "install: bwrap is required: apt-get install bubblewrap (as root)" >&2; exit 1; }
  export DEBIAN_FRONTEND=noninteractive
  echo "install: apt-get install bubblewrap" >&2
  $as_root apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null 2>&1 ||
    { $as_root apt-get update -qq && $as_root apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null; }
fi
npm_ready .

# ---- platform toolchain and binaries (issue 8) ----
bash scripts/toolchain.sh
. scripts/tools-env.sh
# The binaries (each rebuilt only when its inputs changed), npm/<platform>/, binding.cjs; the tarballs.
# TMUX_CONTEXT_PREBUILT=1 (the hosted workflow's test jobs): the build job's binaries, downloaded
# into .tmp/artifacts/<platform>/, instead of building.
if [ -n "${TMUX_CONTEXT_PREBUILT:-}" ]; then node scripts/targets.mjs --prebuilt
elif [ "${1:-}" = --all-targets ]; then node scripts/targets.mjs; else node scripts/targets.mjs --host; fi
bash scripts/pack.sh >/dev/null
# ---- end of platform toolchain ----

# The real dsh CLI (0.1.0-rc.8 with the Cordis pins it boots with), Node 22 and pnpm, from e2e/'s lockfile.
# The scenarios install the packed tarballs into a fresh dsh profile themselves (`dsh plugin add`).
npm_ready e2e --loglevel=error
echo "install: ready (addon built and packed into .tmp/packs/; dsh installed in e2e/)"
