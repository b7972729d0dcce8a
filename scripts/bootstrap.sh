#!/usr/bin/env bash
# Installs the system packages ufo-rs needs (Debian/Ubuntu) and builds the binary.
#
#   scripts/bootstrap.sh            packages for running and testing + debug build
#   scripts/bootstrap.sh --bench    (kept for old scripts; everything is always installed)
#   scripts/bootstrap.sh --no-build packages only
#
# As root it runs apt-get itself. As another user it prints the exact
# `sudo apt-get install ...` line and exits 1.
set -euo pipefail

want_bench=0
build=1
release=0
for arg in "$@"; do
  case "$arg" in
    --bench) want_bench=1 ;;
    --no-build) build=0 ;;
    --release) release=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

# The private headless desktop: X server, D-Bus, AT-SPI, X utilities.
packages=(xvfb xauth dbus dbus-x11 at-spi2-core libatk-adaptor x11-utils xdotool
          python3-pyatspi gir1.2-atspi-2.0 fonts-dejavu-core
          # the Python baselines of `ufo bench step` (tested) draw with PIL
          python3-pil
          # the applications the tests and the demo drive: GTK 3, GTK 4, Qt 5,
          # LibreOffice (VCL on GTK 3) and Firefox
          gedit gnome-calculator gtk-3-examples mousepad gnome-text-editor featherpad
          libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 firefox-esr
          # widget classes on applications outside the original four
          # (crates/ufo-desktop-atspi/tests/classes.rs): a calculator with
          # animated keys, a file manager's rows and menus, a PDF viewer, a
          # password dialog
          galculator thunar evince zenity
          # icon and grid views (tests/views.rs): gtk3-icon-browser comes with
          # gtk-3-examples, gtk4-icon-browser with gtk-4-examples
          gtk-4-examples
          # GTK 2 applications (tests/hands.rs): they join the accessibility
          # bus through the gail and atk-bridge modules
          gtk2.0-examples libgail-common gpicview
          # VLC, which refuses to run as root, on a task desktop as its
          # account (crates/ufo-eval/tests/task_desktop.rs)
          vlc
          # a Qt file manager whose view buttons are checkable tool buttons
          # (tests/hands.rs)
          pcmanfm-qt
          # an optional window manager (ufo desktop start --wm xfwm4), the one
          # of `ufo eval`'s OSWorld task desktops
          xfwm4
          # OSWorld task desktops (tests/task_desktop.rs): GSettings kept by
          # dconf on the desktop's session bus, Python's Xlib as pyautogui
          # uses it, util-linux's unshare/nsenter for the private /home/user
          dconf-gsettings-backend dconf-service libglib2.0-bin python3-xlib
          util-linux procps
          # close_window as on OSWorld's VM: wmctrl -c; `open` steps as its
          # xdg-open (with the task home's mimeapps.list)
          wmctrl xdg-utils
          # `python` as OSWorld's tasks call it (python3, as on its VM)
          python-is-python3
          # ufo-eval's run_sqlite3 links the system SQLite (rusqlite without
          # its bundled C amalgamation), the one Python's sqlite3 module uses
          libsqlite3-dev pkg-config
          # ufo-eval's compare_pdfs and compare_pdf_images: MuPDF's text
          # extraction and rendering (OSWorld's PyMuPDF), run as `mutool`
          mupdf-tools
          # ufo-eval's compare_videos: frames decoded by FFmpeg (OSWorld's
          # OpenCV reads them through the same libraries); the OSWorld
          # mirror's video and MP3 stand-ins
          ffmpeg
          # OSWorld's Chrome tasks (tests/chrome.rs): Debian's Chromium stands
          # in for google-chrome, driven over its DevTools protocol; the
          # tasks launch socat to forward port 9222, as on OSWorld's VM
          chromium socat
          # MCP tests: a venv for the Python `mcp` client (Debian's python3,
          # not a pyenv shim) and node for the npm reference servers
          python3-venv
          # the Windows build (x86_64-pc-windows-gnu) and its tests under Wine
          mingw-w64 wine64)
# node and npm from Debian unless node is already there (NodeSource's
# nodejs package carries npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
# --bench used to add LibreOffice and PIL; the tests need both, so they are
# always installed.
: "$want_bench"

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bootstrap: missing system packages. Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "bootstrap: cargo not found. Install Rust 1.95 or newer (https://rustup.rs) and rerun." >&2
  exit 1
fi

# The Windows target (the device build `ufo.exe`, tested under Wine).
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  rustup target add x86_64-pc-windows-gnu
fi

if [ "$build" = 1 ]; then
  cd "$(dirname "$0")/.."
  if [ "$release" = 1 ]; then
    cargo build --release --locked -q -p ufo-cli
  else
    cargo build --locked -q -p ufo-cli
  fi
fi
