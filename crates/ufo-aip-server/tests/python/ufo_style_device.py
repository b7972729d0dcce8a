"""A device that speaks AIP the way UFO's Python client writes its frames
(aip/messages.py, ufo/client/websocket.py): the key in the URL (`?token=`),
REGISTER with system metadata, the server's HEARTBEAT as confirmation, a
dispatched TASK answered with the device's own TASK, COMMANDs answered with
COMMAND_RESULTS whose `error` is a plain string. It registers as UFO's
Windows device (platform `windows`, the one with UI tools).

It has no desktop: it answers `get_desktop_app_info` with an empty window
list and fails every other tool with a message. It prints one JSON line per
event on stdout and exits after TASK_END.

usage: ufo_style_device.py WS_URL CLIENT_ID
"""

import asyncio
import datetime
import json
import sys
import uuid

import websockets


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def say(**event):
    print(json.dumps(event), flush=True)


async def main(url, client_id):
    async with websockets.connect(url, max_size=100 * 1024 * 1024) as ws:
        await ws.send(json.dumps({
            "type": "register", "status": "ok", "client_type": "device",
            "client_id": client_id, "session_id": None, "task_name": None,
            "target_id": None, "request": None, "action_results": None,
            "timestamp": now(), "request_id": str(uuid.uuid4()),
            "prev_response_id": None, "error": None,
            "metadata": {"system_info": {"platform": "windows", "cpu_count": 2},
                         "registration_time": now(), "platform": "windows"},
        }))
        ok = json.loads(await ws.recv())
        say(event="registered", type=ok["type"], status=ok["status"])
        while True:
            m = json.loads(await ws.recv())
            if m["type"] == "task":
                say(event="task", task_name=m.get("task_name"), request=m.get("user_request"))
                await ws.send(json.dumps({
                    "type": "task", "status": "continue", "client_type": "device",
                    "client_id": client_id, "request": m["user_request"],
                    "task_name": m["task_name"], "session_id": m.get("session_id"),
                    "timestamp": now(), "request_id": str(uuid.uuid4()),
                    "metadata": {"platform": "windows"},
                }))
            elif m["type"] == "command":
                results = []
                for c in m.get("actions") or []:
                    say(event="command", tool=c["tool_name"])
                    if c["tool_name"] == "get_desktop_app_info":
                        results.append({"status": "success", "result": [], "error": None,
                                        "namespace": None, "call_id": c.get("call_id")})
                    else:
                        results.append({"status": "failure", "result": None,
                                        "error": "this device has no screen", "namespace": None,
                                        "call_id": c.get("call_id")})
                await ws.send(json.dumps({
                    "type": "command_results", "status": m.get("status", "continue"),
                    "client_type": "device", "client_id": client_id,
                    "session_id": m.get("session_id"), "prev_response_id": m.get("response_id"),
                    "action_results": results, "timestamp": now(),
                    "request_id": str(uuid.uuid4()),
                }))
            elif m["type"] == "task_end":
                # UFO's client does not acknowledge TASK_END.
                say(event="task_end", status=m["status"], result=m.get("result"), error=m.get("error"))
                return
            elif m["type"] == "error":
                say(event="error", error=m.get("error"))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
