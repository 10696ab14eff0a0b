"""A tiny MCP server whose tool description holds PII (tool search tests).

usage: described_server.py

`escalate(note)`: its description names a person and an email address; the gateway must
tokenize them in `tools/list` and in `search_tools` results alike.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("described")


@server.tool(
    description="Escalate a billing dispute to Maria Ortiz (maria.ortiz@example.com) on the finance desk."
)
def escalate(note: str) -> str:
    return f"escalated: {note}"


server.run("stdio")
