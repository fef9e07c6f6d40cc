#!/usr/bin/env bash
# Packs the package and its platform binary package into .tmp/packs/ under stable names:
#   dsh-tmux-context.tgz, dsh-tmux-context-<triple>.tgz
# Expects a built binary (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
triple=linux-x64-gnu
[ -f "npm/$triple/dsh-tmux-context.$triple.node" ] || { echo "pack: no built binary in npm/$triple (run npm run build)" >&2; exit 1; }
out=.tmp/packs
rm -rf "$out" && mkdir -p "$out"
main=$(npm pack --silent --pack-destination "$out" . | tail -n 1)
platform=$(cd "npm/$triple" && npm pack --silent --pack-destination "../../$out" . | tail -n 1)
mv "$out/$main" "$out/dsh-tmux-context.tgz"
mv "$out/$platform" "$out/dsh-tmux-context-$triple.tgz"
ls -l "$out"
