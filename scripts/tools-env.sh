# Sourced by the scripts that use the tools scripts/toolchain.sh brings from PyPI (zig,
# cargo-zigbuild, actionlint in $DSH_TOOLS/venv; cargo-llvm-cov in $DSH_TOOLS/coverage) and npm (Node
# for the emulated platforms): where they live, outside the clone so that a new clone on the same
# machine finds them. Override with DSH_TOOLS.
export DSH_TOOLS="${DSH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-tmux-context}"
export PATH="$DSH_TOOLS/venv/bin:$DSH_TOOLS/coverage/bin:$PATH"
