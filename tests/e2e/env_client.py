"""Calls server-everything's `get-env` tool through mcp-veil and prints what the client got.

usage: env_client.py stdio TOOL CMD [ARGS...]     # the layer over stdio, given this process's
                                                  # WHOLE environment (not the SDK's default set)
       env_client.py http TOOL URL BEARER_TOKEN   # `mcp-veil serve` over streamable HTTP

Prints {"text": <the tool's text content>, "is_error": bool}.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(read, write, tool):
    async with ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(tool, {})
        return {"text": text_of(result), "is_error": bool(result.is_error)}


async def main():
    mode, tool = sys.argv[1:3]
    if mode == "stdio":
        command, *args = sys.argv[3:]
        params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await call(read, write, tool)
    else:
        url, token = sys.argv[3:5]
        client = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60)
        async with client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                out = await call(read, write, tool)
    print(json.dumps(out))


asyncio.run(main())
