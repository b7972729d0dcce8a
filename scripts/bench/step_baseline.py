#!/usr/bin/python3
"""Baseline for `ufo bench step`: a scripted AppAgent session done the way
Python agents do each step.

For every step of the app's session in assets/bench/step_sessions.json:

  walk        clear libatspi's client cache, walk the app's window with
              pyatspi (as scripts/bench/pyatspi_walk.py does: role, name, state
              set, extents and action names per node), plus its open popup
              menus, and keep the showing, enabled, on-screen controls of the
              types UFO lists (its default CONTROL_LIST); number them;
  screenshot  PIL ImageGrab of the window's rectangle from the X display;
  annotate    set-of-marks: a rectangle and the number of each control, drawn
              with PIL ImageDraw;
  encode      the annotated image as PNG, base64 (what an agent sends);
  action      the step's target found among the numbered controls by name and
              type, then xdotool: `mousemove X Y click 1` at its centre for a
              click, the same then `type --delay 0 TEXT` for typing, `key CHORD`
              for keys.

Before the first step the app's window gets the keyboard focus (xdotool
windowfocus; without a window manager a click does not move it), and the
pointer is moved over it once (LibreOffice reports its positions 25 px off
until then). Each phase is timed with time.perf_counter; a step is the sum of its phases.
The action phase ends when xdotool returns: no fixed sleep follows it (real
agents wait for the UI after acting; leaving that out favours this baseline).
Between steps the script then pauses, untimed, --settle-ms (default 300) so
the app has reacted before the next observation, as it has in a real session
where the model's reply takes seconds; that pause is in no figure.

Run it with Debian's python3 (python3-pyatspi, python3-pil), inside the
desktop, with the app already launched:

    eval "$(ufo desktop env)"
    /usr/bin/python3 scripts/bench/step_baseline.py \\
        --sessions assets/bench/step_sessions.json --app gedit --runs 5 --json

--json prints {"app", "runs", "steps", "median_ms": {"walk", "screenshot",
"annotate", "encode", "action", "step"}, "nodes_median", "controls_median",
"errors"}: medians over all steps of all runs; "steps" counts the steps
measured; a step whose target is not found is listed in "errors" (and left
out of the medians). Exit status 1 only for setup errors (bad sessions file,
no such app or window, missing modules).
"""
import argparse
import base64
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time

try:
    import pyatspi
except ImportError:
    sys.exit("pyatspi is missing: run with /usr/bin/python3 and install python3-pyatspi")
try:
    from PIL import Image, ImageDraw, ImageFont, ImageGrab  # noqa: F401
except ImportError:
    sys.exit("PIL is missing: install python3-pil (scripts/bootstrap.sh --bench)")

# AT-SPI role names -> UFO control types, as crates/ufo-desktop-atspi/src/roles.rs.
ROLE_TYPES = {
    "push button": "Button", "button": "Button", "toggle button": "Button",
    "push button menu": "Button",
    "check box": "CheckBox", "radio button": "RadioButton",
    "check menu item": "MenuItem", "radio menu item": "MenuItem",
    "menu item": "MenuItem", "tearoff menu item": "MenuItem",
    "combo box": "ComboBox",
    "entry": "Edit", "password text": "Edit", "text": "Edit", "terminal": "Edit",
    "document frame": "Document", "document text": "Document", "document web": "Document",
    "document email": "Document", "document spreadsheet": "Document",
    "document presentation": "Document", "paragraph": "Document",
    "label": "Text", "static": "Text", "caption": "Text", "heading": "Text",
    "accelerator label": "Text",
    "link": "Hyperlink", "list": "List", "list box": "List", "list item": "ListItem",
    "menu": "Menu", "popup menu": "Menu", "menu bar": "MenuBar",
    "page tab": "TabItem", "page tab list": "Tab",
    "scroll bar": "ScrollBar", "slider": "Slider", "dial": "Slider",
    "spin button": "Spinner", "table cell": "DataItem", "tree item": "TreeItem",
    "grouping": "Group", "form": "Group", "section": "Group", "landmark": "Group",
    "article": "Group", "block quote": "Group",
}
# UFO's default CONTROL_LIST (crates/ufo-core/src/ui.rs).
CONTROL_LIST = {"Button", "Edit", "TabItem", "Document", "ListItem", "MenuItem",
                "ScrollBar", "TreeItem", "Hyperlink", "ComboBox", "RadioButton",
                "Spinner", "CheckBox", "Group", "Text", "Slider", "SplitButton",
                "DataItem"}
MENU_TYPES = {"MenuBar", "Menu", "MenuItem"}
PHASES = ("walk", "screenshot", "annotate", "encode", "action")


class SetupError(Exception):
    pass


def find_app(name):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None and app.name == name:
            return app
    return None


