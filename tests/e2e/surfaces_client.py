"""Python MCP client -> [mcp-veil proxy ->] server-everything: the surfaces besides tool results.

usage: surfaces_client.py MODE EVERYTHING_SERVER RECEIVED_LOG [VEIL CONFIG]

MODE is `direct` or `proxy` (through `mcp-veil proxy --config CONFIG -- CMD`). Reads the
instructions and every list, reads the architecture document by the URI the list gave, asks
the completable prompt's completions (the department, then its members with the first
department offered as context), runs the long-running operation with a progress callback and
prints a JSON summary.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import mcp.types as types


async def main():
    mode, everything, log = sys.argv[1:4]
    if mode == "proxy":
        veil, config = sys.argv[4:6]
        script = 'exec "$0" proxy --config "$1" -- "$2" stdio | tee "$3"'
        args = ["-c", script, veil, config, everything, log]
    else:
        args = ["-c", 'exec "$0" stdio | tee "$1"', everything, log]
    params = StdioServerParameters(command="sh", args=args)
    progress = []

    async def on_progress(value, total, message):
        progress.append([value, total, message])

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            prompts = sorted(p.name for p in (await session.list_prompts()).prompts)
            listed = await session.list_resource_templates()
            templates = sorted(
                t.name
                for t in getattr(listed, "resource_templates", None)
                or getattr(listed, "resourceTemplates", [])
            )
            resources = (await session.list_resources()).resources
            doc = next(r for r in resources if "architecture" in str(r.uri) or "WORD_" in str(r.uri))
            contents = (await session.read_resource(doc.uri)).contents
            ref = types.PromptReference(type="ref/prompt", name="completable-prompt")
            departments = (
                await session.complete(ref, {"name": "department", "value": "Eng"})
            ).completion.values
            members = (
                await session.complete(
                    ref,
                    {"name": "name", "value": ""},
                    context_arguments={"department": departments[0]},
                )
            ).completion.values
            await session.call_tool(
                "trigger-long-running-operation",
                {"duration": 1, "steps": 3},
                progress_callback=on_progress,
            )
    print(
        json.dumps(
            {
                "instructions": init.instructions,
                "tools": tools,
                "prompts": prompts,
                "templates": templates,
                "document": {
                    "uri": str(doc.uri),
                    "name": doc.name,
                    "read_len": sum(len(getattr(c, "text", "") or "") for c in contents),
                },
                "departments": departments,
                "members": members,
                "progress": progress,
            }
        )
    )


asyncio.run(main())
