#!/usr/bin/env bash
# One-time set-up on a fresh machine: system packages, then the npm packages.
# Electron's binary and ffmpeg-static's download are skipped where they cannot be fetched: the app then
# finds the system ffmpeg on PATH and opens in the browser when Electron cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
npm ci --no-audit --no-fund
