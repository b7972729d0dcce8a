#!/usr/bin/python3
"""Baseline for `ufo bench apps`: a careful pyatspi walk of one window that
prunes as ufo's capture does and reads per node what ufo reads, no more.

Pruning, as ufo's capture:
- a child of a showing element is asked its role and states first; when it
  says it is not showing, nothing more of it is read, nor its children
  (for the window's own children: when none of them says it is showing,
  GTK 4's way, they are all read in full after all);
- a container that manages its descendants is enumerated only when it says
  it has at most 32 children (a plain walk of a Calc sheet never ends); a
  longer one that is a table is read by the cells under its visible area,
  as ufo reads it (the cells between those at its top-left and bottom-right
  corners, at most 26 columns, and the visible columns' headers); other
  long ones are not entered (ufo reads their visible rows, hit-testing down
  the list);
- of a container with more than 500 children, the first 500 are read (the
  visible cells of a table);
- a closed menu (a menu of a menu bar, or a submenu, neither selected nor
  expanded) has its first item read, and the others only when it shows;
- of more than 60 cells, each is asked its states and text first; an empty
  one neither focused nor selected is read no further (unless no more than
  60 turn out empty: then those are read in full).

Per node read in full: role, name, description, state set, interfaces,
extents (with a Component), up to 200 characters of text (with a Text, when
showing), else the current value (with a Value). Action names are not read:
ufo asks them only of the control a click acts on.
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
SHORT_MANAGED = 32
MAX_TABLE_COLUMNS = 26
MAX_EMPTY_CELLS = 60


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


def showing(states):
    return states.contains(pyatspi.STATE_SHOWING) or states.contains(pyatspi.STATE_DEFUNCT)


def glance(node):
    """Role and states first, as ufo asks a child of a showing element."""
    node.getRole()
    return node.getState()


def read(node, states=None):
    """Reads what ufo reads of one node (its states unless already read);
    returns its state set and whether it is a bar without width or height
    (whose items ufo does not walk: LibreOffice's second, 0 px high menu
    bar)."""
    role = node.getRole()
    node.name
    node.description
    if states is None:
        states = node.getState()
    ifaces = set(node.get_interfaces())
    flat = False
    if "Component" in ifaces:
        e = _safe(lambda: node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS))
        flat = (e is not None and (e.width <= 0 or e.height <= 0)
                and role in FLAT_BAR_ROLES and states.contains(pyatspi.STATE_SHOWING))
    if "Text" in ifaces:
        if states.contains(pyatspi.STATE_SHOWING):
            _safe(lambda: node.queryText().getText(0, MAX_TEXT + 1))
    elif "Value" in ifaces:
        _safe(lambda: node.queryValue().currentValue)
    return states, flat


def children(node, states):
    """(children to read, whether they are a table's visible cells)."""
    n = node.childCount
    managed = states.contains(pyatspi.STATE_MANAGES_DESCENDANTS)
    if (managed and 1 <= n <= SHORT_MANAGED) or (not managed and n <= MAX_CHILDREN):
        kids = [_safe(lambda i=i: node.getChildAtIndex(i)) for i in range(n)]
        return [k for k in kids if k is not None], False
    cells = _safe(lambda: visible_cells(node))
    if cells is not None:
        return cells, True
    if managed:
        return [], False
    kids = [_safe(lambda i=i: node.getChildAtIndex(i)) for i in range(MAX_CHILDREN)]
    return [k for k in kids if k is not None], False


def visible_cells(node):
    """A table's column headers and cells under its visible area, or None
    when it is no table or its corners hit no cell."""
    table = node.queryTable()
    comp = node.queryComponent()
    e = comp.getExtents(pyatspi.DESKTOP_COORDS)
    if e.width <= 2 or e.height <= 2:
        return None
    right, bottom = e.x + e.width - 2, e.y + e.height - 2

    def at(x, y):
        c = _safe(lambda: comp.getAccessibleAtPoint(x, y, pyatspi.DESKTOP_COORDS))
        return c if c is not None and c != node else None

    # A tree view's column headers sit along its top edge, where no cell is.
    first = next((c for c in (at(e.x + 1, y) for y in range(e.y + 1, min(bottom, e.y + 66), 8))
                  if c is not None), None)
    if first is None:
        return None

    def position(cell):
        i = cell.getIndexInParent()
        return table.getRowAtIndex(i), table.getColumnAtIndex(i)

    r0, c0 = position(first)
    last = at(right, bottom)
    r1, c1 = position(last) if last is not None else (table.nRows - 1, table.nColumns - 1)
    cols = max(1, min(c1 - c0 + 1, MAX_TABLE_COLUMNS))
    rows = max(1, min(r1 - r0 + 1, max(1, MAX_CHILDREN // cols)))
    headers = [_safe(lambda c=c: table.getColumnHeader(c)) for c in range(c0, c0 + cols)]
    cells = [_safe(lambda r=r, c=c: table.getAccessibleAt(r, c))
             for r in range(r0, r0 + rows) for c in range(c0, c0 + cols)]
    return [x for x in headers + cells if x is not None]


def glance_cell(node):
    """States and text first, as ufo asks each of many cells."""
    node.getRole()
    states = node.getState()
    text = _safe(lambda: node.queryText().getText(0, MAX_TEXT + 1), "")
    empty = not (text or "").strip() and not states.contains(pyatspi.STATE_FOCUSED) \
        and not states.contains(pyatspi.STATE_SELECTED)
    return states, empty


def read_cells(kids):
    """Many cells: glanced first; the empty ones read no further unless no
    more than MAX_EMPTY_CELLS of them are."""
    glanced = [r for r in (_safe(lambda k=k: (k, *glance_cell(k))) for k in kids) if r]
    empties = sum(1 for _, _, empty in glanced if empty)
    return read_unless([(k, s, empty and empties > MAX_EMPTY_CELLS) for k, s, empty in glanced])


def read_unless(glanced):
    """(child, states, skip) each: a skipped child is kept as hidden and
    read no further, the others are read in full (their states already
    known); those that vanished mid-walk are left out, as ufo skips them."""
    out = []
    for k, s, skip in glanced:
        if skip:
            out.append((k, s, False, True))
            continue
        r = _safe(lambda k=k, s=s: (k, *read(k, s), False))
        if r:
            out.append(r)
    return out


def read_level(kids, parent_showing, parent_is_root, cells):
    """The children of one element: (child, states, flat, hidden) each,
    those that vanished mid-walk left out, as ufo skips them."""
    if cells and len(kids) > MAX_EMPTY_CELLS:
        return read_cells(kids)
    if not parent_showing:
        return [r for r in (_safe(lambda k=k: (k, *read(k), False)) for k in kids) if r]
    glanced = [r for r in (_safe(lambda k=k: (k, glance(k))) for k in kids) if r]
    # None of the window's children says it shows: all are read.
    all_read = parent_is_root and not any(showing(s) for _, s in glanced)
    return read_unless([(k, s, not all_read and not showing(s)) for k, s in glanced])


def closed_menu(role, states, parent_role):
    """A menu of a menu bar, or a submenu, that says it is not open: only
    its first item is read, and the others when that one shows (as ufo)."""
    return (role == pyatspi.ROLE_MENU
            and not states.contains(pyatspi.STATE_SELECTED)
            and not states.contains(pyatspi.STATE_EXPANDED)
            and parent_role in (pyatspi.ROLE_MENU_BAR, pyatspi.ROLE_MENU))


def walk(window):
    """Breadth first, level by level as ufo's capture, with its pruning."""
    nodes = 1
    root_states, _ = read(window)
    kids, cells = children(window, root_states)
    # One group of children per element entered.
    level = [dict(states=root_states, root=True, role=_safe(window.getRole),
                  kids=kids, cells=cells, rest_of=None)]
    while level:
        following = []
        for g in level:
            parent_showing = g["states"].contains(pyatspi.STATE_SHOWING)
            read_kids = read_level(g["kids"], parent_showing, g["root"], g["cells"])
            if g["rest_of"] is not None and any(showing(s) for _, s, _, _ in read_kids):
                # A closed menu's first item showed: it is open after all.
                rest, _ = _safe(lambda: children(g["rest_of"], g["states"]), ([], False))
                read_kids += read_level(rest[1:], parent_showing, False, False)
            nodes += len(read_kids)
            for k, s, flat, hidden in read_kids:
                if hidden or flat:
                    continue
                role = _safe(k.getRole)
                if closed_menu(role, s, g["role"]):
                    # Its first item only; the others are asked if it shows.
                    first = _safe(lambda: [k.getChildAtIndex(0)] if k.childCount else [], [])
                    if first and first[0] is not None:
                        following.append(dict(states=s, root=False, role=role, kids=first,
                                              cells=False, rest_of=k))
                    continue
                grand, grand_cells = _safe(lambda: children(k, s), ([], False))
                if grand:
                    following.append(dict(states=s, root=False, role=role, kids=grand,
                                          cells=grand_cells, rest_of=None))
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
