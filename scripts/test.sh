#!/usr/bin/env bash
# The whole test command (`npm test`): install and build (the other platforms' binaries too), then
#   1. cargo fmt --check and cargo clippy (warnings are errors), then cargo test: unit and
#      property tests of the pure core;
#   2. vitest: contract, differential, compaction, robustness, real-tmux, packaging, platforms and
#      end-to-end suites (the platforms suite finds the tools install.sh installs through
#      scripts/tools-env.sh);
#   3. the contract, differential, compaction and generations suites against the WebAssembly build;
#   4. the coverage floors (scripts/coverage.sh --gate).
set -euo pipefail
cd "$(dirname "$0")/.."
case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*)
    # Windows (the hosted workflow's runner): no tmux, bwrap or dsh CLI here. This platform's own
    # build (MSVC), the Rust tests, and the suites that run against the real harness packages.
    npm ci --no-audit --no-fund
    if [ -n "${TMUX_CONTEXT_PREBUILT:-}" ]; then node scripts/targets.mjs --prebuilt; else node scripts/targets.mjs --host; fi
    cargo test --lib
    exec npx vitest run __test__/contract.test.mjs __test__/differential.test.mjs __test__/compaction.test.mjs __test__/generations.test.mjs \
      __test__/robustness.test.mjs __test__/sandbox.test.mjs __test__/place.test.mjs
    ;;
esac
bash scripts/install.sh --all-targets
. scripts/tools-env.sh
cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --lib
mkdir -p .tmp
status=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || status=$?
# 3. The contract, differential, compaction and generations suites once more, against the WebAssembly build as a
#    user installs it (the main tarball and the wasm32-wasi one, no native binary in reach), and
#    NAPI_RS_FORCE_WASI=error so nothing else can load.
wasm=$(bash scripts/wasm-consumer.sh)
TMUX_CONTEXT_PACKAGE=$wasm NAPI_RS_FORCE_WASI=error npx vitest run __test__/contract.test.mjs __test__/differential.test.mjs __test__/compaction.test.mjs __test__/generations.test.mjs \
  --reporter=default --reporter=json --outputFile=.tmp/vitest-wasm.json || status=$?
# 4. The coverage floors README lists ("Coverage"): the suites once more (not the end-to-end and
#    platforms ones) on an instrumented build of this machine's binary, and a file below its floor fails.
bash scripts/coverage.sh --gate || status=$?
# The names of the tests that skipped (they say why), then one plain closing line for both vitest runs' counts.
node -e "
  const runs = ['.tmp/vitest.json', '.tmp/vitest-wasm.json'].map((f) => JSON.parse(require('fs').readFileSync(f, 'utf8')));
  const skipped = runs.flatMap((r) => r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'pending' || a.status === 'skipped' || a.status === 'todo').map((a) => a.fullName)));
  if (skipped.length > 0) console.log('skipped:\\n' + skipped.map((n) => '  - ' + n).join('\\n'));
  const sum = (k) => runs.reduce((n, r) => n + r[k], 0);
  console.log('vitest: ' + sum('numPassedTests') + ' passed, ' + sum('numFailedTests') + ' failed, ' + (sum('numPendingTests') + sum('numTodoTests')) + ' skipped');
" || true
exit $status
