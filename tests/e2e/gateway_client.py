"""E2E (b): Python MCP client -> mcp-veil gateway -> server-filesystem + server-memory.

usage: gateway_client.py VEIL CONFIG FOLDER RECEIVED_LOG

Reads contacts.csv through the filesystem server, stores what it read (as tokens) in the memory
server, reads the memory graph back, writes a file from the memory server's answer, calls a tool
of a server that failed to start, and prints a JSON summary on stdout. Everything the client
receives is teed into RECEIVED_LOG.
"""

import asyncio
import json
import re
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    veil, config, folder, log = sys.argv[1:5]
    params = StdioServerParameters(
        command="sh",
        args=["-c", 'exec "$0" proxy --config "$1" | tee "$2"', veil, config, log],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            read_result = await session.call_tool(
                "fs__read_text_file", {"path": f"{folder}/contacts.csv"}
            )
            text = text_of(read_result)
            found = list(dict.fromkeys(TOKEN.findall(text)))
            created = await session.call_tool(
                "memory__create_entities",
                {
                    "entities": [
                        {
                            "name": found[0],
                            "entityType": "person",
                            "observations": [f"knows {t}" for t in found[1:]],
                        }
                    ]
                },
            )
            opened = await session.call_tool("memory__open_nodes", {"names": [found[0]]})
            opened_text = text_of(opened)
            await session.call_tool(
                "fs__write_file", {"path": f"{folder}/from_memory.json", "content": opened_text}
            )
            broken = await session.call_tool("broken__anything", {})
            unknown = await session.call_tool("nobody__anything", {})
    print(
        json.dumps(
            {
                "server_name": init.server_info.name,
                "tools": tools,
                "read": text,
                "tokens": found,
                "created_is_error": created.is_error,
                "opened": opened_text,
                "broken_is_error": broken.is_error,
                "broken_text": text_of(broken),
                "unknown_is_error": unknown.is_error,
            }
        )
    )


asyncio.run(main())
