#!/usr/bin/env python3
"""The driver of scripts/interop/ufo-upstream.sh (see there). Standard library only."""
import argparse
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT = 120.0  # a task that takes this long waited out a timeout somewhere


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Run:
    def __init__(self, work):
        self.work = work
        self.procs = []
        self.failures = []
        self.lines = []

    def start(self, name, cmd, env=None, cwd=None, stdout=None):
        log = open(os.path.join(self.work, name + ".log"), "w")
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=stdout or log,
                             stderr=log, start_new_session=True)
        self.procs.append((name, p))
        return p

    def stop_all(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()

    def check(self, ok, what):
        line = ("PASS " if ok else "FAIL ") + what
        print(line, flush=True)
        self.lines.append(line)
        if not ok:
            self.failures.append(what)
        return ok


def wait_until(pred, what, limit=60.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    raise RuntimeError(f"timed out waiting for {what}")


def port_open(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def http(method, url, key=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("content-type", "application/json")
    if key:
        req.add_header("x-api-key", key)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def model(run, name, replies):
    path = os.path.join(run.work, name + "-replies.json")
    with open(path, "w") as f:
        json.dump(replies, f)
    log = os.path.join(run.work, name + "-requests.jsonl")
    p = run.start(name, [sys.executable, os.path.join(HERE, "scripted_model.py"), path, log],
                  stdout=subprocess.PIPE)
    port = int(p.stdout.readline())
    return f"http://127.0.0.1:{port}/v1", log


def requests_text(log):
    if not os.path.exists(log):
        return []
    return [line for line in open(log, encoding="utf-8")]


def tree_contains(root, needle):
    b = needle.encode()
    for d, _, files in os.walk(root):
        for f in files:
            try:
                if b in open(os.path.join(d, f), "rb").read():
                    return os.path.join(d, f)
            except OSError:
                pass
    return None


def rs_reply(function, arguments, status, result=""):
    return {"observation": "", "thought": "", "plan": [], "comment": "", "result": result,
            "action": {"function": function, "arguments": arguments, "status": status}}


def start_serve(run, ufo, name, cfg, env, log_dir, extra=()):
    """`ufo serve` on a free port; its address (host:port)."""
    serve = run.start(name, [ufo, "serve", "--port", "0", "--config", cfg, "--log-dir", log_dir, *extra],
                      env=env, stdout=subprocess.PIPE)
    line = ""
    while "ws://" not in line:
        line = serve.stdout.readline().decode()
        if not line:
            raise RuntimeError(f"ufo serve exited; see {name}.log")
    return line.split("ws://")[1].split("/ws")[0]


# What gnome-calculator's display shows, read with the system's pyatspi (the
# desktop's accessibility bus, not ufo-rs): every editable text's contents.
ATSPI_READ = r"""
import pyatspi
found = []
def walk(a, depth):
    if a is None or depth > 60:
        return
    try:
        if a.getState().contains(pyatspi.STATE_EDITABLE) and a.getRoleName() == "text":
            t = a.queryText()
            found.append(t.getText(0, t.characterCount))
        for i in range(a.childCount):
            walk(a.getChildAtIndex(i), depth + 1)
    except Exception:
        pass
for app in pyatspi.Registry.getDesktop(0):
    if app is not None and app.name == "gnome-calculator":
        walk(app, 0)
print("\n".join(found))
"""


def calculator_shows(env):
    out = subprocess.run(["/usr/bin/python3", "-c", ATSPI_READ], env=env, capture_output=True,
                         text=True, timeout=60)
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def rs_host_assign(app, subtask):
    """ufo-rs's HostAgent choosing `app`'s window (its id and name filled in by
    scripted_model.py from the prompt)."""
    return {"observation": f"{app} is open", "thought": "assign", "current_subtask": subtask,
            "message": [], "plan": [], "status": "ASSIGN", "function": "select_application_window",
            "arguments": {"id": f"{{{{window_id:{app}}}}}", "name": f"{{{{window_name:{app}}}}}"},
            "questions": [], "comment": "", "result": ""}


def rs_click(name):
    return {"observation": "the calculator", "thought": f"click {name}", "plan": [], "comment": "",
            "action": {"function": "click_input", "arguments": {"id": f"{{{{control_id:{name}}}}}", "name": name},
                       "status": "CONTINUE"}}


def ufo_reply(function, arguments, status, result=""):
    """A reply in the shape of UFO's LinuxAgent examples
    (ufo/prompts/third_party/linux_agent_example.yaml)."""
    return {"observation": "scripted", "thought": "scripted",
            "action": {"function": function, "arguments": arguments, "status": status},
            "plan": [], "result": result}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ufo-src", required=True)
    ap.add_argument("--venv", required=True)
    ap.add_argument("--ufo-bin", required=True)
    ap.add_argument("--parts", default="abc", help="which parts to run (default abc)")
    a = ap.parse_args()
    parts = set(a.parts)
    work = tempfile.mkdtemp(prefix="ufo-interop-")
    run = Run(work)
    ufo = a.ufo_bin
    py = os.path.join(a.venv, "bin", "python")
    desktop = "interop-" + secrets.token_hex(3)
    base_env = {k: v for k, v in os.environ.items() if k not in ("UFO_CONFIG", "UFO_API_KEY", "UFO_DESKTOP")}
    print(f"work dir: {work}", flush=True)
    try:
        # UFO runs from a copy (its config files are written there).
        usrc = os.path.join(work, "ufo")
        shutil.copytree(a.ufo_src, usrc, ignore=shutil.ignore_patterns(".git", "documents", "assets"))
        mcp_port = free_port()
        mcp_yaml = os.path.join(usrc, "config", "ufo", "mcp.yaml")
        text = open(mcp_yaml).read().replace("port: 8010", f"port: {mcp_port}")
        open(mcp_yaml, "w").write(text)
        with open(os.path.join(usrc, "config", "ufo", "system_interop.yaml"), "w") as f:
            f.write("EVA_SESSION: False\nEVA_ROUND: False\nMAX_STEP: 10\nSLEEP_TIME: 0\nLOG_TO_MARKDOWN: False\n")

        subprocess.run([ufo, "desktop", "start", "--name", desktop], check=True,
                       stdout=subprocess.DEVNULL, env=base_env)
        denv = subprocess.run([ufo, "desktop", "env", "--name", desktop], check=True,
                              capture_output=True, text=True, env=base_env).stdout
        env = dict(base_env)
        for line in denv.splitlines():
            line = line.strip()
            if line.startswith("export ") and "=" in line:
                k, v = line[len("export "):].split("=", 1)
                env[k] = v.strip("'\"")
        data = os.path.join(work, "data")
        os.makedirs(data)
        tok = {k: f"{k}-{secrets.token_hex(4)}" for k in ("alpha", "beta", "gamma")}
        for k, v in tok.items():
            open(os.path.join(data, k + ".txt"), "w").write(v + "\n")
        mcp_key = "mcp-" + secrets.token_urlsafe(12)

        if "a" in parts:
            part_a(run, a, ufo, py, usrc, env, work, data, tok, mcp_key, mcp_port)
        if "b" in parts:
            part_b(run, ufo, py, usrc, env, work, data, tok, desktop)
        if "c" in parts:
            part_c(run, ufo, py, usrc, env, work, desktop)
    except Exception as e:  # noqa: BLE001
        run.check(False, f"the run stopped: {e}")
    finally:
        run.stop_all()
        subprocess.run([ufo, "desktop", "stop", "--name", desktop], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=base_env)
    print(f"{len(run.lines) - len(run.failures)}/{len(run.lines)} checks passed; logs in {work}")
    sys.exit(1 if run.failures else 0)


def part_a(run, a, ufo, py, usrc, env, work, data, tok, mcp_key, mcp_port):
    # ---------------- (a) UFO's client under `ufo serve` ----------------
    print("== (a) UFO's real client as the device under `ufo serve`", flush=True)
    base_a, log_a = model(run, "model-a", [
        rs_reply("execute_command", {"command": f"cat {data}/alpha.txt"}, "CONTINUE"),
        rs_reply("", {}, "FINISH", "alpha read"),
        rs_reply("execute_command", {"command": f"cat {data}/beta.txt"}, "CONTINUE"),
        rs_reply("", {}, "FINISH", "beta read"),
    ])
    m = f"  API_TYPE: custom\n  API_BASE: {base_a}\n  API_MODEL: scripted\n  MAX_RETRY: 0\n"
    cfg_a = os.path.join(work, "serve.yaml")
    open(cfg_a, "w").write(
        f"HOST_AGENT:\n{m}APP_AGENT:\n{m}MAX_STEP: 10\nSLEEP_TIME: 0\nEVA_SESSION: false\n"
        "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n"
        "DEVICE_TOOL_ARGUMENTS:\n  api_key: \"${UFO_MCP_API_KEY}\"\n")
    key_a = base64_key()
    senv = dict(env, UFO_API_KEY=key_a, UFO_MCP_API_KEY=mcp_key, UFO_LOG="info")
    # DEVICE_TOOL_ARGUMENTS (the MCP server's key) go only to devices named
    # by --tool-arguments-for.
    addr = start_serve(run, ufo, "ufo-serve", cfg_a, senv, os.path.join(work, "logs-a"),
                       ["--tool-arguments-for", "ufo-linux"])
    api = f"http://{addr}/api"
    run.start("ufo-linux-mcp", [py, "-m", "ufo.client.mcp.http_servers.linux_mcp_server",
                                "--port", str(mcp_port)], env=dict(env, UFO_MCP_API_KEY=mcp_key), cwd=usrc)
    wait_until(lambda: port_open(mcp_port), "UFO's Linux MCP server")
    ws = f"ws://{addr}/ws?token={urllib.parse.quote(key_a, safe='')}"
    run.start("ufo-client", [py, "-m", "ufo.client.client", "--ws", "--ws-server", ws,
                             "--client-id", "ufo-linux", "--platform", "linux", "--log-level", "INFO"],
              env=dict(env, UFO_ENV="interop"), cwd=usrc)
    wait_until(lambda: "ufo-linux" in http("GET", api + "/clients", key_a)["online_clients"],
               "UFO's client to register")
    for name, body, k in (
        ("interop-a1", {"mode": "linux_service"}, "alpha"),
        ("interop-a2", {}, "beta"),
    ):
        t0 = time.monotonic()
        d = http("POST", api + "/dispatch", key_a,
                 dict(body, client_id="ufo-linux", request=f"What does {k}.txt say?", task_name=name))
        r = wait_until(lambda: (lambda x: x if x.get("status") == "done" else None)(
            http("GET", f"{api}/task_result/{name}", key_a)), f"{name} to end", LIMIT)
        dt = time.monotonic() - t0
        res = r.get("result")
        first = res[0] if isinstance(res, list) and res else {}
        run.check(isinstance(res, list) and "request" in first and "result" in first,
                  f"{name}: /api/task_result is UFO's list of {{request, result}}")
        run.check(first.get("status") == "FINISH", f"{name}: TASK_END completed (status {first.get('status')}, {dt:.1f} s, mode {body.get('mode', 'none: from the platform')})")
        reqs = requests_text(log_a)
        run.check(any(tok[k] in q for q in reqs),
                  f"{name}: the command ran through UFO's client and Linux MCP server (its output {tok[k]!r} reached the model)")
        run.check(dt < 60, f"{name}: no command waited out a timeout ({dt:.1f} s)")
        log_dir = first.get("log_dir") or ""
        run.check(d.get("session_id") and os.path.exists(log_dir), f"{name}: session {d.get('session_id')} logged at {log_dir}")
    run.check(not any(mcp_key in q for q in requests_text(log_a)), "(a) the device tool key never reached the model")
    leaked = tree_contains(os.path.join(work, "logs-a"), mcp_key)
    run.check(leaked is None, f"(a) the device tool key is in no session log ({leaked or 'none'})")



def part_b(run, ufo, py, usrc, env, work, data, tok, desktop):
    # ---------------- (b) `ufo client` under UFO's server ----------------
    print("== (b) `ufo client` under UFO's real server", flush=True)
    base_b, log_b = model(run, "model-b", [
        ufo_reply("execute_command", {"command": f"cat {data}/gamma.txt", "timeout": 30}, "CONTINUE"),
        ufo_reply("", {}, "FINISH", "gamma read"),
    ])
    agent = (f"  VISUAL_MODE: False\n  REASONING_MODEL: False\n  API_TYPE: openai\n  API_BASE: {base_b}\n"
             f"  API_KEY: scripted\n  API_VERSION: x\n  API_MODEL: scripted\n")
    with open(os.path.join(usrc, "config", "ufo", "agents.yaml"), "w") as f:
        f.write(f"HOST_AGENT:\n{agent}  PROMPT: ufo/prompts/share/base/host_agent.yaml\n"
                f"  EXAMPLE_PROMPT: ufo/prompts/examples/{{mode}}/host_agent_example.yaml\n"
                f"APP_AGENT:\n{agent}  PROMPT: ufo/prompts/share/base/app_agent.yaml\n"
                f"  EXAMPLE_PROMPT: ufo/prompts/examples/{{mode}}/app_agent_example.yaml\n"
                f"BACKUP_AGENT:\n{agent}EVALUATION_AGENT:\n{agent}")
    key_b = base64_key()
    srv_port = free_port()
    run.start("ufo-server", [py, "-m", "ufo.server.app", "--port", str(srv_port), "--host", "127.0.0.1",
                             "--api-key", key_b, "--platform", "linux", "--log-level", "INFO"],
              env=dict(env, UFO_ENV="interop"), cwd=usrc)
    wait_until(lambda: port_open(srv_port), "UFO's server", 120)
    cfg_b = os.path.join(work, "client.yaml")
    open(cfg_b, "w").write("ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n")
    t0 = time.monotonic()
    p = run.start("ufo-client-rs", [ufo, "client", "--server", f"ws://127.0.0.1:{srv_port}/ws",
                                    "--client-id", "rs-dev", "--config", cfg_b, "--desktop", desktop,
                                    "-r", "What does gamma.txt say?", "-t", "interop-b1"],
                  env=dict(env, UFO_API_KEY=key_b, UFO_LOG="info"), stdout=subprocess.PIPE)
    try:
        out, _ = p.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    dt = time.monotonic() - t0
    out = out.decode(errors="replace")
    print(out.strip(), flush=True)
    run.check(p.returncode == 0, f"interop-b1: `ufo client` exited {p.returncode} ({dt:.1f} s)")
    reqs_b = requests_text(log_b)
    run.check(len(reqs_b) == 2 and tok["gamma"] not in reqs_b[0] and tok["gamma"] in reqs_b[1],
              f"interop-b1: UFO's LinuxAgent ran the scripted execute_command on the ufo-rs device "
              f"(the file's content {tok['gamma']!r} reached UFO's model in its next call; {len(reqs_b)} model calls)")
    run.check("interop-b1: FINISH" in out, "interop-b1: the client reported UFO's TASK_END as finished")
    run.check(dt < 60, f"interop-b1: no command waited out a timeout ({dt:.1f} s)")
def part_c(run, ufo, py, usrc, env, work, desktop):
    """(c) UFO's Galaxy client (`python -m galaxy --request`) drives `ufo serve`."""
    print("== (c) UFO's real Galaxy client drives `ufo serve` (a `ufo client` device)", flush=True)
    device_id = "rs_pc"
    galaxy_task = "interop_c1"
    answer = f"6*7 = 42 ({secrets.token_hex(4)})"  # the device's result, for Galaxy's agent to see
    subprocess.run([ufo, "desktop", "launch", "--name", desktop, "gnome-calculator"], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    # The device's agents under `ufo serve`: HostAgent picks the calculator,
    # AppAgent clicks 6 × 7 =, both finish.
    base_d, log_d = model(run, "model-c-device", [
        rs_host_assign("gnome-calculator", "Compute 6*7"),
        rs_click("6"), rs_click("×"), rs_click("7"), rs_click("="),
        {"observation": "42 is shown", "thought": "complete", "result": "42",
         "action": {"function": "summary", "arguments": {"text": "42"}, "status": "FINISH"}},
        {"observation": "done", "thought": "finished", "status": "FINISH", "result": answer},
    ])
    m = f"  API_TYPE: custom\n  API_BASE: {base_d}\n  API_MODEL: scripted\n  MAX_RETRY: 0\n"
    cfg = os.path.join(work, "serve-c.yaml")
    open(cfg, "w").write(f"HOST_AGENT:\n{m}APP_AGENT:\n{m}MAX_STEP: 20\nSLEEP_TIME: 0\nEVA_SESSION: false\n")
    key = base64_key()
    addr = start_serve(run, ufo, "ufo-serve-c", cfg, dict(env, UFO_API_KEY=key, UFO_LOG="info"),
                       os.path.join(work, "logs-c"))
    api = f"http://{addr}/api"
    run.start("ufo-client-c", [ufo, "client", "--server", f"ws://{addr}/ws", "--client-id", device_id,
                               "--desktop", desktop], env=dict(env, UFO_API_KEY=key, UFO_LOG="info"))
    wait_until(lambda: device_id in http("GET", api + "/clients", key)["online_clients"],
               "the `ufo client` device to register")

    # UFO's ConstellationAgent: one task on the device, then (asked again when
    # it ends) FINISH with no edits, in the shape its prompts ask for
    # (galaxy/prompts/constellation/share/constellation_{creation,editing}.yaml).
    base_g, log_g = model(run, "model-c-galaxy", [
        {"thought": "One task: the product on the calculator of the only device.", "status": "CONTINUE",
         "constellation": {"tasks": [{"task_id": "task-mul", "name": "multiply",
                                      "description": "Compute 6*7 with gnome-calculator.",
                                      "tips": ["Expected textual result: the number shown."],
                                      "target_device_id": device_id}],
                           "dependencies": []},
         "results": None},
        {"thought": "The only task completed.", "status": "FINISH", "action": [], "results": "6*7 = 42"},
    ])
    gdir = os.path.join(usrc, "config", "galaxy")
    agent = open(os.path.join(gdir, "agent.yaml.template"), encoding="utf-8").read()
    for k, v in (("API_TYPE", "openai"), ("API_BASE", base_g), ("API_KEY", "scripted"), ("API_MODEL", "scripted")):
        agent = re.sub(rf"(?m)^(\s+{k}:).*$", lambda mm: f'{mm.group(1)} "{v}"', agent)
    open(os.path.join(gdir, "agent.yaml"), "w", encoding="utf-8").write(agent)
    ws = f"ws://{addr}/ws?token={urllib.parse.quote(key, safe='')}"
    open(os.path.join(gdir, "devices.yaml"), "w", encoding="utf-8").write(
        "devices:\n"
        f"  - device_id: \"{device_id}\"\n    server_url: \"{ws}\"\n    os: \"linux\"\n"
        "    capabilities:\n      - \"gnome-calculator\"\n"
        "    metadata:\n      os: \"linux\"\n    auto_connect: true\n    max_retries: 1\n")
    out_dir = os.path.join(work, "galaxy-out")
    t0 = time.monotonic()
    p = run.start("ufo-galaxy", [py, "-m", "galaxy", "--request", "Compute 6*7 on the calculator",
                                 "--task-name", galaxy_task, "--session-name", "interop_c",
                                 "--output-dir", out_dir, "--log-level", "INFO"],
                  env=dict(env, UFO_ENV="interop", PYTHONIOENCODING="utf-8", COLUMNS="200"), cwd=usrc,
                  stdout=subprocess.PIPE)
    try:
        out, _ = p.communicate(timeout=2 * LIMIT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    dt = time.monotonic() - t0
    out = out.decode(errors="replace")
    open(os.path.join(work, "ufo-galaxy.out"), "w").write(out)
    glog = open(os.path.join(work, "ufo-galaxy.log"), encoding="utf-8", errors="replace").read()
    run.check(p.returncode == 0, f"interop-c1: UFO's Galaxy exited {p.returncode} ({dt:.1f} s)")
    result_file = os.path.join(out_dir, "interop_c_result.json")
    result = json.load(open(result_file)) if os.path.exists(result_file) else {}
    cons = result.get("constellation") or {}
    run.check(result.get("status") == "completed" and cons.get("state") == "completed"
              and cons.get("task_count") == 1,
              f"interop-c1: Galaxy's result: request {result.get('status')}, constellation "
              f"{cons.get('state')} with {cons.get('task_count')} task ({result_file})")
    said = out + glog
    run.check(f"Task task-mul completed on device {device_id} (status: TaskStatus.COMPLETED)" in said
              or f"Task task-mul completed on device {device_id} (status: completed)" in said,
              "interop-c1: Galaxy's client got TASK_END completed for task-mul from the device")
    reqs_g = requests_text(log_g)
    host = socket.gethostname()
    run.check(bool(reqs_g) and "system_info" in reqs_g[0] and f"'hostname': '{host}'" in reqs_g[0],
              f"interop-c1: the device's information from ufo serve's DEVICE_INFO_RESPONSE (system_info, "
              f"hostname {host!r}) reached the ConstellationAgent's plan request")
    run.check(len(reqs_g) == 2 and answer not in reqs_g[0] and answer in reqs_g[1],
              f"interop-c1: UFO's ConstellationAgent planned, then was asked again with the device's result "
              f"({len(reqs_g)} model calls)")
    shown = calculator_shows(env)
    run.check("42" in shown, f"interop-c1: the calculator on the device's desktop shows 42 (AT-SPI: {shown})")
    slog = open(os.path.join(work, "ufo-serve-c.log"), encoding="utf-8", errors="replace").read()
    cid = f"{galaxy_task}@{device_id}"
    run.check(f"client_id={cid}" in slog and "constellation=true" in slog and "constellation task accepted" in slog,
              f"interop-c1: ufo serve logged the constellation {cid} registering and its task accepted")


def base64_key():
    """A key like the README's (`openssl rand -base64 24`): it holds + / =."""
    import base64
    while True:
        k = base64.b64encode(secrets.token_bytes(24)).decode()
        if "+" in k or "/" in k:
            return k


if __name__ == "__main__":
    main()
