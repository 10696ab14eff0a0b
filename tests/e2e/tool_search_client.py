"""E2E: Python MCP client -> mcp-veil gateway with tool search (`tool_search:`).

usage: tool_search_client.py VEIL CONFIG RECEIVED_LOG PLAN_JSON

PLAN_JSON is a list of steps, run in order in one session:
  {"op": "list"}                               -> {"names": [...]}
  {"op": "search", "query": Q, "limit": N?}    -> {"names": [...], "text": T, "is_error": b,
                                                   "tools": [structured tool definitions]}
  {"op": "call", "name": N, "args": {...}}     -> {"text": T, "is_error": b}
  {"op": "wait"}                               -> waits up to 2 s for a tools list_changed
In call arguments, "{tok0}", "{tok1}" ... are replaced by the tokens seen so far (in order).
Prints {"capabilities": ..., "steps": [...], "list_changed": n, "tokens": [...]}.
"""

import asyncio
import json
import re
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def fill(value, tokens):
    if isinstance(value, str):
        for i, t in enumerate(tokens):
            value = value.replace("{tok%d}" % i, t)
        return value
    if isinstance(value, list):
        return [fill(v, tokens) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, tokens) for k, v in value.items()}
    return value


async def main():
    veil, config, log, plan = sys.argv[1:5]
    plan = json.loads(plan)
    changed = anyio.Event()
    counts = {"list_changed": 0}

    async def on_message(message):
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            counts["list_changed"] += 1
            changed.set()

    params = StdioServerParameters(
        command="sh",
        args=["-c", 'exec "$0" proxy --config "$1" | tee "$2"', veil, config, log],
    )
    steps = []
    tokens = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            caps = init.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
            for step in plan:
                op = step["op"]
                if op == "list":
                    tools = (await session.list_tools()).tools
                    steps.append({"names": [t.name for t in tools]})
                elif op == "search":
                    args = {"query": step["query"]}
                    if "limit" in step:
                        args["limit"] = step["limit"]
                    r = await session.call_tool("search_tools", args)
                    structured = r.structured_content or {}
                    found = structured.get("tools", [])
                    steps.append({
                        "names": [t["name"] for t in found],
                        "tools": found,
                        "text": text_of(r),
                        "is_error": bool(r.is_error),
                    })
                elif op == "call":
                    r = await session.call_tool(step["name"], fill(step.get("args", {}), tokens))
                    text = text_of(r)
                    for t in TOKEN.findall(text):
                        if t not in tokens:
                            tokens.append(t)
                    steps.append({"text": text, "is_error": bool(r.is_error)})
                elif op == "wait":
                    with anyio.move_on_after(2):
                        await changed.wait()
                    steps.append({"list_changed": counts["list_changed"]})
                    changed = anyio.Event()
    print(json.dumps({
        "capabilities": caps,
        "steps": steps,
        "list_changed": counts["list_changed"],
        "tokens": tokens,
    }))


if __name__ == "__main__":
    asyncio.run(main())
