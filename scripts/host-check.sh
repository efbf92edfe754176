#!/usr/bin/env bash
# The machine's own Docker engine, before and after the test command: its bridge (docker0, by
# name and MAC) and its containers (`docker ps -a`) must be as they were, and nothing of the
# tests' is left in /tmp. The suites start their
# own engines in their own network namespace and must never touch this one.
#   host-check.sh before   snapshot (with CI=true and no engine answering on /var/run/docker.sock, start one
#                          as a user's machine would have, with one container, so the check is real)
#   host-check.sh after    compare with the snapshot; exit 1 and show the difference when it changed;
#                          stop and remove the engine `before` started, and its bridge
set -uo pipefail
cd "$(dirname "$0")/.."
STATE=${HOST_CHECK_STATE:-test-results/host-check}
MACHINE=/tmp/bench-triage-machine-engine
# Where the leftovers are looked for (the tests' os.tmpdir()), and the engine compared; a test of
# this script points both elsewhere.
TMP=${HOST_CHECK_TMP:-${TMPDIR:-/tmp}}
SOCK=${HOST_CHECK_SOCKET:-/var/run/docker.sock}
mkdir -p "$STATE"

# Temporary files the suites make (bt-*, btvsc-*, bench-triage-*) and an engine's stack dumps
# (containerd.<pid>.stacks.log): any that is new after the tests was left behind. The suite's
# engine folder is kept on purpose (its images are reused by the next run).
leftovers() {
  for f in "$TMP"/bt-* "$TMP"/btvsc-* "$TMP"/bench-triage-* "$TMP"/containerd.*.stacks.log; do
    [ -e "$f" ] || continue
    case "$f" in "$TMP"/bench-triage-test-engine | "$MACHINE") continue ;; esac
    echo "$f"
  done | sort
}

snapshot() {
  ip -o link show docker0 2>/dev/null | awk '{for (i = 1; i <= NF; i++) if ($i == "link/ether") print "bridge", $2, $(i + 1)}'
  if [ -S "$SOCK" ]; then
    docker -H "unix://$SOCK" ps -a --no-trunc --format 'container {{.ID}} {{.Image}} {{.State}} {{.Names}}' 2>&1 | sort
  else
    echo "no engine on $SOCK"
  fi
}

case "${1:-}" in
  before)
    rm -f "$STATE/started" "$STATE/bridge-was-there"
    ip link show docker0 >/dev/null 2>&1 && touch "$STATE/bridge-was-there"
    # A socket no engine answers on (one killed with its machine) is no engine: the check would
    # compare two failures to connect, and hold whatever the tests did.
    if ! docker -H unix:///var/run/docker.sock info >/dev/null 2>&1 && [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && command -v dockerd >/dev/null; then
      [ -S /var/run/docker.sock ] && rm -f /var/run/docker.sock
      mkdir -p "$MACHINE/tmp"
      # Its containerd's stack dumps (dockerd asks for one before restarting it) stay in its folder.
      TMPDIR="$MACHINE/tmp" dockerd --data-root "$MACHINE/data" --exec-root "$MACHINE/exec" --pidfile "$MACHINE/docker.pid" >"$MACHINE/dockerd.log" 2>&1 &
      for _ in $(seq 1 100); do docker -H unix:///var/run/docker.sock info >/dev/null 2>&1 && break; sleep 0.3; done
      if docker -H unix:///var/run/docker.sock info >/dev/null 2>&1; then
        touch "$STATE/started"
        # One stopped container, made from a local busybox (no registry).
        tmp=$(mktemp -d); mkdir -p "$tmp/bin"; cp /usr/bin/busybox "$tmp/bin/busybox"
        tar -C "$tmp" -c . | docker -H unix:///var/run/docker.sock import - bench-triage/machine-check:busybox >/dev/null
        rm -rf "$tmp"
        docker -H unix:///var/run/docker.sock create --name users-own-container bench-triage/machine-check:busybox /bin/busybox true >/dev/null
      else
        echo "host-check: could not start the machine engine (see $MACHINE/dockerd.log)" >&2
      fi
    fi
    snapshot >"$STATE/before.txt"
    leftovers >"$STATE/tmp-before.txt"
    echo "host-check: $(grep -c . "$STATE/before.txt") line(s) recorded ($(grep -c '^bridge' "$STATE/before.txt") bridge, $(grep -c '^container' "$STATE/before.txt") container)"
    ;;
  after)
    snapshot >"$STATE/after.txt"
    status=0
    if ! diff -u "$STATE/before.txt" "$STATE/after.txt" >"$STATE/diff.txt"; then
      echo "host-check: the machine's Docker engine changed during the tests:" >&2
      cat "$STATE/diff.txt" >&2
      status=1
    else
      echo "host-check: the machine's docker0 and containers are as they were"
    fi
    if [ -f "$STATE/started" ]; then
      docker -H unix:///var/run/docker.sock rm -f users-own-container >/dev/null 2>&1
      kill "$(cat "$MACHINE/docker.pid" 2>/dev/null)" 2>/dev/null
      for _ in $(seq 1 100); do [ -S /var/run/docker.sock ] || break; sleep 0.2; done
      [ -f "$STATE/bridge-was-there" ] || ip link del docker0 2>/dev/null
      rm -rf "$MACHINE" "$STATE/started"
    fi
    leftovers >"$STATE/tmp-after.txt"
    left=$(comm -13 "$STATE/tmp-before.txt" "$STATE/tmp-after.txt" 2>/dev/null || cat "$STATE/tmp-after.txt")
    if [ -n "$left" ]; then
      echo "host-check: the tests left these in $TMP:" >&2
      echo "$left" >&2
      status=1
    else
      echo "host-check: nothing of the tests' is left in $TMP"
    fi
    exit $status
    ;;
  *) echo "usage: $0 before|after" >&2; exit 2 ;;
esac
