#!/usr/bin/env bash
# Installs the packed main package and the WebAssembly package (.tmp/packs/, `npm run tarballs`) into
# .tmp/wasm-consumer/ as a user's node_modules would hold them, with no native binary package, and
# prints the main package's directory (for TMUX_CONTEXT_PACKAGE, __test__/harness.mjs). The wasm
# package's runtime dependencies (@napi-rs/wasm-runtime, @emnapi/*, @tybys/wasm-util) and schemastery
# are linked from this checkout's node_modules, where package.json pins the same versions.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$PWD/.tmp/wasm-consumer
scope=$dir/node_modules/@deepseek-ai
rm -rf "$dir" && mkdir -p "$scope/dsh-tmux-context" "$scope/dsh-tmux-context-wasm32-wasi"
tar -xzf .tmp/packs/dsh-tmux-context.tgz --strip-components=1 -C "$scope/dsh-tmux-context"
tar -xzf .tmp/packs/dsh-tmux-context-wasm32-wasi.tgz --strip-components=1 -C "$scope/dsh-tmux-context-wasm32-wasi"
for d in @napi-rs @emnapi @tybys; do ln -s "$PWD/node_modules/$d" "$dir/node_modules/$d"; done
ln -s "$PWD/node_modules/@deepseek-ai/schemastery" "$scope/schemastery"
ln -s "$PWD/node_modules/fastest-levenshtein" "$dir/node_modules/fastest-levenshtein"
echo "$scope/dsh-tmux-context"
