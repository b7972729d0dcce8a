"""Drives `ufo mcp` with the Python MCP SDK (the `mcp` package): an MCP
client from another ecosystem than ours.

    python drive_ufo.py --http http://127.0.0.1:8765/mcp --key-file mcp.key [--app mousepad] [--text "..."]
    python drive_ufo.py --stdio -- ufo mcp --desktop work

It initializes, lists the tools (and checks their annotations), selects the
application's window, lists its controls and sets the text of its first edit
control. It prints one JSON line with what it saw; it exits non-zero on any
failure.
"""

import argparse
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def fail(message):
    print(f"drive_ufo: {message}", file=sys.stderr)
    sys.exit(1)


def attr(obj, camel, snake):
    """A field of an SDK object: mcp 1.x spells it camelCase, 2.x snake_case."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def hint(tool, camel, snake):
    """An annotation of `tool`, or None."""
    return None if tool.annotations is None else attr(tool.annotations, camel, snake)


def result_json(result, tool):
    if attr(result, "isError", "is_error"):
        fail(f"{tool} failed: {result.content}")
    texts = [c.text for c in result.content if c.type == "text"]
    return json.loads(texts[-1])


async def drive(session, app, text):
    init = await session.initialize()
    tools = (await session.list_tools()).tools
    by_name = {t.name: t for t in tools}
    for name in ("get_desktop_app_info", "get_app_window_controls_target_info", "capture_window_screenshot"):
        if hint(by_name[name], "readOnlyHint", "read_only_hint") is not True:
            fail(f"{name} is not marked read-only: {by_name[name].annotations}")
    if hint(by_name["set_edit_text"], "destructiveHint", "destructive_hint") is not True:
        fail("set_edit_text is not marked destructive")
    if hint(by_name["click_input"], "destructiveHint", "destructive_hint") is not False:
        fail("click_input is marked destructive")

    windows = result_json(await session.call_tool("get_desktop_app_info", {}), "get_desktop_app_info")
    window = next((w for w in windows if w["app_name"] == app), None)
    if window is None:
        fail(f"no window of {app} in {[w['app_name'] for w in windows]}")
    result_json(
        await session.call_tool("select_application_window", {"id": window["id"], "name": window["name"]}),
        "select_application_window",
    )
    controls = result_json(
        await session.call_tool("get_app_window_controls_target_info", {}),
        "get_app_window_controls_target_info",
    )
    edit = next(
        (c for c in controls["controls"]
         if c["capabilities"]["editable_text"] and c["type"] in ("Edit", "Document")),
        None,
    )
    if edit is None:
        fail(f"no edit control among {[c['name'] for c in controls['controls']]}")
    setting = await session.call_tool(
        "set_edit_text",
        {"id": str(edit["id"]), "name": edit["name"], "text": text, "clear_current_text": True},
    )
    if attr(setting, "isError", "is_error"):
        fail(f"set_edit_text failed: {setting.content}")
    shot = await session.call_tool("capture_window_screenshot", {})
    images = [c for c in shot.content if c.type == "image"]
    print(json.dumps({
        "server": attr(init, "serverInfo", "server_info").name,
        "protocol": attr(init, "protocolVersion", "protocol_version"),
        "tools": len(tools),
        "window": window["name"],
        "control": edit["name"],
        "image": attr(images[0], "mimeType", "mime_type") if images else None,
    }))


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--http", help="the endpoint, e.g. http://127.0.0.1:8765/mcp")
    p.add_argument("--key-file", help="the API key file of `ufo mcp --api-key-file`")
    p.add_argument("--stdio", action="store_true", help="start the command after -- and talk over its stdio")
    p.add_argument("--app", default="mousepad")
    p.add_argument("--text", default="typed by the Python MCP client")
    p.add_argument("command", nargs="*")
    a = p.parse_args()
    if a.stdio:
        if not a.command:
            fail("--stdio needs the server command after --")
        params = StdioServerParameters(command=a.command[0], args=a.command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await drive(session, a.app, a.text)
    elif a.http:
        key = open(a.key_file).read().strip() if a.key_file else ""
        headers = {"Authorization": f"Bearer {key}"}
        # (mcp 1.x and 2.x both take the headers through their HTTP client.)
        client = create_mcp_http_client(headers=headers)
        async with streamable_http_client(a.http, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await drive(session, a.app, a.text)
    else:
        fail("give --http URL or --stdio -- COMMAND")


asyncio.run(main())
