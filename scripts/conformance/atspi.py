#!/usr/bin/python3
"""Independent AT-SPI reader for the conformance suite (runs apart from ufo).

usage: /usr/bin/python3 scripts/conformance/atspi.py COMMAND APP [options]

  dump APP [--depth N] [--showing]     the app's tree: role, name, states, interfaces, actions
  find APP --role R [--name REGEX] [--showing] [--limit N]
                                       matching nodes as JSON lines (text, value, states, children)
  text APP --role R [--name REGEX]     the text of the first match (Text interface, else name)
  display APP                          a calculator's display (galculator, gnome-calculator, kcalc)
  combos APP                           each combo box: its name and the labels it shows (JSON lines)
  apps                                 registered application names

APP is matched against the AT-SPI application name (case-insensitive, exact
first, then substring). The environment must point at the desktop (DISPLAY,
DBUS_SESSION_BUS_ADDRESS); use `ufo desktop env` to get it.
Exit status: 0 found, 1 nothing matched, 2 usage or AT-SPI error.
"""
import argparse
import json
import re
import sys

try:
    import pyatspi
except ImportError:
    sys.exit("atspi.py: pyatspi is missing; run with /usr/bin/python3 (Debian's, python3-pyatspi)")


def app_named(name, pid=None):
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [a for a in desktop if a is not None]
    if pid:
        for a in apps:
            try:
                if a.get_process_id() == pid:
                    return a
            except Exception:
                pass
    low = name.lower()
    for a in apps:
        if (a.name or "").lower() == low:
            return a
    for a in apps:
        if low in (a.name or "").lower():
            return a
    return None


def ifaces(node):
    try:
        return [i for i in pyatspi.listInterfaces(node)]
    except Exception:
        return []


def actions(node):
    try:
        act = node.queryAction()
        return [act.getName(i) for i in range(act.nActions)]
    except Exception:
        return []


def states(node):
    try:
        return sorted(pyatspi.stateToString(s) for s in node.getState().getStates())
    except Exception:
        return []


def text_of(node):
    try:
        t = node.queryText()
        return t.getText(0, -1)
    except Exception:
        return None


def value_of(node):
    try:
        return node.queryValue().currentValue
    except Exception:
        return None


def extents(node):
    try:
        e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return [e.x, e.y, e.width, e.height]
    except Exception:
        return None


def describe(node, with_text=True):
    d = {
        "role": node.getRoleName(),
        "name": node.name,
        "states": states(node),
        "interfaces": ifaces(node),
        "actions": actions(node),
        "children": node.childCount,
        "extents": extents(node),
    }
    try:
        p = node.parent
        d["parent"] = f"{p.getRoleName()} {p.name!r}" if p else None
        d["parent_interfaces"] = ifaces(p) if p else []
        up = []
        while p is not None and len(up) < 40:
            up.append(p.getRoleName())
            p = p.parent
        d["ancestor_roles"] = up
    except Exception:
        pass
    if with_text:
        t = text_of(node)
        if t is not None:
            d["text"] = t
        v = value_of(node)
        if v is not None:
            d["value"] = v
    return d


def walk(node, depth=0, max_depth=60, max_nodes=20000, seen=None):
    seen = seen if seen is not None else [0]
    if node is None or seen[0] >= max_nodes:
        return
    seen[0] += 1
    yield depth, node
    if depth >= max_depth:
        return
    try:
        n = node.childCount
    except Exception:
        return
    if n > 2000:  # huge containers (spreadsheets): first rows only
        n = 200
    for i in range(n):
        try:
            c = node.getChildAtIndex(i)
        except Exception:
            continue
        yield from walk(c, depth + 1, max_depth, max_nodes, seen)


def matches(node, role, name_re):
    try:
        if role and node.getRoleName() != role:
            return False
        if name_re is not None and not re.search(name_re, node.name or ""):
            return False
        return True
    except Exception:
        return False


def calculator_display(app):
    """The text a calculator shows as its result, by each app's own structure."""
    name = (app.name or "").lower()
    for _, n in walk(app):
        try:
            role = n.getRoleName()
        except Exception:
            continue
        st = states(n)
        if "galculator" in name:
            # the display: a multi-line GtkTextView inside a scroll pane, showing
            if role == "text" and "multi line" in st and "showing" in st:
                return text_of(n)
        elif "gnome-calculator" in name:
            # GTK 4: the editable GtkSourceView that holds the expression and, after =, the result
            if role == "text" and "editable" in st:
                return text_of(n)
        elif "kcalc" in name:
            # KCalc's display is a `frame` whose name is the number shown (KCalcDisplay)
            if role == "frame" and n.name and "showing" in st and any(ch.isdigit() for ch in n.name):
                return n.name
    return None


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].strip())
    ap.add_argument("command", choices=["dump", "find", "text", "display", "combos", "apps"])
    ap.add_argument("app", nargs="?")
    ap.add_argument("--role")
    ap.add_argument("--name", help="regular expression on the accessible name")
    ap.add_argument("--depth", type=int, default=60)
    ap.add_argument("--showing", action="store_true", help="only nodes with state showing")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--pid", type=int, help="prefer the application of this process (several share a name)")
    a = ap.parse_args()

    if a.command == "apps":
        for x in pyatspi.Registry.getDesktop(0):
            if x is not None:
                print(x.name)
        return 0
    if not a.app:
        print("atspi.py: APP is required", file=sys.stderr)
        return 2
    app = app_named(a.app, a.pid)
    if app is None:
        print(f"atspi.py: no application {a.app!r} on the AT-SPI registry", file=sys.stderr)
        return 1
    if a.command == "dump":
        for depth, n in walk(app, max_depth=a.depth):
            st = states(n)
            if a.showing and "showing" not in st and depth > 0:
                continue
            extra = ""
            t = text_of(n)
            if t:
                extra = f" text={t[:80]!r}"
            print(f"{'  ' * depth}{n.getRoleName()} {n.name!r} st={','.join(st)} if={','.join(ifaces(n))} act={actions(n)}{extra}")
        return 0
    if a.command == "combos":
        n_found = 0
        for _, n in walk(app):
            if n.getRoleName() != "combo box":
                continue
            shown = []
            for d, c in walk(n, max_depth=8):
                e = extents(c)
                if d > 0 and c.getRoleName() in ("label", "text", "menu item", "list item") and e and e[2] > 0 and e[3] > 0:
                    shown.append(text_of(c) or c.name)
            print(json.dumps({"name": n.name, "shows": shown, "extents": extents(n)}, ensure_ascii=False))
            n_found += 1
        return 0 if n_found else 1
    if a.command == "display":
        t = calculator_display(app)
        if t is None:
            print(f"atspi.py: no display found in {app.name!r}", file=sys.stderr)
            return 1
        print(t)
        return 0
    found = 0
    for _, n in walk(app):
        if matches(n, a.role, a.name) and (not a.showing or "showing" in states(n)):
            if a.command == "text":
                t = text_of(n)
                print(t if t is not None else n.name)
                return 0
            print(json.dumps(describe(n), ensure_ascii=False))
            found += 1
            if found >= a.limit:
                break
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
