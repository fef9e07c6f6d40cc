#!/usr/bin/env bash
# `bash scripts/callgrind.sh [package dir or index.js ...]`: instructions per pre-step (valgrind
# callgrind, bench/callgrind.mjs), rows cached and append at 1 000 events, for each package given
# (default: this checkout). Deterministic where the bench's times move ±15 % between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "callgrind: valgrind is required (apt-get install valgrind)" >&2; exit 1; }
steps=${CALLGRIND_STEPS:-1000}
out=$PWD/.tmp/callgrind && mkdir -p "$out"
instructions() { # <package> <row> <steps>
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$out/run.out" \
    node --single-threaded --max-semi-space-size=64 bench/callgrind.mjs "$@" >/dev/null 2>"$out/valgrind.log" ||
    { cat "$out/valgrind.log" >&2; exit 1; }
  sed -n 's/^summary: //p' "$out/run.out"
}
[ $# -gt 0 ] || set -- index.js
echo "| package | row | instructions per pre-step |"
echo "|---|---|---:|"
for pkg in "$@"; do
  [ -d "$pkg" ] && pkg=$pkg/index.js
  for row in ${CALLGRIND_ROWS:-cached append}; do
    with=$(instructions "$pkg" "$row" "$steps")
    without=$(instructions "$pkg" "$row" 0)
    echo "| $pkg | $row | $(( (with - without) / steps )) |"
  done
done
