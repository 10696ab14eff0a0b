"""A raw JSON-RPC stdio MCP server (standard library only) whose tools/list is paginated.

usage: paged_server.py

Seven tools `t0` .. `t6`, listed three per page with `nextCursor`; `tools/call` answers with the
tool's name and its arguments as text; every request is also logged as a notifications/message.
"""

import json
import sys

TOOLS = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(7)]
PAGE = 3


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, params = msg["method"], msg.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": False}, "logging": {}},
            "serverInfo": {"name": "paged", "version": "1"},
        }
    elif method == "tools/list":
        start = int(params.get("cursor") or 0)
        result = {"tools": TOOLS[start : start + PAGE]}
        if start + PAGE < len(TOOLS):
            result["nextCursor"] = str(start + PAGE)
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": f"called {params['name']}"}})
        text = f"{params['name']} {json.dumps(params.get('arguments', {}), sort_keys=True)}"
        result = {"content": [{"type": "text", "text": text}]}
    else:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
        continue
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
