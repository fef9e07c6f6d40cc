#!/usr/bin/env bash
# The main job (`npm run demo`): install and build what it needs (scripts/install.sh: tmux, zstd and
# bubblewrap from apt when missing, saying so first; the npm packages; this machine's release build with
# plain cargo; the tarballs; dsh 0.1.0-rc.8 with Node 22 and pnpm into e2e/. Nothing for other platforms,
# nothing in the tools cache), then do what README "Use" tells a dsh user:
# `dsh plugin --profile headless add` with the packed tarballs in a fresh DSH_HOME, the patch row, then two
# one-shot `dsh --profile headless "<task>"` runs in a pane of a private tmux server against a local model
# endpoint, the window renamed in between; it prints the reading the model received each time and where it
# sits in the session log.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2
node scripts/demo.mjs
