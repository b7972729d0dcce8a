#!/usr/bin/python3
"""Baseline for `ufo bench perception`: a full pyatspi walk of one application.

Per node it reads what ufo's tree capture reads for the same purpose: role,
name, state set, screen extents (when the node has a Component) and the names
of all actions. libatspi's client cache is cleared before each run, so every
run starts cold, as a fresh agent step would.

Run it with Debian's python3 (python3-pyatspi), inside the desktop:

    eval "$(ufo desktop env)"
    /usr/bin/python3 scripts/bench/pyatspi_walk.py --app gedit --runs 10 --json
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


def find_app(name):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None and app.name == name:
            return app
    return None


def find_window(app, title):
    """The app's top-level window named `title`; with no title, the app itself."""
    if title is None:
        return app
    for i in range(app.childCount):
        child = app.getChildAtIndex(i)
        if child is not None and child.name == title:
            return child
    return None


def visible_cells(table):
    """The cells of a table under its visible area, found as ufo finds them
    (hit-testing the corners), each obtained afresh with getAccessibleAt."""
    t = table.queryTable()
    ext = table.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    comp = table.queryComponent()
    first = comp.getAccessibleAtPoint(ext.x + 1, ext.y + 1, pyatspi.DESKTOP_COORDS)
    last = comp.getAccessibleAtPoint(ext.x + ext.width - 2, ext.y + ext.height - 2,
                                     pyatspi.DESKTOP_COORDS)
    if first is None:
        return []
    pos = lambda c: (t.getRowAtIndex(c.getIndexInParent()), t.getColumnAtIndex(c.getIndexInParent()))
    r0, c0 = pos(first)
    r1, c1 = pos(last) if last is not None else (r0, c0)
    cols = max(1, min(c1 - c0 + 1, 26))
    rows = max(1, min(r1 - r0 + 1, 500 // cols))
    return [t.getAccessibleAt(r, c) for r in range(r0, r0 + rows) for c in range(c0, c0 + cols)]


def walk(app, managed="skip"):
    """Walks the tree; a container that manages its descendants (a Calc sheet
    has 2^31-1 children: a plain walk never ends) is skipped, or read by its
    visible cells with managed="cells"."""
    nodes = 0
    stack = [app]
    while stack:
        node = stack.pop()
        nodes += 1
        node.getRole()
        node.name
        node.getState().getStates()
        try:
            node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        except NotImplementedError:
            pass
        try:
            action = node.queryAction()
            [action.getName(i) for i in range(action.nActions)]
        except NotImplementedError:
            pass
        if node.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS):
            if managed == "cells":
                try:
                    stack.extend(c for c in visible_cells(node) if c is not None)
                except NotImplementedError:
                    pass
            continue
        for i in range(node.childCount):
            child = node.getChildAtIndex(i)
            if child is not None:
                stack.append(child)
    return nodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", required=True, help="application name on the AT-SPI registry")
    parser.add_argument("--window", help="walk only the top-level window with this title "
                        "(what `ufo bench perception` captures); default: the whole application")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--managed", choices=["skip", "cells"], default="skip",
                        help="containers that manage their descendants: skip them, or read "
                        "their visible cells afresh each run (default skip)")
    args = parser.parse_args()
    app = find_app(args.app)
    if app is None:
        sys.exit(f"no application named {args.app!r} on the accessibility registry")
    root = find_window(app, args.window)
    if root is None:
        sys.exit(f"{args.app!r} has no window titled {args.window!r}")
    times, nodes = [], 0
    walk(root, args.managed)  # warm-up, as ufo bench does one
    for _ in range(args.runs):
        app.clear_cache()
        start = time.perf_counter()
        nodes = walk(root, args.managed)
        times.append((time.perf_counter() - start) * 1000.0)
    result = {
        "app": args.app,
        "nodes": nodes,
        "runs": args.runs,
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "max_ms": round(max(times), 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.app}: {nodes} nodes, median {result['median_ms']} ms "
              f"(min {result['min_ms']}, max {result['max_ms']}) over {args.runs} runs")


if __name__ == "__main__":
    main()
