#!/usr/bin/env bash
# Installs and builds everything the tests, the demo and the benchmark need, from a fresh clone:
# npm packages (root and e2e/, each only when its lockfile is newer than its install), the native
# addon (release profile), the packed tarballs, and the packed install into e2e/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
need_ci() { [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; }
command -v tmux >/dev/null || { echo "install: tmux is required (apt-get install tmux)" >&2; exit 1; }
command -v cargo >/dev/null || { echo "install: Rust (cargo) is required to build the addon" >&2; exit 1; }
if need_ci .; then npm ci --no-audit --no-fund; fi
node scripts/build.mjs
bash scripts/pack.sh >/dev/null
if need_ci e2e; then (cd e2e && npm ci --no-audit --no-fund); fi
# The packed install: the tarballs npm would publish, installed by name next to the composition.
(cd e2e && npm install --no-save --no-audit --no-fund ../.tmp/packs/dsh-tmux-context.tgz ../.tmp/packs/dsh-tmux-context-linux-x64-gnu.tgz >/dev/null)
echo "install: ready (addon built, packed and installed into e2e/)"
