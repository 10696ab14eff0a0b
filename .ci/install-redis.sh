#!/bin/sh
# Installs redis-server for the Redis vault tests (tests/redis_vault.rs). Idempotent: does nothing
# when redis-server is already on PATH. The tests start their own server on a free loopback port
# with a temporary directory, so no system service needs to run.
set -eu
if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    SUDO="sudo"
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends redis-server
# Debian starts a system service on install; the tests never use it.
if command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