def top_levels(app):
    """The app's showing top-level windows: (frames and dialogs, popups)."""
    windows, popups = [], []
    for i in range(app.childCount):
        child = app.getChildAtIndex(i)
        if child is None:
            continue
        try:
            role = child.getRole()
            states = child.getState()
        except Exception:
            continue
        if not states.contains(pyatspi.STATE_SHOWING):
            continue
        if role in (pyatspi.ROLE_WINDOW, pyatspi.ROLE_MENU, pyatspi.ROLE_POPUP_MENU):
            popups.append(child)
        else:
            windows.append((states.contains(pyatspi.STATE_ACTIVE), child))
    return windows, popups


def pick_window(app, title):
    """The window to observe: the one titled `title`, else the active one, else
    the last showing one (a dialog opens after its main window)."""
    windows, popups = top_levels(app)
    if title is not None:
        named = [w for _, w in windows if w.name == title]
        return (named[0] if named else None), popups
    active = [w for a, w in windows if a]
    if active:
        return active[0], popups
    return (windows[-1][1] if windows else None), popups


def rect_of(node, offset):
    try:
        e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError:
        return None
    return (e.x + offset[0], e.y + offset[1], e.width, e.height)


def intersect(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return (x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else None


def walk(roots, area, offset, shown_state=pyatspi.STATE_SHOWING):
    """Walks `roots` (the window, then its open popups) reading role, name,
    states, extents and action names per node, as pyatspi_walk.py does. Below a
    node that is not showing while its parent is (LibreOffice keeps every closed
    menu's items in the tree), nothing can be seen: that branch is not entered,
    as ufo's capture does (which enters every child of the window itself). GTK 4.8 says "showing" of its window only: there
    `shown_state` is "visible" (ufo's filter falls back the same way). A container that manages its descendants is not
    entered either. Returns (nodes read, controls), each control a dict with
    name, type and on-screen rect, in reading order."""
    nodes = 0
    controls = []
    # (node, parent's type, parent showing, nearest kept ancestor control)
    # (a root's children are entered even when not showing, as ufo's capture
    # does: the "parent showing" flag is False for them)
    stack = [(r, None, None, None) for r in reversed(roots)]
    while stack:
        node, parent_type, parent_showing, kept = stack.pop()
        nodes += 1
        try:
            role = node.getRoleName()
            name = node.name or ""
            states = node.getState()
            rect = rect_of(node, offset)
            try:
                action = node.queryAction()
                [action.getName(i) for i in range(action.nActions)]
            except NotImplementedError:
                pass
            child_count = node.childCount
        except Exception:  # vanished mid-walk
            continue
        ctype = ROLE_TYPES.get(role, "Other")
        # A menu inside a menu bar or menu is an item opening a submenu.
        if ctype == "Menu" and parent_type in MENU_TYPES:
            ctype = "MenuItem"
        showing = states.contains(shown_state)
        enabled = states.contains(pyatspi.STATE_ENABLED) or states.contains(pyatspi.STATE_SENSITIVE)
        if (ctype in CONTROL_LIST and showing and enabled and rect is not None
                and not (name == "" and ctype in ("Group", "Text"))):
            visible = intersect(rect, area)
            name = readable_name(node, name)
            # GTK 4's label inside its button: same rectangle, same name.
            nested = (kept is not None and kept["rect"] == visible
                      and name in ("", kept["name"]))
            if visible is not None and visible[2] >= 2 and visible[3] >= 2 and not nested:
                kept = {"name": name, "type": ctype, "rect": visible}
                controls.append(kept)
        if not showing and parent_showing and not states.contains(pyatspi.STATE_DEFUNCT):
            continue
        if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS):
            continue
        for i in reversed(range(child_count)):
            child = node.getChildAtIndex(i)
            if child is not None:
                stack.append((child, ctype, showing if parent_showing is not None else False, kept))
    # Reading order: rows top to bottom (10 px tolerance), then left to right.
    controls.sort(key=lambda c: (round((c["rect"][1] + c["rect"][3] / 2) / 10), c["rect"][0]))
    for i, c in enumerate(controls, 1):
        c["id"] = i
    return nodes, controls


def is_class_name(name):
    """A toolkit class name standing in for a missing name (GtkMenuButton)."""
    humps = sum(ch.isupper() for ch in name)
    return (len(name) >= 4 and name.isalnum() and name[0].isupper() and humps >= 2
            and (name.startswith(("Gtk", "Adw", "Gdk", "Hdy"))
                 or name.endswith(("Button", "View", "Image", "Entry", "Box", "Label"))))


def readable_name(node, name):
    """The name an agent shows: GTK 4's doubled names ("7 7") halved; for an
    unnamed or class-named control, its description (the tooltip), as ufo does;
    without the padding around it (Mousepad's menu items end in spaces)."""
    name = name.strip()
    half = len(name) // 2
    if len(name) % 2 == 1 and name[half] == " " and name[:half] == name[half + 1:]:
        return name[:half]
    if name == "" or is_class_name(name):
        try:
            desc = node.description or ""
        except Exception:
            desc = ""
        return desc.strip() if desc.strip() else name
    return name


def x_window(pid, title):
    """The X window of the app's process with this title (None if not found)."""
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid),
                          "--name", "^" + re.escape(title) + "$"],
                         capture_output=True, text=True).stdout
    ids = out.split()
    return ids[0] if ids else None


