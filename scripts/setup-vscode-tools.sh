#!/usr/bin/env bash
# Installs the real VS Code used by the tests and the demo: code-server (VS Code 1.100.3, the last
# release that runs on Node 20) and playwright-core, which drives Debian's Chromium. Everything
# goes to a tools folder outside the extension's node_modules and is cached between runs.
#   Usage: scripts/setup-vscode-tools.sh            (folder: $BENCH_TRIAGE_TOOLS or ~/.cache/bench-triage/vscode-tools)
set -euo pipefail
TOOLS_DIR="${BENCH_TRIAGE_TOOLS:-$HOME/.cache/bench-triage/vscode-tools}"
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_CORE_VERSION=1.56.1
mkdir -p "$TOOLS_DIR"; TOOLS_DIR="$(cd "$TOOLS_DIR" && pwd)"
# One install at a time into the shared cache: two checkouts setting up at once would otherwise
# write the same node_modules together and break each other. The second waits, then finds it done.
exec 9>"$TOOLS_DIR/.install.lock"
if ! flock -n 9; then
  echo "another set-up is installing VS Code into $TOOLS_DIR; waiting for it" >&2
  flock 9
fi
stamp="$TOOLS_DIR/.installed-$CODE_SERVER_VERSION-$PLAYWRIGHT_CORE_VERSION"
if [ -f "$stamp" ] && [ -x "$TOOLS_DIR/node_modules/.bin/code-server" ]; then echo "$TOOLS_DIR"; exit 0; fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" = 20 ] || { echo "code-server $CODE_SERVER_VERSION needs Node 20 (found $(node -v))" >&2; exit 1; }
for bin in rg chromium; do
  command -v "$bin" >/dev/null || { echo "setup-vscode-tools: '$bin' is missing; run scripts/install-system-deps.sh first" >&2; exit 1; }
done
[ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr

# @vscode/ripgrep's postinstall downloads rg from GitHub (unreachable); it first looks in
# $TMPDIR/vscode-ripgrep-cache-<pkg>/ripgrep-<rg>-<target>.tar.gz, so seed that with Debian's rg.
export TMPDIR="$TOOLS_DIR/tmp"; mkdir -p "$TMPDIR/pack"
( cd "$TMPDIR/pack"
  cs_tgz="$(npm pack --silent "code-server@$CODE_SERVER_VERSION" 2>/dev/null | tail -1)"
  rg_pkg="$(tar xzf "$cs_tgz" -O package/lib/vscode/npm-shrinkwrap.json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).packages["node_modules/@vscode/ripgrep"].version))')"
  rg_tgz="$(npm pack --silent "@vscode/ripgrep@$rg_pkg" 2>/dev/null | tail -1)"
  rg_ver="$(tar xzf "$rg_tgz" -O package/lib/postinstall.js | sed -n "s/^const VERSION = '\(.*\)';/\1/p")"
  case "$(uname -m)" in x86_64) target=x86_64-unknown-linux-musl ;; aarch64) target=aarch64-unknown-linux-musl ;; *) echo "unsupported arch" >&2; exit 1 ;; esac
  cache="$TMPDIR/vscode-ripgrep-cache-$rg_pkg"; mkdir -p "$cache" stage
  cp "$(command -v rg)" stage/rg
  tar czf "$cache/ripgrep-$rg_ver-$target.tar.gz" -C stage rg
  rm -f "$cs_tgz" "$rg_tgz" )

cd "$TOOLS_DIR"
[ -f package.json ] || echo '{"name":"bench-triage-vscode-tools","private":true}' > package.json
# unsafe_perm: code-server's postinstall refuses root otherwise; yes: node-pty runs `npx node-gyp`.
npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --loglevel=error \
  "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_CORE_VERSION" >&2
test -x "$TOOLS_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
touch "$stamp"
echo "$TOOLS_DIR"
