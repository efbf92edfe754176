#!/usr/bin/env bash
# Runs every test: unit tests on the real ISO-Bench corpus (mocha, Node), the runner suite on a
# real Docker engine, and the extension-host suite inside a real VS Code (code-server + Chromium). Does its own set-up on a fresh machine.
# Prints a closing "N passed, N failed" line. With CI=true a missing prerequisite is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '\n== %s\n' "$*"; }

log "system packages"
bash scripts/install-system-deps.sh
log "npm dependencies"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi
log "VS Code (code-server) and playwright-core"
bash scripts/setup-vscode-tools.sh >/dev/null
[ -d ../shared/isobench ] || { echo "missing ../shared/isobench (the real ISO-Bench data the tests read in place)" >&2; exit 1; }

log "build"
node esbuild.mjs --tests
npx tsc -p . --noEmit

passed=0; failed=0; status=0
log "the machine's own Docker engine, before"
bash scripts/host-check.sh before
count() { # file -> adds "N passing" / "N failing" of a mocha spec run
  local p f
  p=$(grep -Eo '^ *[0-9]+ passing' "$1" | grep -Eo '[0-9]+' | tail -1 || true)
  f=$(grep -Eo '^ *[0-9]+ failing' "$1" | grep -Eo '[0-9]+' | tail -1 || true)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}
mkdir -p test-results
log "lint (ESLint with the layering of docs/ARCHITECTURE.md, core folder cycles, unused exports, format)"
if node scripts/lint.mjs 2>&1 | tee test-results/lint.txt; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

log "unit tests"
npx mocha --config .mocharc.json 'dist-test/unit/**/*.test.js' 2>&1 | tee test-results/unit.txt || status=1
count test-results/unit.txt

log "failure rules on the labelled corpus (bench-triage rules test, recall ≥ 0.8 per category)"
if node dist/cli.js rules test test/fixtures/failure-logs --min-recall 0.8 2>&1 | tee test-results/rules-test.txt; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

log "runner on a real Docker engine (the suite starts its own dockerd, TLS listener and sshd)"
npx mocha --config .mocharc.json --exit 'dist-test/docker/**/*.test.js' 2>&1 | tee test-results/docker.txt || status=1
count test-results/docker.txt
grep -Eq '^ *[0-9]+ passing' test-results/docker.txt || { echo "the Docker suite did not run" >&2; failed=$((failed + 1)); status=1; }

log "extension-host tests (real VS Code)"
node scripts/vscode/run-extension-tests.mjs 2>&1 | tee test-results/extension.txt || status=1
ext=$(grep -E '^extension-host: [0-9]+ passed, [0-9]+ failed$' test-results/extension.txt | tail -1 | sed 's/^extension-host: //' || true)
if [ -n "$ext" ]; then
  passed=$((passed + $(echo "$ext" | cut -d' ' -f1))); failed=$((failed + $(echo "$ext" | cut -d' ' -f3)))
else
  echo "extension-host suite did not report results" >&2; failed=$((failed + 1)); status=1
fi

log "end to end: every button of the extension pressed in a real VS Code on the demo workspace"
node scripts/vscode/e2e-buttons.mjs 2>&1 | tee test-results/e2e-buttons.txt || status=1
b=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed$' test-results/e2e-buttons.txt | tail -1 | sed 's/^e2e: //' || true)
if [ -n "$b" ]; then passed=$((passed + $(echo "$b" | cut -d' ' -f1))); failed=$((failed + $(echo "$b" | cut -d' ' -f3)));
else echo "the end-to-end buttons suite did not report results" >&2; failed=$((failed + 1)); status=1; fi

log "installable VSIX in a fresh code-server"
if npm run --silent package > test-results/package.txt 2>&1; then
  tail -n 12 test-results/package.txt
  node scripts/vscode/vsix-smoke.mjs 2>&1 | tee test-results/vsix.txt || status=1
  v=$(grep -E '^vsix: [0-9]+ passed, [0-9]+ failed$' test-results/vsix.txt | tail -1 | sed 's/^vsix: //' || true)
  if [ -n "$v" ]; then passed=$((passed + $(echo "$v" | cut -d' ' -f1))); failed=$((failed + $(echo "$v" | cut -d' ' -f3)));
  else echo "VSIX smoke test did not report results" >&2; failed=$((failed + 1)); status=1; fi
else
  cat test-results/package.txt >&2; echo "packaging the VSIX failed" >&2; failed=$((failed + 1)); status=1
fi

log "the README's main command (demo) as a user would"
node scripts/vscode/demo-check.mjs 2>&1 | tee test-results/demo.txt || status=1
d=$(grep -E '^demo: [0-9]+ passed, [0-9]+ failed$' test-results/demo.txt | tail -1 | sed 's/^demo: //' || true)
if [ -n "$d" ]; then passed=$((passed + $(echo "$d" | cut -d' ' -f1))); failed=$((failed + $(echo "$d" | cut -d' ' -f3)));
else echo "demo check did not report results" >&2; failed=$((failed + 1)); status=1; fi

log "the machine's own Docker engine, after (docker0 and containers unchanged), and nothing of the tests' left in /tmp"
if bash scripts/host-check.sh after; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$status" = 0 ]
