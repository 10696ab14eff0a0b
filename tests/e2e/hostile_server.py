"""A hostile stdio MCP server: it writes whatever raw lines a script tells it to.

usage: hostile_server.py SCRIPT.json   (no SDK: plain python3, raw bytes on stdout)

SCRIPT maps a tool name to the lines the server writes when that tool is called, in order.
In each line `{id}` becomes the call's id (JSON text) and `{FF}` the byte 0xFF (invalid
UTF-8). Every tool in SCRIPT is listed by `tools/list`, next to `echo` (answers
`arguments.text`, a well-behaved tool). Every line the server receives is appended to the file
named by HOSTILE_LOG, if set, so a test can check what reached the server.
"""

import json
import os
import sys

script = json.load(open(sys.argv[1])) if len(sys.argv) > 1 else {}
log = open(os.environ["HOSTILE_LOG"], "ab") if os.environ.get("HOSTILE_LOG") else None
out = sys.stdout.buffer


def emit(data):
    out.write(data + b"\n")
    out.flush()


def answer(msg_id, result):
    emit(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode())


def render(line, id_text):
    return line.replace("{id}", id_text).encode("utf-8").replace(b"{FF}", b"\xff")


for raw in sys.stdin.buffer:
    if log:
        log.write(raw)
        log.flush()
    try:
        msg = json.loads(raw)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
        continue  # notifications and responses
    msg_id, method = msg["id"], msg["method"]
    if method == "initialize":
        answer(msg_id, {
            "protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        })
    elif method == "ping":
        answer(msg_id, {})
    elif method == "tools/list":
        tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ["echo", *script]]
        answer(msg_id, {"tools": tools})
    elif method == "tools/call":
        params = msg.get("params") or {}
        name = params.get("name")
        if name in script:
            for line in script[name]:
                emit(render(line, json.dumps(msg_id)))
        else:
            text = (params.get("arguments") or {}).get("text", "ok")
            answer(msg_id, {"content": [{"type": "text", "text": text}]})
    else:
        emit(json.dumps({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": -32601, "message": "no such method"}}).encode())
