#!/usr/bin/env bash
# One-time set-up on a fresh machine: system packages, then the npm packages.
# Electron's binary and ffmpeg-static's download are skipped where they cannot be fetched: the app then
# finds the system ffmpeg on PATH and opens in the browser when Electron cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
# Install time only: ffmpeg-static's install script downloads its binary unless FFMPEG_BIN names one
# that exists, and fails where it cannot download. Point it at the system ffmpeg for `npm ci`; the app
# itself needs no variable (it finds ffmpeg on PATH), and nothing here outlives this script.
if [ -z "${FFMPEG_BIN:-}" ] && command -v ffmpeg >/dev/null; then export FFMPEG_BIN="$(command -v ffmpeg)"; fi
npm ci --no-audit --no-fund
