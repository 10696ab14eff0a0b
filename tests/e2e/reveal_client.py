"""E2E: partial reveals through mcp-veil proxy -> server-filesystem.

usage: reveal_client.py VEIL CONFIG FS_SERVER DIR RECEIVED_LOG

Reads contacts.csv (tokens with revealed parts), writes its text back as copy.csv (the exact
values on disk), writes a note with one token's part changed (refused: unknown token) and one
with the bare token (restored), and prints a JSON summary on stdout.
"""

import asyncio
import json
import re
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*(?: [A-Za-z0-9@.+-]+(?: [A-Za-z0-9@.+-]+)*)?\]")


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
            first = await session.call_tool("read_text_file", {"path": f"{folder}/contacts.csv"})
            first_text = text_of(first)
            found = list(dict.fromkeys(TOKEN.findall(first_text)))
            await session.call_tool(
                "write_file", {"path": f"{folder}/copy.csv", "content": first_text}
            )
            email = next(t for t in found if t.startswith("[EMAIL_"))
            bare = email.split(" ")[0] + "]"
            altered = email.split(" ")[0] + " @evil.example]"
            await session.call_tool(
                "write_file", {"path": f"{folder}/bare.txt", "content": f"to {bare}"}
            )
            refused = await session.call_tool(
                "write_file", {"path": f"{folder}/altered.txt", "content": f"to {altered}"}
            )
            second = await session.call_tool("read_text_file", {"path": f"{folder}/copy.csv"})
    print(
        json.dumps(
            {
                "first": first_text,
                "second": text_of(second),
                "tokens": found,
                "altered_is_error": refused.is_error,
                "altered_text": text_of(refused),
            }
        )
    )


asyncio.run(main())
