#!/usr/bin/env bash
# The machine's own Docker engine, before and after the test command: its bridge (docker0, by
# name and MAC) and its containers (`docker ps -a`) must be as they were. The suites start their
# own engines in their own network namespace and must never touch this one.
#   host-check.sh before   snapshot (with CI=true and no engine answering on /var/run/docker.sock, start one
#                          as a user's machine would have, with one container, so the check is real)
#   host-check.sh after    compare with the snapshot; exit 1 and show the difference when it changed;
#                          stop and remove the engine `before` started, and its bridge
set -uo pipefail
cd "$(dirname "$0")/.."
STATE=test-results/host-check
MACHINE=/tmp/bench-triage-machine-engine
mkdir -p "$STATE"

snapshot() {
  ip -o link show docker0 2>/dev/null | awk '{for (i = 1; i <= NF; i++) if ($i == "link/ether") print "bridge", $2, $(i + 1)}'
  if [ -S /var/run/docker.sock ]; then
    docker -H unix:///var/run/docker.sock ps -a --no-trunc --format 'container {{.ID}} {{.Image}} {{.State}} {{.Names}}' 2>&1 | sort
  else
    echo "no engine on /var/run/docker.sock"
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
      mkdir -p "$MACHINE"
      dockerd --data-root "$MACHINE/data" --exec-root "$MACHINE/exec" --pidfile "$MACHINE/docker.pid" >"$MACHINE/dockerd.log" 2>&1 &
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
    exit $status
    ;;
  *) echo "usage: $0 before|after" >&2; exit 2 ;;
esac
