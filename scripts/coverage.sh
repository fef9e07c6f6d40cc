#!/usr/bin/env bash
# `npm run coverage [-- --gate]`: line coverage of src/ (cargo-llvm-cov) and of index.js,
# invariant.js and loader-errors.cjs (V8), over `cargo test --lib` and every vitest suite but the
# platforms one, run against an instrumented build of this machine's binary (Linux x64 only), child
# processes included:
#   - Rust: the binary is built with -C instrument-coverage (debug profile) and continuous profile
#     files (LLVM_PROFILE_FILE with %c, -runtime-counter-relocation): vitest's fork workers and the
#     tmux pane probes are killed rather than exiting, and continuous mode writes as it runs. The
#     tarballs the packaging and end-to-end suites install are packed from it, so their child
#     processes count too (they inherit LLVM_PROFILE_FILE).
#   - JS: @vitest/coverage-v8 in vitest's workers; NODE_V8_COVERAGE in every child process (set by
#     __test__/setup.mjs from TMUX_CONTEXT_V8_COVERAGE, as vitest keeps it out of its workers), whose
#     installed copies of the files are mapped back to this checkout (they are the same bytes).
# The suites' own output shows as they run (and vitest's JSON report goes to .tmp/vitest.json); then
# cargo llvm-cov's per-file table (with TOTAL) and a per-file V8 table, and the floors that docs/maintainers.md
# lists ("Coverage") are checked. Fails when a suite fails; --gate (npm test, whose one run of the
# suites this is) also when a file is below its floor.
# Stands alone from a fresh clone: it first installs what the suites need (scripts/install.sh
# --tests: npm packages, this machine's build and the WebAssembly one, the tarballs, the dsh CLI in
# e2e/; skipped when npm test has just done it, TMUX_CONTEXT_INSTALLED=1), then llvm-tools-preview
# and cargo-llvm-cov when missing (scripts/toolchain.sh coverage). The release build is laid out and
# packed again at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
gate=; [ "${1:-}" = --gate ] && gate=1
[ "$(uname -sm)" = "Linux x86_64" ] || { echo "coverage: measured on Linux x64 only" >&2; exit 0; }
[ -n "${TMUX_CONTEXT_INSTALLED:-}" ] || bash scripts/install.sh --tests
bash scripts/toolchain.sh coverage
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh

out=$PWD/.tmp/coverage
rm -rf "$out" .tmp/cargo-test.txt && mkdir -p "$out/v8"
eval "$(cargo llvm-cov show-env --sh 2>/dev/null)"
export __CARGO_LLVM_COV_RUSTC_WRAPPER_RUSTFLAGS="$__CARGO_LLVM_COV_RUSTC_WRAPPER_RUSTFLAGS"$'\x1f-C\x1fllvm-args=-runtime-counter-relocation'
export LLVM_PROFILE_FILE="$CARGO_LLVM_COV_TARGET_DIR/dsh-tmux-context-%c%p-%m.profraw"
cargo llvm-cov clean --workspace >/dev/null 2>&1
# Its output, whose `test result:` line npm test's closing summary counts, also in .tmp/cargo-test.txt.
cargo test --lib --quiet 2>&1 | tee .tmp/cargo-test.txt
cargo build --lib --quiet
node=dsh-tmux-context.linux-x64-gnu.node
cp "$CARGO_LLVM_COV_TARGET_DIR/debug/libdsh_tmux_context.so" "$node"
cp "$node" "npm/linux-x64-gnu/$node"
# The release build's own steps may still load the instrumented binary: their counts go to $out too.
restore() {
  unset RUSTC_WRAPPER
  export LLVM_PROFILE_FILE=$out/restore-%p.profraw
  node scripts/targets.mjs "$([ -n "${TMUX_CONTEXT_PREBUILT:-}" ] && echo --prebuilt || echo --host)" && bash scripts/pack.sh >/dev/null
}
trap restore EXIT
bash scripts/pack.sh >/dev/null

# Every suite but the platforms one (vitest.config.mjs; `npm run test:platforms`): it checks the
# shipped binaries of every target, which an instrumented build is not.
status=0
TMUX_CONTEXT_V8_COVERAGE=$out/v8 npx vitest run --coverage.enabled --coverage.provider=v8 \
  --coverage.include=index.js --coverage.include=invariant.js --coverage.include=loader-errors.cjs \
  --coverage.reporter=json --coverage.reportsDirectory="$out/vitest" --coverage.reportOnFailure \
  --reporter=default --reporter=json --outputFile=.tmp/vitest.json 2>&1 | tee "$out/vitest.log" || status=$?
[ "$status" -eq 0 ] || echo "coverage: a suite failed (exit $status; the summary at the end names the test; output: .tmp/coverage/vitest.log); the floors below are checked all the same" >&2

cargo llvm-cov report --ignore-filename-regex '/(\.cargo|rustc)/' | tee "$out/rust.txt"
cargo llvm-cov report --ignore-filename-regex '/(\.cargo|rustc)/' --json --summary-only --output-path "$out/rust.json"
# The gate's verdict, for npm test's closing summary: $out/gate.tsv, `gate<TAB>passed|failed<TAB>why`.
gated=0
node scripts/coverage-report.mjs "$out" ${gate:+--gate} 2>&1 | tee "$out/report.txt" || gated=$?
why=$(grep '^coverage: ' "$out/report.txt" | tail -1)
printf 'gate\t%s\t%s\n' "$([ "$gated" -eq 0 ] && echo passed || echo failed)" "${why#coverage: }" > "$out/gate.tsv"
[ "$gated" -eq 0 ] || status=$gated
exit "$status"
