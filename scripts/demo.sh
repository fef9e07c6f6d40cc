#!/usr/bin/env bash
# The main job (`npm run demo`): install and build what it needs (scripts/install.sh: tmux, zstd and
# bubblewrap from apt when missing, saying so first; the npm packages; this machine's release build with
# plain cargo; the tarballs; dsh 0.1.0-rc.8 with Node 22 and pnpm into e2e/. Nothing for other platforms,
# nothing in the tools cache), then do what README "Try it" tells a dsh user (e2e/web-session.mjs):
# `dsh plugin --profile web add` with the packed tarballs in a fresh DSH_HOME, the patch row, then
# `dsh --profile web --no-open` (dsh's interactive profile) in a pane of a private tmux server against a
# local model endpoint, and six turns of ONE session through its HTTP API, with a rename, a split and a
# `cd` in the sibling pane between some of them; per turn it prints whether the model received a reading
# (and its text) or none.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2
node scripts/demo.mjs
