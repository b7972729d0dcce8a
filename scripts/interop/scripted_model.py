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

    scripted_model.py REPLIES.json REQUESTS.jsonl

Standard library only: it runs with the system Python and with UFO's venv.
"""
import json
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


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(n)
        try:
            probe = "response_format" in json.loads(body)
        except ValueError:
            probe = False
        if probe:
            i, text = "probe", json.dumps(PROBE_REPLY)
        else:
            with lock:
                i = min(served[0], len(replies) - 1)
                served[0] += 1
                with open(log_path, "a", encoding="utf-8") as f:
                    f.write(body.decode("utf-8", "replace").replace("\n", " ") + "\n")
            text = replies[i] if isinstance(replies[i], str) else json.dumps(replies[i])
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
