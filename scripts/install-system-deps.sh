#!/usr/bin/env bash
# System packages the tests and the demo need (Debian): Chromium for the real VS Code workbench,
# the Docker engine, sshd, openssl and busybox for the runner suite (its own dockerd, TLS and SSH hosts),
# ripgrep for VS Code's search and the benchmarks, and what code-server's native modules build with.
set -euo pipefail
PKGS="chromium ripgrep build-essential python3 pkg-config libkrb5-dev git unzip docker.io openssh-server openssh-client openssl busybox-static iproute2 util-linux docker-registry"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
[ -z "$missing" ] && exit 0
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
echo "installing:$missing" >&2
# shellcheck source=apt-lib.sh
. "$(dirname "$0")/apt-lib.sh"
apt_retry $SUDO apt-get update -qq
# shellcheck disable=SC2086
apt_retry $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
# The registry package enables a system service on :5000; the tests start their own registry in
# their own network namespace, so a service the install started is stopped and disabled again.
case " $missing " in
  *" docker-registry "*) $SUDO systemctl disable --now docker-registry >/dev/null 2>&1 || true ;;
esac
