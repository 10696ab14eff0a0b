"""Python MCP client over streamable HTTP -> two `mcp-veil serve` replicas sharing one Redis vault.

usage: http_client.py URL_A URL_B FOLDER RECEIVED_LOG

Phase 1, replica A: initialize (the gateway issues an Mcp-Session-Id), read contacts.csv through
server-filesystem, list the tokens seen; the session is not terminated on exit.
Phase 2, replica B, same Mcp-Session-Id: read notes.txt (a name from contacts.csv in lower case,
which only the session's recall finds: replica B learns it from the shared vault), then write a
file whose content holds the tokens.
Phase 3, replica B, a fresh session: the same tokens are refused (tokens never cross sessions).
Prints a JSON summary; everything the client received is appended to RECEIVED_LOG.
"""

import asyncio
import json
import re
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def run():
    url_a, url_b, folder, log = sys.argv[1:5]
    received = []
    captured = {}

    async def remember(response):
        sid = response.headers.get("mcp-session-id")
        if sid:
            captured["sid"] = sid

    client_a = httpx2.AsyncClient(event_hooks={"response": [remember]}, timeout=60)
    async with client_a:
        async with streamable_http_client(url_a, http_client=client_a, terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = sorted(t.name for t in (await session.list_tools()).tools)
                result = await session.call_tool(
                    "fs__read_text_file", {"path": f"{folder}/contacts.csv"}
                )
                text = text_of(result)
                received.append(result.model_dump_json())
    found = list(dict.fromkeys(TOKEN.findall(text)))
    sid = captured.get("sid")

    client_b = httpx2.AsyncClient(headers={"mcp-session-id": sid}, timeout=60)
    async with client_b:
        async with streamable_http_client(url_b, http_client=client_b) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                notes = await session.call_tool(
                    "fs__read_text_file", {"path": f"{folder}/notes.txt"}
                )
                received.append(notes.model_dump_json())
                wrote = await session.call_tool(
                    "fs__write_file",
                    {"path": f"{folder}/out.txt", "content": "restored: " + " ".join(found)},
                )
                received.append(wrote.model_dump_json())

    async with streamable_http_client(url_b) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            other = await session.call_tool(
                "fs__write_file",
                {"path": f"{folder}/other.txt", "content": " ".join(found)},
            )
            received.append(other.model_dump_json())

    with open(log, "a") as f:
        f.write("\n".join(received))
    print(
        json.dumps(
            {
                "server_name": init.server_info.name,
                "tools": tools,
                "read": text,
                "notes": text_of(notes),
                "tokens": found,
                "session_id": sid,
                "wrote_is_error": wrote.is_error,
                "other_is_error": other.is_error,
                "other_text": text_of(other),
            }
        )
    )


asyncio.run(run())
