#!/usr/bin/env bash
# Starts a real VS Code (code-server) with Bench Triage loaded on the demo workspace and prints
# the URL to open. Does its own set-up on a fresh machine, saying each step and how long it took.
# Stop with Ctrl-C.
#   BENCH_TRIAGE_PORT (default 8080), BENCH_TRIAGE_HOST (default 127.0.0.1), BENCH_TRIAGE_DEMO (workspace folder)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
# step NAME COMMAND…: says what it does before, and how long it took after (set-up can take minutes).
step() {
  local name="$1" s=$SECONDS
  shift
  echo "[demo] $name…"
  "$@"
  echo "[demo] $name: $((SECONDS - s)) s"
}
# Two runs of this command in one checkout share its node_modules and dist/: one builds at a time
# (the lock is on the checkout's own folder, so nothing is left behind in /tmp).
locked() { flock "$PWD" "$@"; }
npm_deps() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi
}
step "system packages (apt, waits for another apt)" bash scripts/install-system-deps.sh
step "npm dependencies" locked bash -c "$(declare -f npm_deps); npm_deps"
step "VS Code tools (code-server, shared cache, one install at a time)" bash -c 'bash scripts/setup-vscode-tools.sh >/dev/null'
step "build the extension" locked node esbuild.mjs
# The demo's vLLM checkout (a real commit for Build Image on H100), whatever the engine.
step "demo vLLM checkout" locked bash -c 'node scripts/demo-checkout.mjs "${BENCH_TRIAGE_DEMO:-demo/workspace}/.vllm-checkout" >/dev/null'
# The demo's fake H100 host is the local Docker engine: give it the fake vLLM image when it answers.
fake_host() {
  if node -e "require('dockerode'); new (require('dockerode'))().ping().then(()=>process.exit(0),()=>process.exit(1))" 2>/dev/null; then
    if node scripts/fake-image.mjs; then
      node scripts/demo-images.mjs "${BENCH_TRIAGE_DEMO:-demo/workspace}" || echo "could not tag the demo's baseline images" >&2
    else
      echo "could not build the fake vLLM image; Rerun on H100 will report the missing image" >&2
    fi
  else
    echo "no Docker engine reachable (DOCKER_HOST): browsing works; Rerun on H100 will say the host is unreachable" >&2
  fi
}
step "fake H100 host (images on the local Docker engine)" locked bash -c "$(declare -f fake_host); fake_host"
echo "[demo] set-up: $((SECONDS - start)) s; starting VS Code"
exec node scripts/vscode/demo.mjs
