#!/bin/sh
# `cargo build ...` as `cargo zigbuild ...`: what `napi build` runs (as $CARGO) for the Windows GNU
# targets, which `napi build -x` rejects (scripts/targets.mjs).
[ "$1" = build ] && shift
exec cargo-zigbuild zigbuild "$@"
