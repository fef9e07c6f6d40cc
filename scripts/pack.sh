#!/usr/bin/env bash
# Packs the package and its platform binary package into .tmp/packs/ under stable names:
#   dsh-tmux-context.tgz, dsh-tmux-context-<triple>.tgz
# As napi-rs's prepublish does, the packed package.json gains `optionalDependencies` on the
# platform packages (kept out of the repository's package.json, whose lockfile must not name
# packages that are not on the registry). Expects a built binary (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
triple=linux-x64-gnu
[ -f "npm/$triple/dsh-tmux-context.$triple.node" ] || { echo "pack: no built binary in npm/$triple (run npm run build)" >&2; exit 1; }
out=$PWD/.tmp/packs
stage=$PWD/.tmp/stage
rm -rf "$out" "$stage" && mkdir -p "$out" "$stage"
for f in $(node -p "require('./package.json').files.join(' ')") package.json; do
  [ -e "$f" ] && cp "$f" "$stage/"
done
node -e "
  const fs = require('fs');
  const pkg = JSON.parse(fs.readFileSync('$stage/package.json', 'utf8'));
  const platform = JSON.parse(fs.readFileSync('npm/$triple/package.json', 'utf8'));
  pkg.optionalDependencies = { [platform.name]: platform.version };
  delete pkg.devDependencies; delete pkg.scripts;
  fs.writeFileSync('$stage/package.json', JSON.stringify(pkg, null, 2) + '\n');
"
main=$(cd "$stage" && npm pack --silent --pack-destination "$out" . | tail -n 1)
platform=$(cd "npm/$triple" && npm pack --silent --pack-destination "$out" . | tail -n 1)
mv "$out/$main" "$out/dsh-tmux-context.tgz"
mv "$out/$platform" "$out/dsh-tmux-context-$triple.tgz"
rm -rf "$stage"
ls -l "$out"
