"""E2E (a): Python MCP client -> mcp-veil proxy -> server-filesystem.

usage: fs_client.py VEIL CONFIG FS_SERVER DIR RECEIVED_LOG

Everything the client receives from the proxy is also teed into RECEIVED_LOG. The script reads
contacts.csv, writes its (tokenized) text back as copy.csv, writes a note built from the tokens,
reads copy.csv back, and prints a JSON summary on stdout.
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
    veil, config, fs_server, folder, log = sys.argv[1:6]
    params = StdioServerParameters(
        command="sh",
        args=[
            "-c",
            'exec "$0" proxy --config "$1" -- "$2" "$3" | tee "$4"',
            veil,
            config,
            fs_server,
            folder,
            log,
        ],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            first = await session.call_tool("read_text_file", {"path": f"{folder}/contacts.csv"})
            first_text = text_of(first)
            found = list(dict.fromkeys(TOKEN.findall(first_text)))
            await session.call_tool(
                "write_file", {"path": f"{folder}/copy.csv", "content": first_text}
            )
            note = "Call " + " / ".join(found) + " today."
            await session.call_tool("write_file", {"path": f"{folder}/note.txt", "content": note})
            second = await session.call_tool("read_text_file", {"path": f"{folder}/copy.csv"})
            forged = await session.call_tool(
                "write_file", {"path": f"{folder}/forged.txt", "content": "[EMAIL_999]"}
            )
    print(
        json.dumps(
            {
                "tools": tools,
                "first": first_text,
                "structured": first.structured_content,
                "second": text_of(second),
                "tokens": found,
                "note": note,
                "forged_is_error": forged.is_error,
                "forged_text": text_of(forged),
            }
        )
    )


asyncio.run(main())
