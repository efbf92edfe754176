#!/usr/bin/env bash
# Starts a real VS Code (code-server) with Bench Triage loaded on the demo workspace and prints
# the URL to open. Does its own set-up on a fresh machine. Stop with Ctrl-C.
#   BENCH_TRIAGE_PORT (default 8080), BENCH_TRIAGE_HOST (default 127.0.0.1), BENCH_TRIAGE_DEMO (workspace folder)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi
bash scripts/setup-vscode-tools.sh >/dev/null
node esbuild.mjs
exec node scripts/vscode/demo.mjs
