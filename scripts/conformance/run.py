#!/usr/bin/python3
"""Conformance suite: ufo's eyes and hands on a corpus of Debian applications.

usage: scripts/conformance/run.py [--ufo PATH] [--only APP[,APP]] [--class CLS] [--desktop NAME]
                                  [--desktop-args "ARGS"] [--out docs/CONFORMANCE.md]
                                  [--evidence DIR] [--keep]

For each application x widget class in checks.py, the check's steps run
THROUGH ufo (`ufo inspect --json` to find a control by name/type, as a model
would, then `ufo act TOOL --args JSON`), and the effect is verified
INDEPENDENTLY of ufo: a separate /usr/bin/python3 process reading AT-SPI
(scripts/conformance/atspi.py), a file on disk, or the application's own output.
A check passes only when that verification passes.

It starts its own private desktop (`ufo desktop start --name conformance`),
launches each application there, and stops the desktop at the end (--keep
leaves it running). It writes the table to --out (docs/CONFORMANCE.md) and the
raw evidence of every check (ufo outputs, AT-SPI dumps) under --evidence.
Install the corpus first with scripts/conformance/install.sh.
Exit status: 0 when every check passed, 1 when some failed, 2 on a usage or setup error.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import checks as C  # noqa: E402

DESKTOP = "conformance"


class Fail(Exception):
    """A check's step or verification failed; the message is the one-line reason."""


class Env:
    def __init__(self, ufo, evidence):
        self.ufo = ufo
        self.evidence = evidence
        self.env = dict(os.environ)
        self.log = []  # evidence lines of the current check
        self.work = None
        self.Fail = Fail
        self.desk_id = None
        self.app_pid = None  # the launched app's process: AT-SPI reads prefer it

    # --- ufo -------------------------------------------------------------
    def run(self, argv, timeout=60, check=False):
        t0 = time.time()
        try:
            p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = f"TIMEOUT after {timeout}s"
            rc = -1
        dt = time.time() - t0
        shown = " ".join(a if re.fullmatch(r"[\w./:=,@+-]+", a) else repr(a) for a in argv)
        self.log.append(f"$ {shown}   # rc={rc} {dt:.1f}s")
        if out.strip():
            self.log.append(out.rstrip())
        if err.strip():
            self.log.append("stderr: " + err.rstrip())
        if check and rc != 0:
            raise Fail(f"`{argv[1]} {argv[2] if len(argv) > 2 else ''}` exited {rc}: {_first_line(err or out)}")
        return rc, out, err

    def ufo_cmd(self, *args, **kw):
        return self.run([self.ufo, *args], **kw)

    def inspect(self, app, window=None):
        sel = ["--window", window] if window else ["--app", app]
        rc, out, err = self.ufo_cmd("inspect", "--desktop", DESKTOP, *sel, "--json", timeout=60)
        if rc != 0:
            raise Fail(f"ufo inspect failed: {_first_line(err or out)}")
        try:
            return json.loads(out)
        except ValueError:
            raise Fail(f"ufo inspect --json printed no JSON: {_first_line(out)}")

    def act(self, app, tool, args, window=None, expect_ok=True):
        sel = ["--window", window] if window else ["--app", app]
        rc, out, err = self.ufo_cmd("act", "--desktop", DESKTOP, *sel, tool, "--args", json.dumps(args), timeout=90)
        try:
            res = json.loads(out)
        except ValueError:
            res = {"status": "no-json", "raw": out, "stderr": err}
        if expect_ok and rc != 0:
            raise Fail(f"ufo act {tool} failed: {_short_result(res, err)}")
        return res

    # --- independent verifier ------------------------------------------------
    def atspi(self, *args, timeout=30):
        pid = ["--pid", str(self.app_pid)] if self.app_pid else []
        rc, out, err = self.run(["/usr/bin/python3", os.path.join(HERE, "atspi.py"), *args, *pid], timeout=timeout)
        return rc, out

    def atspi_find(self, app, role=None, name=None, limit=500, showing=False):
        args = ["find", app, "--limit", str(limit)] + (["--showing"] if showing else [])
        if role:
            args += ["--role", role]
        if name is not None:
            args += ["--name", name]
        rc, out = self.atspi(*args)
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _clip(s, n=4000):
    s = s.rstrip()
    return s if len(s) <= n else s[:n] + f"\n... ({len(s) - n} more characters)"


def _first_line(s):
    for line in (s or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no output)"


def _short_result(res, err=""):
    if isinstance(res, dict):
        for k in ("error", "message", "error_code"):
            if res.get(k):
                v = res[k]
                return (json.dumps(v) if not isinstance(v, str) else v)[:200]
        return json.dumps(res)[:200]
    return _first_line(err)