def x_window_origin(pid, title):
    """GTK 4 reports extents relative to its window: the X window's origin."""
    wid = x_window(pid, title)
    if wid is None:
        return (0, 0)
    geo = subprocess.run(["xdotool", "getwindowgeometry", "--shell", wid],
                         capture_output=True, text=True).stdout
    vals = dict(line.split("=", 1) for line in geo.split() if "=" in line)
    return (int(vals.get("X", 0)), int(vals.get("Y", 0)))


def find_target(controls, step):
    name, ctype = step.get("name", ""), step.get("type")
    for c in controls:
        if ctype and c["type"] != ctype:
            continue
        if name == "" or c["name"] == name:
            return c
    return None


def xdotool(*args):
    subprocess.run(["xdotool", *args], check=True)


def run_step(app, args, step, font, gtk4_offset, shown_state):
    """One observed and acted step: (phase times in ms, nodes, controls, error)."""
    t = {}
    start = time.perf_counter()
    app.clear_cache()
    window, popups = pick_window(app, args.window)
    if window is None:
        return None, 0, 0, "no showing window"
    offset = gtk4_offset(window)
    win_rect = rect_of(window, offset)
    area = intersect(win_rect, (0, 0, args.screen[0], args.screen[1])) or win_rect
    roots = [window] + popups
    # The popups may lie outside the window: they are part of what is seen.
    box = area
    for p in popups:
        r = rect_of(p, offset)
        if r:
            x0, y0 = min(box[0], r[0]), min(box[1], r[1])
            x1 = max(box[0] + box[2], r[0] + r[2])
            y1 = max(box[1] + box[3], r[1] + r[3])
            box = (x0, y0, x1 - x0, y1 - y0)
    box = intersect(box, (0, 0, args.screen[0], args.screen[1])) or box
    nodes, controls = walk(roots, box, offset, shown_state)
    t["walk"] = time.perf_counter() - start

    start = time.perf_counter()
    shot = ImageGrab.grab(bbox=(box[0], box[1], box[0] + box[2], box[1] + box[3]),
                          xdisplay=os.environ["DISPLAY"])
    t["screenshot"] = time.perf_counter() - start

    start = time.perf_counter()
    draw = ImageDraw.Draw(shot)
    for c in controls:
        x, y, w, h = c["rect"]
        x, y = x - box[0], y - box[1]
        draw.rectangle((x, y, x + w - 1, y + h - 1), outline=(255, 0, 0), width=2)
        label = str(c["id"])
        lw, lh = draw.textbbox((0, 0), label, font=font)[2:]
        draw.rectangle((x, y, x + lw + 3, y + lh + 3), fill=(255, 0, 0))
        draw.text((x + 2, y + 1), label, fill=(255, 255, 255), font=font)
    t["annotate"] = time.perf_counter() - start

    start = time.perf_counter()
    buf = io.BytesIO()
    shot.save(buf, format="PNG")
    payload = base64.b64encode(buf.getvalue()).decode("ascii")
    t["encode"] = time.perf_counter() - start
    if args.keep_screenshots:
        shot.save(os.path.join(args.keep_screenshots, f"{args.app}-{args._tag}.png"))
    del payload

    start = time.perf_counter()
    kind = step["kind"]
    if kind == "keys":
        xdotool("key", "--clearmodifiers", step["xdotool"])
    else:
        target = find_target(controls, step)
        if target is None:
            return None, nodes, len(controls), (
                f"no {step.get('type')} named {step.get('name')!r} among {len(controls)} controls")
        x, y, w, h = target["rect"]
        cx, cy = x + w // 2, y + h // 2
        if kind == "click":
            xdotool("mousemove", str(cx), str(cy), "click", "1")
        elif kind == "type":
            xdotool("mousemove", str(cx), str(cy), "click", "1")
            xdotool("type", "--delay", "0", step["text"])
        else:
            return None, nodes, len(controls), f"unknown step kind {kind!r}"
    t["action"] = time.perf_counter() - start
    return {k: v * 1000.0 for k, v in t.items()}, nodes, len(controls), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", required=True, help="assets/bench/step_sessions.json")
    parser.add_argument("--app", required=True, help="a key of the sessions file")
    parser.add_argument("--runs", type=int, default=5, help="sessions in a row (default 5)")
    parser.add_argument("--window", help="observe the top-level window with this title "
                        "(default: the app's active window, else its last showing one)")
    parser.add_argument("--settle-ms", type=int, default=300,
                        help="untimed pause after each step's action (default 300)")
    parser.add_argument("--keep-screenshots", metavar="DIR",
                        help="save each step's annotated screenshot in DIR (untimed)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if "DISPLAY" not in os.environ:
        sys.exit("DISPLAY is not set: eval \"$(ufo desktop env)\" first")
    try:
        with open(args.sessions) as f:
            sessions = json.load(f)
        session = sessions[args.app]
        steps = session["steps"]
        app_name = session.get("app_name", args.app)
        for s in steps:
            if s["kind"] not in ("click", "type", "keys"):
                raise ValueError(f"unknown step kind {s['kind']!r}")
            if s["kind"] == "keys" and "xdotool" not in s:
                raise ValueError("a keys step needs its xdotool chord")
            if s["kind"] == "type" and "text" not in s:
                raise ValueError("a type step needs its text")
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"bad sessions file {args.sessions}: {e!r}")
    app = find_app(app_name)
    if app is None:
        sys.exit(f"no application named {app_name!r} on the accessibility registry")
    window, _ = pick_window(app, args.window)
    if window is None:
        sys.exit(f"{app_name!r} has no showing window"
                 + (f" titled {args.window!r}" if args.window else ""))
    geo = subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True, text=True)
    try:
        args.screen = tuple(int(v) for v in geo.stdout.split())
    except ValueError:
        sys.exit(f"xdotool getdisplaygeometry failed: {geo.stderr.strip()}")
    if args.keep_screenshots:
        os.makedirs(args.keep_screenshots, exist_ok=True)

    gtk4 = app.get_toolkit_name() == "GTK" and app.get_toolkit_version().startswith("4")
    origins = {}
    shown_state = pyatspi.STATE_VISIBLE if gtk4 else pyatspi.STATE_SHOWING

    def gtk4_offset(win):
        if not gtk4:
            return (0, 0)
        key = win.name
        if key not in origins:  # looked up once per window, untimed in effect
            origins[key] = x_window_origin(app.get_process_id(), win.name)
        return origins[key]

    # Keyboard focus to the window, as an agent brings its app to the front
    # before acting (without a window manager a click does not move it).
    wid = x_window(app.get_process_id(), window.name)
    if wid is not None:
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], check=False)
    # LibreOffice reports its positions 25 px off until the pointer has been
    # over its window once (as ufo's capture handles): move it there first.
    r = rect_of(window, gtk4_offset(window))
    if r:
        xdotool("mousemove", str(r[0] + r[2] // 2), str(r[1] + r[3] // 2))
        time.sleep(0.3)
    try:
        font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 12)
    except OSError:
        font = ImageFont.load_default()

    samples = {p: [] for p in PHASES + ("step",)}
    nodes, controls, errors = [], [], []
    for run in range(1, args.runs + 1):
        for n, step in enumerate(steps, 1):
            args._tag = f"r{run}s{n:02d}"
            try:
                times, walked, listed, error = run_step(app, args, step, font, gtk4_offset,
                                                         shown_state)
            except subprocess.CalledProcessError as e:
                times, walked, listed, error = None, 0, 0, f"xdotool failed: {e}"
            if error is not None:
                errors.append({"run": run, "step": n, "kind": step["kind"],
                               "name": step.get("name", step.get("keys")), "error": error})
            else:
                for p in PHASES:
                    samples[p].append(times[p])
                samples["step"].append(sum(times[p] for p in PHASES))
                nodes.append(walked)
                controls.append(listed)
            time.sleep(args.settle_ms / 1000.0)

    med = lambda xs: round(statistics.median(xs), 3) if xs else None
    result = {
        "app": args.app,
        "runs": args.runs,
        "steps": len(samples["step"]),
        "median_ms": {p: med(samples[p]) for p in PHASES + ("step",)},
        "nodes_median": med(nodes),
        "controls_median": med(controls),
        "errors": errors,
    }
    if args.json:
        print(json.dumps(result))
    else:
        m = result["median_ms"]
        print(f"{args.app}: {result['steps']} steps measured ({args.runs} runs of {len(steps)}), "
              f"median {result['nodes_median']} nodes, {result['controls_median']} controls")
        for p in PHASES + ("step",):
            v = m[p]
            print(f"  {p:<10} {'-' if v is None else f'{v:9.2f} ms'}")
        for e in errors:
            print(f"  error: run {e['run']} step {e['step']} ({e['kind']} {e['name']!r}): {e['error']}")


if __name__ == "__main__":
    main()
