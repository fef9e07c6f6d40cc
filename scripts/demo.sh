#!/usr/bin/env bash
# The main job (`npm run demo`): install and build what it needs, then run the shipped harness
# composition with a keyless mock model and this package mounted by name, inside a pane of a private
# tmux server, and print the reading the model received (from the session log) and the pane it names.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2
node scripts/demo.mjs
