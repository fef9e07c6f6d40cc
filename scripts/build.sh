#!/usr/bin/env bash
# `npm run build` (this machine's platform: --host), `npm run build:all` (every target of
# napi.targets) and `npm run tarballs` (then scripts/pack.sh): the npm packages when missing, the
# build tools when missing (scripts/toolchain.sh --build: rust targets, zig and cargo-zigbuild from
# PyPI; no apt packages), then scripts/targets.mjs with the same arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
npm_ready .
case " $* " in *" --host "*) bash scripts/toolchain.sh --build --host ;; *) bash scripts/toolchain.sh --build ;; esac
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
exec node scripts/targets.mjs "$@"
