"""The Python SDK 2.3.0 server (`mcp.server.mcpserver.MCPServer`) as its README shows it, for
test/client/PythonInterop.test.ts: `echo` (structured output), `fail` (raises `ToolError`: the SDK answers an
`isError` result whose text is the error's message).

    python python_server.py --stdio
    python python_server.py --http --port 8000
"""
import sys

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer("python-interop")


class Echoed(BaseModel):
    text: str


@mcp.tool()
def echo(text: str) -> Echoed:
    """Echoes its text back as structured content."""
    return Echoed(text=text)


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"refused: {reason}")


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        mcp.run("streamable-http", host="127.0.0.1", port=port)
    else:
        mcp.run()
