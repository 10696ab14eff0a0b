#!/bin/sh
# Installs the redis-server binary for the Redis vault tests (tests/redis_vault.rs, serve_*). The
# tests start their own server on a free loopback port with a temporary directory: no system
# service is needed, so none is started or left enabled. Idempotent: does nothing when
# redis-server is already on PATH. Needs root (or sudo) and apt only when it has to install.
set -eu
if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "redis-server is not on PATH and this is not root: install redis-server (any way" \
            "you like; no service needs to run) and re-run" >&2
        exit 1
    fi
    SUDO="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "redis-server is not on PATH and apt-get is missing: install redis-server and re-run" >&2
    exit 1
fi
# While installing, forbid the package scripts to start services (policy-rc.d exit 101).
POLICY=/usr/sbin/policy-rc.d
created=""
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
    $SUDO chmod 755 "$POLICY"
    created=1
fi
cleanup() { if [ -n "$created" ]; then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server
# The package enables its unit on install; leave it disabled (and stopped).
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
elif command -v deb-systemd-helper >/dev/null 2>&1; then
    $SUDO deb-systemd-helper disable redis-server.service >/dev/null 2>&1 || true
fi
if command -v update-rc.d >/dev/null 2>&1; then
    $SUDO update-rc.d redis-server disable >/dev/null 2>&1 || true
fi
