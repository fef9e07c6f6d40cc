#!/usr/bin/env bash
# `npm run bench`: the native package and the JS reference (devDependency `dsh-tmux-context-js`)
# measured side by side in one run; the Markdown table goes to stdout and, with the machine facts,
# to .tmp/bench-results.md (bench/results.md with --write). Progress goes to stderr. What each row measures: bench/README.md.
#   BENCH_SKIP_BUILD=1  measure the .node as it is (default: `scripts/install.sh`, which rebuilds
#                       the release addons only when their inputs changed)
#   BENCH_QUICK=1       few iterations: a smoke run of the bench itself, not numbers to quote
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
npm_ready . >&2
command -v tmux >/dev/null || echo "bench: tmux not found; the real-pane rows will be skipped (apt-get install tmux)" >&2
if ! command -v strace >/dev/null; then
  # The process count traces each command; install strace where we can (root with apt-get).
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { apt-get install -y -qq strace || { apt-get update -qq && apt-get install -y -qq strace; }; } >&2 || true
  fi
  command -v strace >/dev/null || echo "bench: strace not found; processes per query will not be counted" >&2
fi
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then bash scripts/install.sh >&2; fi
exec node --expose-gc bench/run.mjs "$@"
