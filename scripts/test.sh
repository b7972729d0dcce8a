#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: system packages (via
# bootstrap.sh), formatting, lints, and every test. The tests start and stop
# their own private headless desktops; they never touch your display.
set -euo pipefail
cd "$(dirname "$0")/.."
# System packages first: bootstrap.sh runs `apt-get install` (as root) for Xvfb,
# D-Bus, AT-SPI, xdotool, xfwm4 and the test applications when any is missing.
scripts/bootstrap.sh --no-build
# A one-shot run gains nothing from incremental caches, which double the disk a
# clean build takes; CI sets CI=true.
if [ "${CI:-}" = "true" ]; then export CARGO_INCREMENTAL=0; fi
echo "== disk before the build: $(df -h --output=avail . | tail -1) free" >&2
echo "== cargo fmt --check" >&2
cargo fmt --all --check
echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
# Public docs: every intra-doc link resolves and none points at a private item.
echo "== cargo doc" >&2
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
# The Windows build: the backend and the binary with every crate it links,
# linted for that target, and built for the Wine tests (crates/ufo-cli/tests/wine.rs).
echo "== cargo clippy (x86_64-pc-windows-gnu)" >&2
cargo clippy --target x86_64-pc-windows-gnu --locked -p ufo-desktop-windows -p ufo-cli -- -D warnings
echo "== cargo build (x86_64-pc-windows-gnu)" >&2
cargo build --target x86_64-pc-windows-gnu --locked -p ufo-cli
echo "== cargo test" >&2
cargo test --workspace --locked --no-fail-fast
