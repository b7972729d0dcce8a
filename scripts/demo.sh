#!/usr/bin/env bash
# Sets everything up and shows ufo-rs working: installs what is missing, builds
# `ufo`, and runs `ufo demo` (a private headless desktop with gnome-calculator
# and a full HostAgent → AppAgent session answered by recorded replay
# cassettes). Extra arguments go to `ufo demo` (e.g. --config agents.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec target/debug/ufo demo "$@"
