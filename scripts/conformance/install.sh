#!/usr/bin/env bash
# Installs the applications of the conformance corpus (Debian 12) with apt-get.
#
#   scripts/conformance/install.sh           install what is missing (idempotent)
#   scripts/conformance/install.sh --list    print the package list and exit
#
# As root it runs apt-get itself; as another user it prints the exact
# `sudo apt-get install ...` line and exits 1. The desktop stack itself
# (Xvfb, D-Bus, AT-SPI, pyatspi) comes from scripts/bootstrap.sh.
set -euo pipefail

packages=(
  # the desktop stack and the independent verifier (pyatspi under /usr/bin/python3)
  xvfb xauth dbus dbus-x11 at-spi2-core libatk-adaptor x11-utils xdotool
  python3-pyatspi gir1.2-atspi-2.0 fonts-dejavu-core
  # GTK 3
  gedit mousepad gtk-3-examples galculator gnumeric thunar evince zenity abiword
  # VTE terminal (GTK 3)
  xfce4-terminal
  # GTK 4
  gnome-calculator gnome-text-editor gtk-4-examples
  # Qt 5 (and KDE Frameworks 5)
  featherpad kcalc qpdfview kdialog dolphin kate pcmanfm-qt
  # Qt 6
  qt6ct
  # LibreOffice (VCL on GTK 3)
  libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3
  # browsers
  firefox-esr chromium
  # Java Swing with the ATK bridge (the suite's own form, scripts/conformance/swing)
  openjdk-17-jdk libatk-wrapper-java libatk-wrapper-java-jni
)

case "${1:-}" in
  --list) printf '%s\n' "${packages[@]}"; exit 0 ;;
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  "") ;;
  *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install.sh: every corpus package is installed" >&2
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install.sh: missing packages. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "install.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install.sh: done" >&2
