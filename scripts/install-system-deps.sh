#!/usr/bin/env bash
# System packages Onair's tests and local studio need on Debian/Ubuntu: ffmpeg (+ffprobe) for the
# broadcaster and the studio, Chromium for the e2e tests, gnome-keyring + D-Bus for a real Secret Service,
# procps for process checks; mate-backgrounds only for the encoder bench (its clips pan over those
# photographs, scripts/bench/clips). Runs as root, or through sudo when available.
set -euo pipefail
PKGS=(ffmpeg chromium gnome-keyring dbus libsecret-1-0 procps ca-certificates mate-backgrounds)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "Onair's setup needs: ${missing[*]}. This is not a Debian/Ubuntu system: install them with your package manager." >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "Installing ${missing[*]} needs root: run this script as root." >&2
    exit 1
  fi
fi
echo "installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system packages: installed"
