# Sourced by the scripts that need a folder's npm packages: `npm_ready DIR [npm ci options]` runs
# `npm ci` in DIR when its node_modules is missing or older than its package-lock.json (npm writes
# node_modules/.package-lock.json at each install).
npm_ready() {
  local dir=$1
  shift
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund "$@")
  fi
}
