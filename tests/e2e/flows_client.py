"""E2E (flows): Python MCP client -> mcp-veil proxy (or gateway) -> server-filesystem, with
flow rules, tool policy, confirmation by elicitation and raw PII.

usage: flows_client.py VEIL CONFIG FS_SERVER DIR MODE

MODE:
  all       single server (`--name fs`): every flow, confirmations accepted
  decline   single server: the confirmation is declined
  noelicit  single server, a client without the elicitation capability
  gateway   the gateway (`servers:` in CONFIG, tools as fs__*): hidden tool, confirmation accepted

The "model" is this script: it reads staff.csv (tokens come back), then writes files with
those tokens or with raw values it typed itself. Prints a JSON summary on stdout.
"""

import asyncio
import json
import re
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def first(tokens, kind):
    return next(t for t in tokens if t.startswith(f"[{kind}_"))


async def main():
    veil, config, fs_server, folder, mode = sys.argv[1:6]
    if mode == "gateway":
        args = [veil, "proxy", "--config", config]
        prefix = "fs__"
    else:
        args = [veil, "proxy", "--config", config, "--name", "fs", "--", fs_server, folder]
        prefix = ""
    params = StdioServerParameters(command=args[0], args=args[1:])
    asked = []

    async def elicit(context, p):
        asked.append(p.message)
        answer = mode != "decline"
        if mode == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"approve": answer})

    callback = None if mode == "noelicit" else elicit
    out = {"asked": asked}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            await session.initialize()

            async def call(tool, arguments):
                r = await session.call_tool(prefix + tool, arguments)
                return {"is_error": bool(r.is_error), "text": text_of(r)}

            async def write_file(name, content):
                return await call("write_file", {"path": f"{folder}/{name}", "content": content})

            out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
            staff = await call("read_text_file", {"path": f"{folder}/staff.csv"})
            out["staff"] = staff["text"]
            tokens = list(dict.fromkeys(TOKEN.findall(staff["text"])))
            out["tokens"] = tokens
            project = first(tokens, "PROJECT")
            out["confirm"] = await write_file("confirm.txt", f"project {project}")
            if mode == "all" or mode == "gateway":
                out["moved"] = await call(
                    "move_file",
                    {"source": f"{folder}/staff.csv", "destination": f"{folder}/moved.csv"},
                )
            if mode == "all":
                out["allowed"] = await write_file(
                    "allowed.txt", f"id {first(tokens, 'EMPLOYEE_ID')}"
                )
                out["denied"] = await write_file("denied.txt", f"badge {first(tokens, 'BADGE')}")
                out["kept"] = await write_file("kept.txt", f"name {first(tokens, 'NAME')}")
                out["raw_tokenized"] = await write_file("raw-id.txt", "raw EMP-777777")
                out["raw_denied"] = await write_file("raw-badge.txt", "raw BDG-50002")
                out["unknown"] = await write_file("forged.txt", "[EMPLOYEE_ID_999]")
    print(json.dumps(out))


asyncio.run(main())
