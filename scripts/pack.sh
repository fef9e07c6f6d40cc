#!/usr/bin/env bash
# Packs the package and its platform binary packages into .tmp/packs/ under stable names:
#   dsh-tmux-context.tgz, dsh-tmux-context-<platform>.tgz (one per target in napi.targets)
# As napi-rs's prepublish does, the packed package.json gains `optionalDependencies` on the
# platform packages (kept out of the repository's package.json, whose lockfile must not name
# packages that are not on the registry). Expects built binaries (npm run build:all).
set -euo pipefail
cd "$(dirname "$0")/.."
platforms=$(node -e "import('@napi-rs/cli').then(async ({ readNapiConfig }) => console.log((await readNapiConfig('package.json')).targets.map((t) => t.platformArchABI).join(' ')))")
binary=$(node -p "require('./package.json').napi.binaryName")
for p in $platforms; do
  [ -f "npm/$p/$binary.$p.node" ] || { echo "pack: no built binary npm/$p/$binary.$p.node (run npm run build:all)" >&2; exit 1; }
done
[ -f binding.cjs ] || { echo "pack: no binding.cjs (run npm run build:all)" >&2; exit 1; }
out=$PWD/.tmp/packs
stage=$PWD/.tmp/stage
rm -rf "$out" "$stage" && mkdir -p "$out" "$stage"
for f in $(node -p "require('./package.json').files.join(' ')") package.json; do
  [ -e "$f" ] && cp "$f" "$stage/"
done
node -e "
  const fs = require('fs');
  const pkg = JSON.parse(fs.readFileSync('$stage/package.json', 'utf8'));
  pkg.optionalDependencies = {};
  for (const p of '$platforms'.split(' ')) {
    const platform = JSON.parse(fs.readFileSync('npm/' + p + '/package.json', 'utf8'));
    pkg.optionalDependencies[platform.name] = platform.version;
  }
  delete pkg.devDependencies; delete pkg.scripts;
  fs.writeFileSync('$stage/package.json', JSON.stringify(pkg, null, 2) + '\n');
"
main=$(cd "$stage" && npm pack --silent --pack-destination "$out" . | tail -n 1)
mv "$out/$main" "$out/dsh-tmux-context.tgz"
for p in $platforms; do
  file=$(cd "npm/$p" && npm pack --silent --pack-destination "$out" . | tail -n 1)
  mv "$out/$file" "$out/dsh-tmux-context-$p.tgz"
done
rm -rf "$stage"
ls -l "$out"
