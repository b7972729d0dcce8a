#!/usr/bin/python3
"""Baseline for `ufo bench apps`: a pyatspi walk of one window that prunes
as ufo's capture does, reading per node what ufo reads.

Pruning, as ufo's capture:
- the children of an element that is not showing are not read when its
  parent is showing (for the window's own children: only when a sibling is
  showing; GTK 4 says "showing" of no child at all);
- a container that manages its descendants is not entered (ufo reads its
  visible rows or cells; a plain walk of a Calc sheet never ends);
- of a container with more than 500 children, the first 500 are read.

Per node: role, name, description, state set, interfaces, extents (with a
Component), action names (with an Action), up to 200 characters of text
(with a Text, when showing) and the current value (with a Value).
libatspi's client cache is cleared before each run, so each starts cold.

Started by `ufo bench apps` inside its desktop with `--serve`: after one
warm-up walk it prints `{"ready": true, "nodes": N}`, then walks once per
line read on stdin and prints `{"ms": …, "nodes": …}`, so that ufo's
observations and the walks alternate and the machine's slow and fast
moments fall on both sides alike (one walk of zenity's list took 16 to 38
ms within a minute). By hand:

    eval "$(ufo desktop env)"
    /usr/bin/python3 scripts/bench/apps_walk.py --pid PID --window TITLE --runs 10
"""
import argparse
import json
import statistics
import sys
import time

try:
    import pyatspi
except ImportError:
    sys.exit("pyatspi is missing: run with /usr/bin/python3 and install python3-pyatspi")

MAX_CHILDREN = 500
MAX_TEXT = 200


def find_window(pid, name, title):
    """The application (by pid, else by name) and its top-level `title`."""
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [desktop.getChildAtIndex(i) for i in range(desktop.childCount)]
    apps = [a for a in apps if a is not None]
    by_pid = [a for a in apps if pid and _safe(lambda: a.get_process_id()) == pid]
    by_name = [a for a in apps if a.name == name]
    for app in by_pid + by_name:
        tops = [app.getChildAtIndex(i) for i in range(app.childCount)]
        tops = [w for w in tops if w is not None]
        for w in tops:
            if w.name == title:
                return app, w
        # ufo titles a window the toolkit left unnamed (or named otherwise)
        # by its X title: the application's active, else showing, window.
        for state in (pyatspi.STATE_ACTIVE, pyatspi.STATE_SHOWING):
            for w in tops:
                if _safe(lambda: w.getState().contains(state), False):
                    return app, w
    return None, None


def _safe(f, default=None):
    try:
        return f()
    except Exception:
        return default


FLAT_BAR_ROLES = (pyatspi.ROLE_MENU_BAR, pyatspi.ROLE_TOOL_BAR, pyatspi.ROLE_MENU,
                  pyatspi.ROLE_POPUP_MENU)


def read(node):
    """Reads what ufo reads of one node; returns its state set and whether
    it is a bar without width or height (whose items ufo does not walk:
    LibreOffice's second, 0 px high menu bar)."""
    role = node.getRole()
    node.name
    node.description
    states = node.getState()
    ifaces = set(node.get_interfaces())
    flat = False
    if "Component" in ifaces:
        e = _safe(lambda: node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS))
        flat = (e is not None and (e.width <= 0 or e.height <= 0)
                and role in FLAT_BAR_ROLES and states.contains(pyatspi.STATE_SHOWING))
    if "Action" in ifaces:
        def names():
            a = node.queryAction()
            return [a.getName(i) for i in range(a.nActions)]
        _safe(names)
    if "Text" in ifaces and states.contains(pyatspi.STATE_SHOWING):
        _safe(lambda: node.queryText().getText(0, MAX_TEXT + 1))
    if "Value" in ifaces:
        _safe(lambda: node.queryValue().currentValue)
    return states, flat


def children(node, states):
    if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS):
        return []
    n = min(node.childCount, MAX_CHILDREN)
    kids = [_safe(lambda i=i: node.getChildAtIndex(i)) for i in range(n)]
    return [k for k in kids if k is not None]


def walk(window):
    """Breadth first, level by level as ufo's capture, with its pruning."""
    nodes = 1
    root_states, _ = read(window)
    # (parent's states, parent is the window, children)
    level = [(root_states, True, children(window, root_states))]
    while level:
        following = []
        for parent_states, parent_is_root, kids in level:
            read_kids = []
            for k in kids:
                try:
                    read_kids.append((k, read(k)))
                except Exception:
                    continue  # vanished mid-walk, as ufo skips it
            nodes += len(read_kids)
            parent_showing = parent_states.contains(pyatspi.STATE_SHOWING)
            sibling_showing = any(s.contains(pyatspi.STATE_SHOWING) for _, (s, _) in read_kids)
            for k, (s, flat) in read_kids:
                hidden_branch = (not s.contains(pyatspi.STATE_SHOWING)
                                 and not s.contains(pyatspi.STATE_DEFUNCT)
                                 and (not parent_is_root or sibling_showing)
                                 and parent_showing)
                if hidden_branch or flat:
                    continue
                grand = _safe(lambda: children(k, s), [])
                if grand:
                    following.append((s, False, grand))
        level = following
    return nodes


def timed_walk(app, window):
    """One walk from a cold client cache: (milliseconds, nodes)."""
    app.clear_cache()
    start = time.perf_counter()
    nodes = walk(window)
    return (time.perf_counter() - start) * 1000.0, nodes


def serve(app, window, nodes):
    """Walks once per line on stdin, one JSON line out per walk."""
    print(json.dumps({"ready": True, "nodes": nodes}), flush=True)
    for _ in sys.stdin:
        ms, nodes = timed_walk(app, window)
        print(json.dumps({"ms": round(ms, 3), "nodes": nodes}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pid", type=int, default=0, help="the application's process id")
    parser.add_argument("--app", default="", help="its name on the registry (when the pid does not match)")
    parser.add_argument("--window", required=True, help="the title of the window to walk")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--serve", action="store_true",
                        help="walk once per line read on stdin (see above)")
    args = parser.parse_args()
    app, window = find_window(args.pid, args.app, args.window)
    if window is None:
        sys.exit(f"no window titled {args.window!r} of pid {args.pid} / {args.app!r} on the registry")
    nodes = walk(window)  # warm-up, as ufo's side has one
    if args.serve:
        serve(app, window, nodes)
        return
    times = []
    for _ in range(args.runs):
        ms, nodes = timed_walk(app, window)
        times.append(ms)
    print(json.dumps({
        "nodes": nodes,
        "runs": args.runs,
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "max_ms": round(max(times), 3),
    }))


if __name__ == "__main__":
    main()
