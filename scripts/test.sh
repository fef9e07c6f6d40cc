#!/usr/bin/env bash
# The whole test command (`npm test`): install and build, then
#   1. cargo test: unit and property tests of the pure core;
#   2. vitest: contract, differential, real-tmux, packaging and end-to-end suites.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
cargo test --lib
npx vitest run