def ufo_commit(ufo):
    try:
        out = subprocess.run([ufo, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        out = f"unknown ({e})"
    try:
        import hashlib
        with open(ufo, "rb") as f:
            out += f", md5 {hashlib.md5(f.read()).hexdigest()[:12]}, built {datetime.datetime.fromtimestamp(os.path.getmtime(ufo)).strftime('%Y-%m-%d %H:%M')}"
    except OSError:
        pass
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        head = "?"
    return out, head


def find_ufo(arg):
    cands = [arg] if arg else [os.environ.get("UFO_BIN"), os.path.join(ROOT, "target/release/ufo"),
                               os.path.join(ROOT, "target/debug/ufo"), shutil.which("ufo")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    sys.exit("run.py: no ufo binary: pass --ufo PATH, set UFO_BIN, or build it (cargo build -p ufo-cli)")


def start_desktop(e):
    e.ufo_cmd("desktop", "stop", "--name", DESKTOP)
    rc, out, err = e.ufo_cmd("desktop", "start", "--name", DESKTOP, *e.desktop_args, timeout=60)
    if rc != 0:
        sys.exit(f"run.py: ufo desktop start failed: {_first_line(err)}")
    rc, out, err = e.ufo_cmd("desktop", "env", "--name", DESKTOP)
    for m in re.finditer(r"export (\w+)=('([^']*)'|\"([^\"]*)\"|(\S+))", out):
        e.env[m.group(1)] = m.group(3) if m.group(3) is not None else (m.group(4) if m.group(4) is not None else m.group(5))
    if "DISPLAY" not in e.env or not out.strip():
        sys.exit(f"run.py: could not read `ufo desktop env`: {out!r}")
    e.env["UFO_DESKTOP"] = DESKTOP
    e.desktop = DESKTOP
    rc, out, err = e.ufo_cmd("desktop", "status", "--name", DESKTOP)
    try:
        e.desk_id = json.loads(out)["id"]
    except (ValueError, KeyError):
        sys.exit(f"run.py: `ufo desktop status` gave no desktop id: {out[:200]!r}")


def main():
    global DESKTOP
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[0].split("\n", 1)[1].strip() if False else None,
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ufo", help="the ufo binary (default: $UFO_BIN, target/release/ufo, target/debug/ufo, PATH)")
    ap.add_argument("--only", help="comma-separated application keys (see checks.py)")
    ap.add_argument("--class", dest="cls", help="only these widget classes (comma-separated)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/CONFORMANCE.md"))
    ap.add_argument("--evidence", default=os.path.join(ROOT, "target/conformance"))
    ap.add_argument("--keep", action="store_true", help="leave the desktop running at the end")
    ap.add_argument("--desktop", default="conformance", help="name of the private desktop to start (default conformance)")
    ap.add_argument("--desktop-args", default="", help="more options for `ufo desktop start`, e.g. --desktop-args=\"--animations --wm xfwm4\" (with =)")
    ap.add_argument("--ufo-source", default="", help="where the binary was built from (recorded in the report)")
    a = ap.parse_args()

    DESKTOP = a.desktop
    ufo = find_ufo(a.ufo)
    missing = [p for p in C.REQUIRED_PROGRAMS if not shutil.which(p)]
    if missing:
        sys.exit(f"run.py: missing programs {missing}: run scripts/conformance/install.sh")
    if not os.path.exists("/usr/bin/python3"):
        sys.exit("run.py: /usr/bin/python3 (with python3-pyatspi) is required")
    os.makedirs(a.evidence, exist_ok=True)
    e = Env(ufo, a.evidence)
    e.desktop_args = a.desktop_args.split()
    e.work = os.path.join(a.evidence, "work")
    shutil.rmtree(e.work, ignore_errors=True)
    os.makedirs(e.work)
    C.make_fixtures(e.work)
    start_desktop(e)
    # The applications keep their settings in the run's own folder, never the user's.
    e.env["XDG_CONFIG_HOME"] = os.path.join(e.work, "config")
    e.env["XDG_DATA_HOME"] = os.path.join(e.work, "data")
    only = set(a.only.split(",")) if a.only else None
    results = []
    try:
        for chk in C.CHECKS:
            if only and chk.app not in only:
                continue
            if a.cls and chk.cls not in a.cls.split(","):
                continue
            results.append(run_check(e, chk))
    finally:
        if not a.keep:
            e.ufo_cmd("desktop", "stop", "--name", DESKTOP)
    version, head = ufo_commit(ufo)
    write_report(a, results, version, head, ufo)
    npass = sum(1 for r in results if r["status"] == "pass")
    print(f"{npass} passed, {len(results) - npass} failed")
    return 0 if npass == len(results) else 1


def run_check(e, chk):
    e.log = [f"# {chk.app} / {chk.cls}: {chk.title}"]
    t0 = time.time()
    status, reason = "pass", ""
    launched = None
    try:
        launched = launch(e, chk)
        ctx = C.Ctx(e, chk, launched)
        for step in chk.steps:
            step(ctx)
        chk.verify(ctx)
    except Fail as f:
        status, reason = "FAIL", str(f)
    except Exception as ex:  # noqa: BLE001 - a crash of the harness is a failure with a trace
        status, reason = "FAIL", f"harness error: {ex!r}"
        e.log.append(traceback.format_exc())
    finally:
        try:
            if status != "pass":
                shot = os.path.join(e.evidence, f"{chk.key}.png")
                e.ufo_cmd("screenshot", "--desktop", DESKTOP, "--full", "-o", shot, timeout=30)
                e.log.append(f"screenshot: {shot}")
        finally:
            stop_app(e, launched, chk)
    dt = time.time() - t0
    e.log.append(f"=> {status} {reason} ({dt:.1f}s)")
    with open(os.path.join(e.evidence, f"{chk.key}.log"), "w") as f:
        f.write("\n".join(e.log) + "\n")
    print(f"{status:4} {chk.app:22} {chk.cls:10} {dt:5.1f}s {reason}", flush=True)
    return {"app": chk.app, "cls": chk.cls, "status": status, "reason": reason, "key": chk.key,
            "title": chk.title, "log": "\n".join(_clip(x, 1200) for x in e.log)}


def launch(e, chk):
    argv = [a.replace("$WORK", e.work) for a in chk.launch]
    rc, out, err = e.ufo_cmd("desktop", "launch", "--name", DESKTOP, "--timeout", "40", "--json", *argv, timeout=90)
    if rc != 0:
        raise Fail(f"launch failed: {_first_line(err or out)}")
    info = json.loads(out)
    e.app_pid = info.get("pid")
    time.sleep(chk.settle)
    return info


def stop_app(e, info, chk):
    if not info:
        return
    # Every process that our launches started carries the desktop's id and a
    # launch id in its environment (single-instance apps, e.g. LibreOffice's
    # soffice.bin, live on after their launcher): end exactly those.
    pids = {int(info["pid"])} if info.get("pid") else set()
    desk = e.desk_id
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            env = open(f"/proc/{d}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if any(x.startswith(b"UFO_LAUNCH_ID=") for x in env) and desk and (b"UFO_DESKTOP_ID=" + desk.encode()) in env:
            pids.add(int(d))
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    time.sleep(0.5)


def write_report(a, results, version, head, ufo):
    apps = []
    for r in results:
        if r["app"] not in apps:
            apps.append(r["app"])
    classes = [c for c in C.CLASSES if any(r["cls"] == c for r in results)]
    by = {(r["app"], r["cls"]): r for r in results}
    lines = ["# Conformance: ufo's eyes and hands on a corpus of applications", "",
             "Generated by `scripts/conformance/run.py` (install the corpus with",
             "`scripts/conformance/install.sh`). Every check acts through `ufo` as a model would",
             "(find the control in `ufo inspect --json` by name and type, then `ufo act`), and is",
             "verified independently of ufo: AT-SPI read back in a separate `/usr/bin/python3`",
             "process (`scripts/conformance/atspi.py`), a file on disk or the application's own output.",
             "",
             f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}",
             f"- machine: {platform.node()} ({platform.system()} {platform.release()}, {os.cpu_count()} cores, {_os_release()})",
             f"- command: `scripts/conformance/run.py --ufo {ufo}"
             + (f" --desktop-args={a.desktop_args!r}" if a.desktop_args else "") + "`"
             + (f" --only {a.only}" if a.only else ""),
             f"- ufo: `{version}`" + (f", built from {a.ufo_source}" if a.ufo_source else "") + f"; suite at {head}",
             f"- result: {sum(r['status'] == 'pass' for r in results)} of {len(results)} checks pass",
             "", "## Table", "",
             "| app (toolkit) | " + " | ".join(classes) + " |",
             "|---|" + "---|" * len(classes)]
    for app in apps:
        cells = []
        for c in classes:
            r = by.get((app, c))
            if r is None:
                cells.append("n/a")
            elif r["status"] == "pass":
                cells.append("pass")
            else:
                cells.append(f"**FAIL**: {r['reason'][:110].replace('|', '/')}")
        lines.append(f"| {app} ({C.TOOLKIT.get(app, '?')}) | " + " | ".join(cells) + " |")
    lines += ["", "`n/a`: no check of that class for this application (it has no such widget, AT-SPI does",
              "not reach it, or another application of the same toolkit covers it).", "",
              "## Corpus", "", "| key | toolkit | package | version |", "|---|---|---|---|"]
    for app in apps:
        pkg = C.PACKAGES.get(app, "")
        try:
            ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True).stdout.strip()
        except OSError:
            ver = "?"
        lines.append(f"| {app} | {C.TOOLKIT.get(app, '?')} | {pkg} | {ver or '?'} |")
    lines += ["",
              "## Checks", "", "| app | class | what is done through ufo → what is verified independently | result |",
              "|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['app']} | {r['cls']} | {r['title']} | {r['status']} |")
    lines += ["", "## Evidence of each failure", ""]
    for r in results:
        if r["status"] == "pass":
            continue
        lines += [f"### {r['app']} / {r['cls']}: {r['reason']}", "", "```", _clip(_ascii(r["log"]), 6000), "```", ""]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


def _ascii(s):
    # The report is read from the repository: paths are relative to its root.
    return s.replace("```", "'''").replace(ROOT + "/", "")


def _os_release():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
