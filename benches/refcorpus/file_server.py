#!/usr/bin/env python3
"""A minimal MCP stdio server for `run.py --through-proxy`: one tool, `read`, whose result is
the named file's contents as one text content block (as mcp-server-filesystem returns a file).

Newline-delimited JSON-RPC on stdin/stdout; answers `initialize`, `tools/list`, `tools/call`
and `ping`, ignores notifications. The file is read once per call, before the answer is
written, so the proxy's time for a call is its own work on the result.
"""
import json
import sys

TOOL = {
    "name": "read",
    "description": "Read a file",
    "inputSchema": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
}


def answer(msg):
    method = msg.get("method")
    if method == "initialize":
        version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "file-server", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        path = msg["params"]["arguments"]["path"]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return {"content": [{"type": "text", "text": text}]}
    return {}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": answer(msg)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
