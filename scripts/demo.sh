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
# The demo's vLLM checkout (a real commit for Build Image on H100), whatever the engine.
node scripts/demo-checkout.mjs "${BENCH_TRIAGE_DEMO:-demo/workspace}/.vllm-checkout" >/dev/null
# The demo's fake H100 host is the local Docker engine: give it the fake vLLM image when it answers.
if node -e "require('dockerode'); new (require('dockerode'))().ping().then(()=>process.exit(0),()=>process.exit(1))" 2>/dev/null; then
  if node scripts/fake-image.mjs; then
    node scripts/demo-images.mjs "${BENCH_TRIAGE_DEMO:-demo/workspace}" || echo "could not tag the demo's baseline images" >&2
  else
    echo "could not build the fake vLLM image; Rerun on H100 will report the missing image" >&2
  fi
else
  echo "no Docker engine reachable (DOCKER_HOST): browsing works; Rerun on H100 will say the host is unreachable" >&2
fi
exec node scripts/vscode/demo.mjs
