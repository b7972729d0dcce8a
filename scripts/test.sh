#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: system packages (via
# bootstrap.sh), formatting, lints, and every test. The tests start and stop
# their own private headless desktops; they never touch your display.
set -euo pipefail
cd "$(dirname "$0")/.."
# System packages first: bootstrap.sh runs `apt-get install` (as root) for Xvfb,
# D-Bus, AT-SPI, xdotool, xfwm4 and the test applications when any is missing.
scripts/bootstrap.sh --no-build
echo "== cargo fmt --check" >&2
cargo fmt --all --check
echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test" >&2
cargo test --workspace --locked --no-fail-fast
