#!/usr/bin/env bash
# Packs the package and its platform binary packages into .tmp/packs/ under stable names:
#   dsh-tmux-context.tgz, dsh-tmux-context-<platform>.tgz (one per built target of napi.targets,
#   wasm32-wasi included)
# The packed package.json gains `optionalDependencies` on the platform packages of every target
# from `napi pre-publish` itself (without publishing anything), run on a staged copy: the
# repository's package.json keeps none, as its lockfile must not name packages that are not on the
# registry. Packs the binaries that are built
# (`npm run build`: this machine's; `npm run build:all`: all of them; `npm run tarballs` does both;
# scripts/install.sh --tests: this machine's and the WebAssembly one).
set -euo pipefail
cd "$(dirname "$0")/.."
platforms=$(node -e "import('@napi-rs/cli').then(async ({ readNapiConfig }) => console.log((await readNapiConfig('package.json')).targets.map((t) => t.platformArchABI).join(' ')))")
built="" unbuilt=""
for p in $platforms; do
  # Each platform package's main file: its .node, or for wasm32-wasi the loader beside its .wasm.
  main=$(node -p "require('./npm/$p/package.json').main")
  if [ -f "npm/$p/$main" ]; then built="$built $p"; else unbuilt="$unbuilt $p"; fi
done
[ -z "$unbuilt" ] || echo "pack: not built here, so not packed:$unbuilt" >&2
[ -n "$built" ] && [ -f binding.cjs ] || { echo "pack: nothing built (run npm run build or npm run build:all)" >&2; exit 1; }
out=$PWD/.tmp/packs
stage=$PWD/.tmp/stage
rm -rf "$out" "$stage" && mkdir -p "$out" "$stage"
for f in $(node -p "require('./package.json').files.join(' ')") package.json; do
  [ -e "$f" ] && cp "$f" "$stage/"
done
cp -r npm "$stage/npm"
# napi pre-publish wants every platform package to hold its binary: the staged copies of those not
# built here get an empty stand-in (they are not packed).
for p in $platforms; do
  for f in $(node -p "require('./npm/$p/package.json').files.join(' ')"); do
    [ -f "npm/$p/$f" ] || : > "$stage/npm/$p/$f"
  done
done
if ! published=$(npx napi pre-publish --cwd "$stage" --tag-style npm --skip-optional-publish --no-gh-release 2>&1); then
  echo "$published" >&2
  echo "pack: napi pre-publish failed" >&2
  exit 1
fi
rm -rf "$stage/npm"
node -e "
  const fs = require('fs');
  const pkg = JSON.parse(fs.readFileSync('$stage/package.json', 'utf8'));
  delete pkg.devDependencies; delete pkg.scripts;
  fs.writeFileSync('$stage/package.json', JSON.stringify(pkg, null, 2) + '\\n');
"
main=$(cd "$stage" && npm pack --silent --pack-destination "$out" . | tail -n 1)
mv "$out/$main" "$out/dsh-tmux-context.tgz"
for p in $built; do
  file=$(cd "npm/$p" && npm pack --silent --pack-destination "$out" . | tail -n 1)
  mv "$out/$file" "$out/dsh-tmux-context-$p.tgz"
done
rm -rf "$stage"
ls -l "$out"
