"""A tiny MCP server (Python SDK) for gateway failure tests.

usage: tiny_server.py collide | crashy

collide: two tools whose names collide once normalised (`get.item`, `get_item`).
crashy:  `hello` (returns an employee id) and `crash` (the process exits at once).
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

mode = sys.argv[1]
server = MCPServer("tiny")

if mode == "collide":

    @server.tool(name="get.item")
    def get_dot_item() -> str:
        return "dot"

    @server.tool(name="get_item")
    def get_underscore_item() -> str:
        return "underscore"

else:

    @server.tool()
    def hello() -> str:
        return "hello EMP-123456"

    @server.tool()
    def crash() -> str:
        sys.stdout.flush()
        os._exit(3)

server.run("stdio")
