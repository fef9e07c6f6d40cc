#!/usr/bin/env bash
# The whole test command (`npm test`): install and build (the six platform binaries too), then
#   1. cargo fmt --check and cargo clippy (warnings are errors), then cargo test: unit and
#      property tests of the pure core;
#   2. vitest: contract, differential, robustness, real-tmux, packaging, platforms and end-to-end
#      suites (the platforms suite finds the tools install.sh installs through scripts/tools-env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --all-targets
. scripts/tools-env.sh
cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --lib
mkdir -p .tmp
status=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || status=$?
# One plain closing line for both runners' counts.
node -e "
  const r = JSON.parse(require('fs').readFileSync('.tmp/vitest.json', 'utf8'));
  console.log('vitest: ' + r.numPassedTests + ' passed, ' + r.numFailedTests + ' failed, ' + (r.numPendingTests + r.numTodoTests) + ' skipped');
" || true
exit $status
