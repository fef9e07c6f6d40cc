#!/usr/bin/env bash
# `bash scripts/bench-baseline.sh <commit>`: this tree's build measured against <commit>'s build in
# one run, side by side (the bench's second column becomes that build; ratios are new/old). The
# earlier commit is extracted into .tmp/baseline/ and built there (release profile); the table goes
# to stdout and bench/baseline.md. Use it to show a change keeps the speed it had.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-baseline.sh <commit>}
dir=$PWD/.tmp/baseline
rm -rf "$dir" && mkdir -p "$dir"
git archive "$(git rev-parse --verify "$base^{commit}")" | tar -x -C "$dir"
echo "bench-baseline: building $base in $dir" >&2
if [ -f "$dir/scripts/targets.mjs" ]; then
  # Built with @napi-rs/cli for this machine's platform with plain cargo (and its binding.cjs), as
  # this tree's own build (scripts/targets.mjs --host), whatever that commit's scripts did then, so
  # that both sides are built alike; with this tree's npm packages.
  ln -s "$PWD/node_modules" "$dir/node_modules"
  (cd "$dir" && CARGO_TARGET_DIR="$PWD/../baseline-target" npx napi build --platform --release --js binding.cjs --dts binding.d.ts) >&2
else
  cargo build --release --lib --manifest-path "$dir/Cargo.toml" --target-dir "$PWD/.tmp/baseline-target" >&2
  cp "$PWD/.tmp/baseline-target/release/libdsh_tmux_context.so" "$dir/dsh-tmux-context.linux-x64-gnu.node"
fi
BENCH_REFERENCE="$dir/index.js" BENCH_REFERENCE_LABEL="$(git rev-parse --short "$base")" BENCH_OUT=baseline.md BENCH_WRITE=1 \
  exec bash scripts/bench.sh
