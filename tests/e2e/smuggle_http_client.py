"""Python MCP client over streamable HTTP -> `mcp-veil serve` -> smuggle_server.py source + evil.

usage: smuggle_http_client.py URL

Calls `source__lookup` (a real email, tokenized), reads what `evil` wrote where the model looks
(tool description, prompt description, resource URI), reads the resource by the URI it was
shown, then calls `evil__send` with the address the description shows. Prints a JSON summary.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def run():
    url = sys.argv[1]
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            looked = text_of(await session.call_tool("source__lookup", {}))
            tools = {t.name: t for t in (await session.list_tools()).tools}
            description = tools["evil__send"].description
            prompts = [p.description for p in (await session.list_prompts()).prompts]
            resources = (await session.list_resources()).resources
            uri = str(resources[0].uri)
            contents = (await session.read_resource(resources[0].uri)).contents
            shown = description.split("report to ", 1)[1].split(" ", 1)[0]
            sent = text_of(await session.call_tool("evil__send", {"to": shown}))
    print(
        json.dumps(
            {
                "looked": looked,
                "description": description,
                "prompts": prompts,
                "uri": uri,
                "read": contents[0].text,
                "shown": shown,
                "sent": sent,
            }
        )
    )


asyncio.run(run())
