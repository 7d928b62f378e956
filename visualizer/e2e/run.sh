#!/usr/bin/env bash
# Browser end-to-end test of the visualizer. Installs what it needs (idempotent, quiet, no
# prompts): node and npm, Debian's chromium, playwright-core from package-lock.json (it never
# downloads a browser). Builds the release `tester` and `queenattack`, then runs e2e.js,
# pair.js (two answers side by side, `tester compare --vis`), report.js (the `tester compare
# --html` page) and video.js (the page's "Record video").
# Screenshots, pages and exports go to target/vis-e2e/. Each script ends with a line
# `E2E: N passed, M failed` (`report: ...`); the exit status is 0 only if nothing failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then as_root apt-get update -qq >/dev/null; apt_updated=1; fi
  as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

command -v node >/dev/null && command -v npm >/dev/null || { echo "e2e: installing nodejs and npm" >&2; apt_install nodejs npm; }
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] || { echo "e2e: installing chromium" >&2; apt_install chromium; }
export CHROMIUM

lock_version() { node -e 'console.log(require("./visualizer/e2e/package-lock.json").packages["node_modules/playwright-core"].version)'; }
have_version() { node -e 'console.log(require("./visualizer/e2e/node_modules/playwright-core/package.json").version)' 2>/dev/null || true; }
if [ "$(have_version)" != "$(lock_version)" ]; then
  (cd visualizer/e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

cargo build --release --quiet -p tools --bin tester
cargo build --release --quiet -p queenattack --bin queenattack
export TESTER=target/release/tester SOLVER=target/release/queenattack
node visualizer/e2e/e2e.js </dev/null
node visualizer/e2e/pair.js </dev/null
node visualizer/e2e/report.js </dev/null
node visualizer/e2e/video.js </dev/null
