#!/bin/sh
# cargo's RUSTC_WORKSPACE_WRAPPER for scripts/test.sh: compiles a workspace
# crate with clippy-driver (rustc plus clippy's lints), warnings denied, so
# that a build is also `cargo clippy -- -D warnings`. cargo calls it as
# `clippy-rustc.sh /path/to/rustc ARGS...`.
exec "${CLIPPY_DRIVER:-clippy-driver}" "$@" -D warnings
