#!/usr/bin/env bash
# `npm run coverage [-- --gate]`: line coverage of src/ (cargo-llvm-cov) and of index.js and
# invariant.js and loader-errors.cjs (V8), over `cargo test --lib` and the vitest suites, run against an instrumented build
# of this machine's binary (Linux x64 only), child processes included:
#   - Rust: the binary is built with -C instrument-coverage and continuous profile files
#     (LLVM_PROFILE_FILE with %c, -runtime-counter-relocation): vitest's fork workers and the tmux
#     pane probes are killed rather than exiting, and continuous mode writes as it runs. The
#     tarballs the packaging and end-to-end suites install are packed from it, so their child
#     processes count too (they inherit LLVM_PROFILE_FILE).
#   - JS: @vitest/coverage-v8 in vitest's workers; NODE_V8_COVERAGE in every child process (set by
#     __test__/setup.mjs from TMUX_CONTEXT_V8_COVERAGE, as vitest keeps it out of its workers), whose
#     installed copies of the two files are mapped back to this checkout (they are the same bytes).
# Prints cargo llvm-cov's per-file table (with TOTAL) and a per-file V8 table, then checks the floors
# that README lists ("Coverage"); --gate (npm test) leaves out the end-to-end suite too, which reaches
# no line the others do not, and fails on a file below its floor. Installs
# llvm-tools-preview and cargo-llvm-cov when missing. The release build is laid out again at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
gate=; [ "${1:-}" = --gate ] && gate=1
[ "$(uname -sm)" = "Linux x86_64" ] || { echo "coverage: measured on Linux x64 only" >&2; exit 0; }
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
npm_ready .
rustup component list --installed 2>/dev/null | grep -q '^llvm-tools' || rustup component add llvm-tools-preview
command -v cargo-llvm-cov >/dev/null || cargo install cargo-llvm-cov --locked --version 0.9.1
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh

out=$PWD/.tmp/coverage
rm -rf "$out" && mkdir -p "$out/v8"
eval "$(cargo llvm-cov show-env --sh 2>/dev/null)"
export __CARGO_LLVM_COV_RUSTC_WRAPPER_RUSTFLAGS="$__CARGO_LLVM_COV_RUSTC_WRAPPER_RUSTFLAGS"$'\x1f-C\x1fllvm-args=-runtime-counter-relocation'
export LLVM_PROFILE_FILE="$CARGO_LLVM_COV_TARGET_DIR/dsh-tmux-context-%c%p-%m.profraw"
cargo llvm-cov clean --workspace >/dev/null 2>&1
cargo test --lib --quiet
cargo build --lib --quiet
node=dsh-tmux-context.linux-x64-gnu.node
cp "$CARGO_LLVM_COV_TARGET_DIR/debug/libdsh_tmux_context.so" "$node"
cp "$node" "npm/linux-x64-gnu/$node"
# The release build's own steps may still load the instrumented binary: their counts go to $out too.
restore() { unset RUSTC_WRAPPER; export LLVM_PROFILE_FILE=$out/restore-%p.profraw; node scripts/targets.mjs --host >/dev/null && bash scripts/pack.sh >/dev/null; }
trap restore EXIT
bash scripts/pack.sh >/dev/null

# Not the platforms suite: it checks the release binaries themselves (glibc floor, the other
# platforms' readings against this one's), which an instrumented build is not.
mapfile -t suites < <(ls __test__/*.test.mjs | grep -v -e platforms.test ${gate:+-e e2e.test})
status=0
TMUX_CONTEXT_V8_COVERAGE=$out/v8 npx vitest run "${suites[@]}" --coverage.enabled --coverage.provider=v8 \
  --coverage.include=index.js --coverage.include=invariant.js --coverage.include=loader-errors.cjs \
  --coverage.reporter=json --coverage.reportsDirectory="$out/vitest" --coverage.reportOnFailure --reporter=default >"$out/vitest.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || { tail -40 "$out/vitest.log" >&2; echo "coverage: the suites failed (exit $status); .tmp/coverage/vitest.log" >&2; }

cargo llvm-cov report --ignore-filename-regex '/(\.cargo|rustc)/' | tee "$out/rust.txt"
cargo llvm-cov report --ignore-filename-regex '/(\.cargo|rustc)/' --json --summary-only --output-path "$out/rust.json"
node scripts/coverage-report.mjs "$out" ${gate:+--gate} || status=$?
exit "$status"
