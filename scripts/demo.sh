#!/usr/bin/env bash
# Sets everything up and shows ufo-rs working in a private headless desktop:
# installs what is missing, builds `ufo`, starts a desktop, launches
# gnome-calculator, runs `ufo doctor` there, and stops the desktop again.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
ufo=target/debug/ufo
export UFO_STATE_DIR="${UFO_STATE_DIR:-$(mktemp -d /tmp/ufo-demo.XXXXXX)}"
"$ufo" desktop start --name demo >/dev/null
trap '"$ufo" desktop stop --name demo' EXIT
"$ufo" desktop launch --name demo gnome-calculator
"$ufo" doctor --desktop demo
