"""A stdio MCP server (Python SDK, FastMCP) that lets its client down on
request: `crash` exits the process in the middle of the call, `hang` never
answers, `fail` answers with a tool error. `echo` works (until a crash)."""

import asyncio
import os

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("flaky")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Returns the text."""
    return text


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(reason)


@mcp.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "late"


@mcp.tool()
def crash() -> str:
    """Exits the server in the middle of the call."""
    os._exit(3)


mcp.run()
