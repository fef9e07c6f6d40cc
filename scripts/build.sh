#!/usr/bin/env bash
# `npm run build` (--host: this machine's own build, plain cargo, nothing to install but the npm
# packages), `npm run build:all` (every target of napi.targets, as shipped) and `npm run tarballs`
# (then scripts/pack.sh): the npm packages when missing, for a build of other targets the tools it
# needs when missing (scripts/toolchain.sh cross: Rust targets, zig and cargo-zigbuild from PyPI; no
# apt packages), then scripts/targets.mjs with the same arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
npm_ready .
# Only --host (and --force): nothing to install; any other target, or all of them: the cross tools.
host_only=false
for arg in "$@"; do case $arg in --host) host_only=true ;; --force) ;; *) host_only=false; break ;; esac; done
[ "$host_only" = true ] || bash scripts/toolchain.sh cross
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
exec node scripts/targets.mjs "$@"
