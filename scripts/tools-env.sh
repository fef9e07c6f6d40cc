# Sourced by scripts/install.sh and scripts/test.sh: where the build and check tools that
# install.sh brings from PyPI (zig, cargo-zigbuild, actionlint) and npm (Node for arm64) live,
# outside the clone so that a new clone on the same machine finds them. Override with DSH_TOOLS.
export DSH_TOOLS="${DSH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-tmux-context}"
export PATH="$DSH_TOOLS/venv/bin:$PATH"
