#!/usr/bin/python3
"""Typing fidelity: random calculator expressions typed through ufo, results read back via AT-SPI.

usage: scripts/conformance/typing_fidelity.py [--ufo PATH] [--count N] [--apps galculator,kcalc,gnome-calculator]
                                     [--seed S] [--out docs/TYPING.md] [--keep]

For each calculator, N random integer expressions (with repeated digits, which
is where dropped or reordered keys show) are sent as ONE `ufo act --app APP
keyboard_input` call each, in pywinauto syntax ("{ESC}98-19{ENTER}", a literal
plus is "{+}"), and the display is read back by a separate /usr/bin/python3
process over AT-SPI (scripts/conformance/atspi.py). A result that differs from
Python's own evaluation counts as a wrong result (a lost, doubled or reordered key).
It runs in its own private desktop (`ufo desktop start --name typing`).
Exit status: 0 when every result was right, 1 otherwise, 2 on a setup error.
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DESKTOP = "typing"

# How each calculator is started, cleared and read back (AT-SPI role of its display).
CALCS = {
    "galculator": {"launch": ["galculator"], "clear": "{ESC}", "role": "text", "name": None},
    "kcalc": {"launch": ["kcalc"], "clear": "{ESC}", "role": None, "name": None},
    "gnome-calculator": {"launch": ["gnome-calculator"], "clear": "{ESC}", "role": "text", "name": None},
}


def expression(rng):
    """Integer expressions with repeated digits: a op b [op c], ops + - *, no precedence traps."""
    def num():
        d = rng.choice("123456789")
        k = rng.choice([1, 2, 2, 3])
        s = d
        for _ in range(k - 1):
            s += d if rng.random() < 0.5 else rng.choice("0123456789")
        return s
    op = rng.choice("+-*")
    e = f"{num()}{op}{num()}"
    if op != "*" and rng.random() < 0.4:
        e += rng.choice("+-") + num()
    return e


def keys_for(expr):
    return "".join("{+}" if ch == "+" else ch for ch in expr)


def normalise(display):
    """The number a display shows: thousands separators, minus signs and spaces removed."""
    t = (display or "").strip().replace("\u2212", "-").replace("\u2009", "").replace(",", "").replace(" ", "")
    t = t.replace("\u00a0", "")
    m = re.search(r"-?\d+(\.\d+)?", t)
    return m.group(0) if m else t


class Runner:
    def __init__(self, ufo):
        self.ufo = ufo
        self.env = dict(os.environ)

    def run(self, argv, timeout=60):
        p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def start(self):
        self.run([self.ufo, "desktop", "stop", "--name", DESKTOP])
        rc, out, err = self.run([self.ufo, "desktop", "start", "--name", DESKTOP])
        if rc != 0:
            sys.exit(f"typing_fidelity.py: ufo desktop start failed: {err.strip()[:300]}")
        rc, out, err = self.run([self.ufo, "desktop", "env", "--name", DESKTOP])
        for m in re.finditer(r"export (\w+)=('([^']*)'|\"([^\"]*)\"|(\S+))", out):
            self.env[m.group(1)] = next(g for g in m.groups()[2:] if g is not None)
        self.env["UFO_DESKTOP"] = DESKTOP

    def stop(self):
        self.run([self.ufo, "desktop", "stop", "--name", DESKTOP])

    def display(self, app, spec):
        args = ["/usr/bin/python3", os.path.join(HERE, "atspi.py"), "display", app]
        rc, out, err = self.run(args, timeout=30)
        return out.strip() if rc == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ufo")
    ap.add_argument("--count", type=int, default=70, help="expressions per calculator (default 70)")
    ap.add_argument("--apps", default="galculator,kcalc,gnome-calculator")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/TYPING.md"))
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    ufo = a.ufo or os.environ.get("UFO_BIN") or shutil.which("ufo") or os.path.join(ROOT, "target/debug/ufo")
    if not (ufo and os.access(ufo, os.X_OK)):
        sys.exit("typing_fidelity.py: no ufo binary: pass --ufo PATH or set UFO_BIN")
    apps = [x for x in a.apps.split(",") if x]
    for x in apps:
        if x not in CALCS:
            sys.exit(f"typing_fidelity.py: unknown calculator {x!r} (known: {', '.join(CALCS)})")
        if not shutil.which(CALCS[x]["launch"][0]):
            sys.exit(f"typing_fidelity.py: {x} is not installed: run scripts/conformance/install.sh")
    r = Runner(ufo)
    r.start()
    rng = random.Random(a.seed)
    rows, samples = [], {}
    try:
        for app in apps:
            spec = CALCS[app]
            rc, out, err = r.run([ufo, "desktop", "launch", "--name", DESKTOP, "--json", *spec["launch"]], timeout=90)
            if rc != 0:
                rows.append((app, 0, 0, 0, f"launch failed: {err.strip()[:100]}"))
                continue
            info = json.loads(out)
            name = info.get("app_name") or app
            time.sleep(1.5)
            wrong, errors, total, t_keys = 0, 0, 0, 0.0
            samples[app] = []
            for _ in range(a.count):
                expr = expression(rng)
                want = str(eval(expr))  # noqa: S307 - our own integer expression
                keys = spec["clear"] + keys_for(expr) + "{ENTER}"
                t0 = time.time()
                rc, out, err = r.run([ufo, "act", "--desktop", DESKTOP, "--app", name, "keyboard_input",
                                      "--args", json.dumps({"keys": keys})])
                t_keys += time.time() - t0
                total += 1
                if rc != 0:
                    errors += 1
                    samples[app].append((expr, want, f"ufo act failed: {(out or err).strip()[:80]}"))
                    continue
                got = None
                for _ in range(10):
                    got = r.display(name, spec)
                    if got is not None and normalise(got) == want:
                        break
                    time.sleep(0.3)
                if got is None or normalise(got) != want:
                    wrong += 1
                    samples[app].append((expr, want, got))
            rows.append((app, total, wrong, errors, f"{t_keys / max(total, 1):.2f} s per call"))
            print(f"{app}: {total} expressions, {wrong} wrong results, {errors} ufo errors", flush=True)
            try:
                os.kill(int(info["pid"]), 9)
            except (OSError, KeyError, ValueError):
                pass
            time.sleep(0.5)
    finally:
        if not a.keep:
            r.stop()
    write(a, ufo, rows, samples)
    bad = sum(w + e for _, _, w, e, _ in rows)
    total = sum(t for _, t, _, _, _ in rows)
    print(f"{total - bad} passed, {bad} failed")
    return 0 if bad == 0 and total > 0 else 1


def write(a, ufo, rows, samples):
    try:
        version = subprocess.run([ufo, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        version = "?"
    try:
        import hashlib
        with open(ufo, "rb") as f:
            version += f", md5 {hashlib.md5(f.read()).hexdigest()[:12]}"
    except OSError:
        pass
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = ["# Typing fidelity", "",
             "Generated by `scripts/conformance/typing_fidelity.py`: random integer expressions typed into",
             "calculators with one `ufo act keyboard_input` call each; the display read back over",
             "AT-SPI by a separate process and compared with Python's evaluation.", "",
             f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; seed {a.seed}; {a.count} per calculator",
             f"- ufo: `{version}`; suite at {head}", "",
             "| calculator | expressions | wrong results | ufo errors | time |", "|---|---|---|---|---|"]
    for app, total, wrong, errors, note in rows:
        lines.append(f"| {app} | {total} | {wrong} | {errors} | {note} |")
    for app, ss in samples.items():
        if ss:
            lines += ["", f"## {app}: wrong results (first 15)", "", "| typed | want | display read back |", "|---|---|---|"]
            for expr, want, got in ss[:15]:
                lines.append(f"| `{expr}` | {want} | `{got!r}` |")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
