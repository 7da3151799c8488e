#!/bin/sh
# `npm test`: installs what the tests need on a fresh Debian machine (Debian's Chromium, Firefox
# ESR and WebKitGTK, npm packages) and runs the whole suite: type check, Node tests, real-browser tests.
set -eu
cd "$(dirname "$0")/.."

# Debian's browsers: Chromium for every browser test; Firefox ESR, WebKitGTK's WebDriver (with its
# MiniBrowser) and Xvfb (MiniBrowser has no headless mode) for the engines project
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=""
[ -x "$CHROMIUM" ] || missing="$missing chromium"
command -v firefox-esr >/dev/null 2>&1 || missing="$missing firefox-esr"
command -v WebKitWebDriver >/dev/null 2>&1 || missing="$missing webkit2gtk-driver"
command -v xvfb-run >/dev/null 2>&1 || missing="$missing xvfb"
command -v xauth >/dev/null 2>&1 || missing="$missing xauth"
if [ -n "$missing" ]; then
  echo "== installing Debian packages the browser tests need:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages"
  # onnxruntime-node's postinstall would download binaries it already ships; puppeteer-core
  # downloads no browser (the Firefox tests use Debian's): the variable only makes that explicit
  ONNXRUNTIME_NODE_INSTALL=skip PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund
fi

mkdir -p test-results
echo "== type check"
npx tsc --noEmit
status=0
# a project can exit non-zero with every test passed (vitest's unhandled errors are not in its JSON report)
red=""
echo "== Node tests (pure code, model conversion and parity)"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json || { status=1; red="$red unit"; }
echo "== browser tests (headless Chromium)"
npx vitest run --project browser --reporter=default --reporter=json --outputFile.json=test-results/browser.json || { status=1; red="$red browser"; }
echo "== demo page end to end (production build, Playwright in Chromium; screenshots in test-results/screenshots)"
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json=test-results/e2e.json || { status=1; red="$red e2e"; }
echo "== the npm package in fresh vite, webpack and no-bundler apps (npm pack, offline install, Chromium)"
npx vitest run --project package --reporter=default --reporter=json --outputFile.json=test-results/package.json || { status=1; red="$red package"; }
echo "== sync service and engine sync on a throwaway PostgreSQL (tools/test-postgres.sh)"
sh tools/test-postgres.sh npx vitest run --project sync --reporter=default --reporter=json --outputFile.json=test-results/sync.json || { status=1; red="$red sync"; }
echo "== the engine's and the demo's flows in Chromium, Firefox and WebKit (production build; WebKit under Xvfb)"
npx vitest run --project engines --reporter=default --reporter=json --outputFile.json=test-results/engines.json || { status=1; red="$red engines"; }
node tools/test-summary.mjs test-results/unit.json test-results/browser.json test-results/e2e.json test-results/package.json test-results/sync.json test-results/engines.json || status=1
[ -z "$red" ] || echo "projects that exited non-zero (failed tests or unhandled errors, see their output above):$red"
exit $status
