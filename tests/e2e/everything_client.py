"""E2E (c): Python MCP client -> [mcp-veil proxy ->] server-everything.

usage: everything_client.py MODE EVERYTHING_SERVER RECEIVED_LOG [VEIL CONFIG]

MODE is `direct` (the client talks to the server), `proxy` (through `mcp-veil proxy -- CMD`) or
`gateway` (through `mcp-veil proxy --config` whose `servers:` names it `everything`; tools are
then called `everything__NAME` and reported without the prefix). The same
script runs both ways so the test can compare results. It echoes personal values (the server
returns them, so the proxy mints tokens), then exercises progress, sampling (the server asks the
client's model; the callback answers by quoting what it was asked), elicitation (the callback
answers with the values it saw), logging and structured content. Prints a JSON summary.
"""

import asyncio
import hashlib
import json
import re
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")
EMPLOYEE = "EMP-123456"
EMAIL = "maria.ortiz@example.com"


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    mode, everything, log = sys.argv[1:4]
    prefix = "everything__" if mode == "gateway" else ""
    if mode == "proxy":
        veil, config = sys.argv[4:6]
        script = 'exec "$0" proxy --config "$1" -- "$2" stdio | tee "$3"'
        args = ["-c", script, veil, config, everything, log]
    elif mode == "gateway":
        veil, config = sys.argv[4:6]
        args = ["-c", 'exec "$0" proxy --config "$1" | tee "$2"', veil, config, log]
    else:
        args = ["-c", 'exec "$0" stdio | tee "$1"', everything, log]
    params = StdioServerParameters(command="sh", args=args)

    seen = {"sampling": [], "elicitation": [], "logs": [], "progress": []}
    answers = {}

    async def sampling(context, p: types.CreateMessageRequestParams):
        text = " ".join(m.content.text for m in p.messages if getattr(m.content, "type", "") == "text")
        seen["sampling"].append({"text": text, "system": p.system_prompt})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"You asked: {text}"),
            model="echo-model",
            stop_reason="endTurn",
        )

    async def elicitation(context, p):
        seen["elicitation"].append(p.message)
        return types.ElicitResult(
            action="accept",
            content={"name": answers["employee"], "email": answers["email"], "check": True},
        )

    async def logging(p: types.LoggingMessageNotificationParams):
        seen["logs"].append({"level": p.level, "data": p.data})

    async def progress(value, total, message):
        seen["progress"].append(value)

    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read,
            write,
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            logging_callback=logging,
        ) as session:
            await session.initialize()
            tools = sorted(t.name.removeprefix(prefix) for t in (await session.list_tools()).tools)

            async def call(name, arguments, **kw):
                return await session.call_tool(prefix + name, arguments, **kw)

            echo = text_of(
                await call("echo", {"message": f"employee {EMPLOYEE} mail {EMAIL}"})
            )
            # What the model would use for these values: tokens through the proxy, raw directly.
            found = TOKEN.findall(echo)
            if mode != "direct":
                answers["employee"] = next(t for t in found if t.startswith("[EMPLOYEE_ID_"))
                answers["email"] = next((t for t in found if t.startswith("[EMAIL_")), EMAIL)
            else:
                answers["employee"], answers["email"] = EMPLOYEE, EMAIL
            image = await call("get-tiny-image", {})
            image_data = [c.data for c in image.content if getattr(c, "type", "") == "image"]
            long_run = text_of(
                await call(
                    "trigger-long-running-operation",
                    {"duration": 1, "steps": 3},
                    progress_callback=progress,
                )
            )
            sampled = text_of(
                await call(
                    "trigger-sampling-request",
                    {"prompt": f"check employee {answers['employee']}", "maxTokens": 20},
                )
            )
            elicited = text_of(await call("trigger-elicitation-request", {}))
            structured = await call("get-structured-content", {"location": "New York"})
            await call("toggle-simulated-logging", {})
            for _ in range(80):
                if seen["logs"]:
                    break
                await asyncio.sleep(0.1)
            await call("toggle-simulated-logging", {})
    print(
        json.dumps(
            {
                "tools": tools,
                "echo": echo,
                "answers": answers,
                "image_sha256": [hashlib.sha256(d.encode()).hexdigest() for d in image_data],
                "long_run": long_run,
                "sampled": sampled,
                "elicited": elicited,
                "structured": structured.structured_content,
                "seen": seen,
            }
        )
    )


asyncio.run(main())
