#!/usr/bin/env bash
# Interoperability with upstream UFO's own code, both ways, and its Galaxy:
#   (a) UFO's real client (ufo/client) as the device under `ufo serve`: a
#       REST-dispatched LinuxAgent task and a dispatched task without a mode
#       (the server picks the session from the device's platform), both to
#       TASK_END completed, their effect checked;
#   (b) `ufo client` under UFO's real server (ufo/server): a task to
#       completion, the client exiting 0;
#   (c) UFO's real Galaxy client (`python -m galaxy --request ...`, its
#       ConstellationClient and ConstellationAgent, configured by its own
#       config/galaxy/devices.yaml and agent.yaml) drives `ufo serve`: a
#       `ufo client` device (rs_pc) with gnome-calculator on the private
#       desktop; the ConstellationAgent plans one task for rs_pc, the server
#       runs it there (HostAgent picks the calculator, AppAgent clicks
#       6 x 7 =) and sends TASK_END; the agent, asked again, finishes.
#       The key is in devices.yaml's server_url (?token=): Galaxy sends no
#       key header.
#       Checked: Galaxy exits 0 and its result file says the request and the
#       constellation (1 task) completed; its client logged TASK_END
#       completed from the device; the device's information (from the
#       server's DEVICE_INFO_RESPONSE) reached the ConstellationAgent's plan
#       request, and its second call held the device's result (a random
#       token); the calculator shows 42, read back with the
#       system's pyatspi; `ufo serve` logged the constellation client
#       `interop_c1@rs_pc` registering and its task accepted.
# Models are scripted (scripts/interop/scripted_model.py); everything runs on
# a private desktop. UFO is not on any registry: give a checkout of it
# (`git clone https://github.com/microsoft/UFO`). Its code is run, not copied.
#
#   scripts/interop/ufo-upstream.sh UFO_SOURCE_DIR [--parts abc]
#
# (--parts c runs only part (c); the default runs all three.)
#
# Environment: UFO_VENV (default ~/.cache/ufo-rs/ufo-venv), PYTHON (the
# interpreter the venv is made from, default /usr/bin/python3), UFO_BIN (a
# built `ufo`; default: cargo build -p ufo-cli).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="${1:?usage: $0 UFO_SOURCE_DIR}"
[ -f "$src/aip/messages.py" ] || { echo "error: $src is not a UFO checkout (no aip/messages.py)" >&2; exit 2; }
venv="${UFO_VENV:-$HOME/.cache/ufo-rs/ufo-venv}"
python="${PYTHON:-/usr/bin/python3}"

# UFO's requirements for its client and server on Linux, from PyPI; the
# Windows-only ones (pywinauto, uiautomation, pywin32, comtypes, pyautogui)
# are left out. pandas 1.4.3 has no wheel for Python 3.11: 2.1.4 is used.
# Galaxy also imports matplotlib (UFO's pin) and networkx (unpinned there).
packages=(pydantic==2.11.7 fastapi==0.116.1 uvicorn==0.35.0 websockets==12.0
  fastmcp==2.11.3 PyYAML==6.0.1 psutil==5.9.8 requests==2.32.5 openai==1.66.2
  rich==14.1.0 colorama==0.4.6 art==6.1 Pillow==11.3.0 lxml==5.1.0
  defusedxml==0.7.1 jsonschema==4.25.1 html2text==2024.2.26
  beautifulsoup4==4.12.3 numpy==1.26.4 langchain==0.3.27
  langchain_community==0.3.29 flask==3.0.0 pandas==2.1.4 gradio_client==1.12.1
  matplotlib==3.10.7 networkx==3.4.2)
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import fastmcp, fastapi, langchain_community, flask, pandas, gradio_client, matplotlib, networkx" 2>/dev/null; then
  "$venv/bin/pip" install -q "${packages[@]}"
fi
# UFO's client needs websockets 12 (its adapter reads `.closed`); langchain's
# dependencies pull a newer one in.
"$venv/bin/pip" install -q websockets==12.0 2>/dev/null

if [ -z "${UFO_BIN:-}" ]; then
  (cd "$repo" && cargo build -q -p ufo-cli)
  UFO_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/ufo"
fi

exec "$python" "$here/run_interop.py" --ufo-src "$src" --venv "$venv" --ufo-bin "$UFO_BIN" "${@:2}"
