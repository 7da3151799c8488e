#!/bin/sh
# `npm test`: installs what the tests need on a fresh Debian machine (Debian's Chromium,
# npm packages) and runs the whole suite: type check, Node tests, real-Chromium tests.
set -eu
cd "$(dirname "$0")/.."

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "== installing Debian's chromium (needed for the browser tests)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages"
  # onnxruntime-node's postinstall would download binaries it already ships
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi

mkdir -p test-results
echo "== type check"
npx tsc --noEmit
status=0
echo "== Node tests (pure code, model conversion and parity)"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json || status=1
echo "== browser tests (headless Chromium)"
npx vitest run --project browser --reporter=default --reporter=json --outputFile.json=test-results/browser.json || status=1
echo "== demo page end to end (production build, Playwright in Chromium; screenshots in test-results/screenshots)"
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json=test-results/e2e.json || status=1
echo "== the npm package in fresh vite, webpack and no-bundler apps (npm pack, offline install, Chromium)"
npx vitest run --project package --reporter=default --reporter=json --outputFile.json=test-results/package.json || status=1
echo "== sync service and engine sync on a throwaway PostgreSQL (tools/test-postgres.sh)"
sh tools/test-postgres.sh npx vitest run --project sync --reporter=default --reporter=json --outputFile.json=test-results/sync.json || status=1
node tools/test-summary.mjs test-results/unit.json test-results/browser.json test-results/e2e.json test-results/package.json test-results/sync.json || status=1
exit $status
