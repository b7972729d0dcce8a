#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat model for the interop runs.

Serves POST .../chat/completions on 127.0.0.1 (port printed on the first line
of stdout), answering each request with the next reply of a JSON list (the
last one repeats), and appends every request body to a JSON-lines log.

A request that asks for structured output (`response_format`) is UFO's
startup probe: each OpenAI service UFO builds, and it builds one per model
call, first sends "Hello" with its HostAgent schema to learn whether the
model supports JSON schemas. The probe is answered with an object of that
schema and neither takes a scripted reply nor goes in the log, so the
script's replies reach the agent's real calls in order.

A reply may name what is only known at run time: a string value
"{{window_id:APP}}" or "{{window_name:APP}}" becomes the id or name of APP's
window in the request's last `<Available Applications/Agents:>` list (the
HostAgent's), and "{{control_id:NAME}}" the id of the control NAME in its
last `<Available Control Item:>` list (the AppAgent's; buttons first).

    scripted_model.py REPLIES.json REQUESTS.jsonl

Standard library only: it runs with the system Python and with UFO's venv.
"""
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

replies = json.load(open(sys.argv[1], encoding="utf-8"))
log_path = sys.argv[2]
lock = threading.Lock()
served = [0]
# Every field UFO's HostAgentResponse schema requires.
PROBE_REPLY = {"Observation": "", "Thought": "", "CurrentSubtask": "", "Message": [],
               "Status": "FINISH", "Plan": [], "Questions": [], "Comment": ""}


def request_text(body):
    """Every text part of every message, joined with newlines."""
    out = []
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out.extend(p["text"] for p in c if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "\n".join(out)


def list_after(text, marker):
    """The JSON list that follows the last `marker` in `text` that has one."""
    at = len(text)
    while (at := text.rfind(marker, 0, at)) >= 0:
        try:
            v, _ = json.JSONDecoder().raw_decode(text[at + len(marker):].lstrip())
        except ValueError:
            continue
        if isinstance(v, list):
            return v
    return []


def fill(reply, text):
    """`reply` with its {{kind:ARG}} strings resolved against `text`."""
    if isinstance(reply, dict):
        return {k: fill(v, text) for k, v in reply.items()}
    if isinstance(reply, list):
        return [fill(v, text) for v in reply]
    m = re.fullmatch(r"\{\{(window_id|window_name|control_id):(.+)\}\}", reply) if isinstance(reply, str) else None
    if not m:
        return reply
    kind, arg = m.groups()
    if kind.startswith("window"):
        w = [w for w in list_after(text, "<Available Applications/Agents:>") if w.get("application") == arg]
        return str(w[0].get("id" if kind == "window_id" else "name", "")) if w else ""
    named = [c for c in list_after(text, "<Available Control Item:>") if str(c.get("name", "")).strip() == arg]
    named.sort(key=lambda c: c.get("type") != "Button")
    return str(named[0].get("id", "")) if named else ""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(n)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = {}
        probe = isinstance(parsed, dict) and "response_format" in parsed
        if probe:
            i, text = "probe", json.dumps(PROBE_REPLY)
        else:
            with lock:
                i = min(served[0], len(replies) - 1)
                served[0] += 1
                with open(log_path, "a", encoding="utf-8") as f:
                    f.write(body.decode("utf-8", "replace").replace("\n", " ") + "\n")
            r = replies[i]
            text = r if isinstance(r, str) else json.dumps(fill(r, request_text(parsed) if isinstance(parsed, dict) else ""))
        out = json.dumps({
            "id": f"scripted-{i}",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
