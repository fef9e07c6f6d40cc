#!/usr/bin/env bash
# `npm run test:platforms`: every target of napi.targets built as it ships, and checked from the
# binaries themselves and, where this machine can run them, run (__test__/platforms.test.mjs):
#   - the cross builds (scripts/targets.mjs with no argument: Linux glibc against the glibc 2.17
#     floor through cargo-zigbuild and zig, musl, macOS, Windows as the GNU twins, FreeBSD, riscv64,
#     WebAssembly), then the tarballs (scripts/pack.sh);
#   - the header checks: ELF (readelf, objdump: glibc floor, no glibc for musl, FreeBSD libc), PE
#     (llvm-objdump: nothing of Node imported), Mach-O (llvm-objdump, llvm-nm: minimum macOS, dynamic
#     N-API lookup, code signature), the WebAssembly module;
#   - the emulated runs, on x86_64 Linux: one first step of the packed package with Node for each
#     platform, linux-arm64-gnu and linux-arm-gnueabihf under qemu-user, the WebAssembly package on
#     ppc64le under qemu-user, win32-x64-msvc under Wine, each giving the reading x64 gives;
#   - the hosted workflow passing actionlint.
# It installs what it needs when missing (scripts/toolchain.sh platforms: the Rust targets by rustup;
# zig, cargo-zigbuild and actionlint from PyPI and Node for the emulated platforms from npm, into
# $DSH_TOOLS; from apt, system-wide, as root or with sudo: binutils, llvm, shellcheck, qemu-user-static,
# wine64 and the arm64, armhf and ppc64el runtimes), saying on stderr what before installing it.
# TMUX_CONTEXT_PREBUILT=1 (the hosted workflow): the build job's binaries in .tmp/artifacts/<platform>/
# are laid out instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-ready.sh
. scripts/npm-ready.sh
npm_ready .
bash scripts/toolchain.sh platforms
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
if [ -n "${TMUX_CONTEXT_PREBUILT:-}" ]; then node scripts/targets.mjs --prebuilt; else node scripts/targets.mjs; fi
bash scripts/pack.sh >/dev/null
mkdir -p .tmp
rm -f .tmp/vitest-platforms.json
status=0
npx vitest run --config vitest.platforms.config.mjs --reporter=default --reporter=json --outputFile=.tmp/vitest-platforms.json || status=$?
node scripts/vitest-summary.mjs .tmp/vitest-platforms.json || true
exit $status
