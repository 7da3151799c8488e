#!/bin/sh
# `npm run demo`: installs the packages (first run), builds the app and serves the build.
# The build is what works offline (its service worker stores the app, ORT and the models);
# `npx vite` serves the sources for development instead (docs/demo.md).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi
echo "== building the demo (dist/)"
npx vite build --logLevel warn
echo "== serving the demo: open the Local URL below in Chromium or Chrome"
exec npx vite preview --host 127.0.0.1 --port "${PORT:-5173}" --strictPort
