#!/bin/sh
# `npm run demo`: installs the packages (first run) and serves the demo page.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi
echo "== starting the demo: open the Local URL below in Chromium or Chrome"
exec npx vite --host 127.0.0.1 --port "${PORT:-5173}"
