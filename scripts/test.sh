#!/usr/bin/env bash
# The test command (`npm test`): this machine's build and everything that runs against it; nothing
# for other platforms (`npm run test:platforms`, scripts/test-platforms.sh, has the cross builds, the
# emulated runs and the header checks). First scripts/install.sh --tests (tmux, zstd and bubblewrap
# from apt when missing, npm packages, this machine's release build with plain cargo, the
# WebAssembly build and its Rust target, the tarballs, the dsh CLI in e2e/), then
#   1. cargo fmt --check and cargo clippy (warnings are errors), each recorded for the summary;
#   2. on Linux x64, scripts/coverage.sh --gate: cargo test (unit and property tests of the pure
#      core), then every vitest suite but the platforms one (vitest.config.mjs: contract,
#      differential, compaction, generations, robustness, sandbox, place, scan, real-tmux, packaging
#      and end-to-end, against the real harness packages, real tmux and the real dsh CLI), once, on
#      an instrumented build of this machine's binary, which gives the coverage floors docs/maintainers.md lists
#      from that same run (a file below its floor fails); then the contract and differential suites
#      once more against the release build the demo installs (coverage.sh lays it out again).
#      Elsewhere (the hosted macOS and Linux arm64 runners), cargo test and the same suites on the
#      release build;
#   3. the contract, differential, compaction and generations suites against the WebAssembly build;
#   4. a closing summary (scripts/vitest-summary.mjs): fmt, clippy, the Rust tests, each vitest pass
#      with the build it ran (each pass fails when that is not the build it built: __test__/build.mjs),
#      the coverage gate, the skips by reason, and the line `N passed, N failed, N skipped`.
# About 5 minutes from a fresh clone on 2 cores, about 4 once everything is installed and built.
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
bash scripts/install.sh --tests
export TMUX_CONTEXT_INSTALLED=1
mkdir -p .tmp
rm -f .tmp/vitest*.json .tmp/cargo-test.txt .tmp/coverage/gate.tsv
# What ran and how it ended, for the closing summary: `<name>\t<passed|failed>\t<what>` a line.
steps=.tmp/test-steps.tsv
: > "$steps"
status=0
check() {
  local name=$1 what=$2
  shift 2
  if "$@"; then printf '%s\tpassed\t%s\n' "$name" "$what" >> "$steps"; else printf '%s\tfailed\t%s\n' "$name" "$what" >> "$steps"; status=1; fi
}
check fmt 'cargo fmt --check' cargo fmt --check
check clippy 'cargo clippy --all-targets -- -D warnings' cargo clippy --all-targets --quiet -- -D warnings
reports=(.tmp/vitest.json)
if [ "$(uname -sm)" = "Linux x86_64" ]; then
  bash scripts/coverage.sh --gate || status=$?
  [ -f .tmp/coverage/gate.tsv ] && cat .tmp/coverage/gate.tsv >> "$steps"
  npx vitest run __test__/contract.test.mjs __test__/differential.test.mjs \
    --reporter=default --reporter=json --outputFile=.tmp/vitest-release.json || status=$?
  reports+=(.tmp/vitest-release.json)
else
  cargo test --lib 2>&1 | tee .tmp/cargo-test.txt || status=$?
  npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || status=$?
fi
# 3. The contract, differential, compaction and generations suites once more, against the WebAssembly build as a
#    user installs it (the main tarball and the wasm32-wasi one, no native binary in reach), and
#    NAPI_RS_FORCE_WASI=error so nothing else can load. Node marks its WASI as experimental and says so
#    once per process that loads it: that warning, which says nothing about this package, is off for this pass.
wasm=$(bash scripts/wasm-consumer.sh)
echo "WebAssembly pass: Node's 'ExperimentalWarning: WASI is an experimental feature' is off for it (NODE_OPTIONS=--disable-warning=ExperimentalWarning)"
TMUX_CONTEXT_PACKAGE=$wasm NAPI_RS_FORCE_WASI=error NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--disable-warning=ExperimentalWarning" \
  npx vitest run __test__/contract.test.mjs __test__/differential.test.mjs __test__/compaction.test.mjs __test__/generations.test.mjs \
  --reporter=default --reporter=json --outputFile=.tmp/vitest-wasm.json || status=$?
reports+=(.tmp/vitest-wasm.json)
# What it did: fmt and clippy, the Rust tests, each vitest pass with the build it ran, the coverage gate,
# the skips by reason; then one plain closing line, `N passed, N failed, N skipped` (CI reads it).
echo
echo "npm test: what it did, in $((SECONDS / 60)) min $((SECONDS % 60)) s"
node scripts/vitest-summary.mjs --steps "$steps" --cargo .tmp/cargo-test.txt "${reports[@]}" || true
exit $status
