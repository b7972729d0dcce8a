"""The conformance checks' verifications: each reads an effect back independently of
ufo (pyatspi through atspi.py, a file on disk, the application's output, X's window
title) and raises ctx.fail(...) when it is not there. Used by checks.py's table."""
import json
import os
import re
import time

# ---------------------------------------------------------------- verifications (independent of ufo)

def count_states(ctx, role, name, states):
    return sum(1 for n in ctx.env.atspi_find(ctx.app, role=role, name=name) if all(s in n["states"] for s in states))


def verify_count_change(ctx, role, name, states, delta):
    before = ctx.vars.get("before")
    now = None
    for _ in range(12):
        now = count_states(ctx, role, name, states)
        if now == before + delta:
            return
        time.sleep(0.4)
    raise ctx.fail(f"AT-SPI: {now} {role}es {'+'.join(states)} after the click, {before} before; want {before + delta}")


def verify_combo_count(ctx, name, want):
    nodes = [n for n in ctx.env.atspi_find(ctx.app, role="combo box") if n["name"] == name]
    if len(nodes) < want:
        raise ctx.fail(f"AT-SPI: {len(nodes)} combo boxes named {name!r}, want {want} (the pick did not land)")


def verify_listing_has(ctx, regex, field=None):
    listing = ctx.vars.get("listing") or ctx.controls()
    for c in listing:
        vals = [c.get(field)] if field else [c.get("name"), c.get("value"), c.get("text")]
        if any(isinstance(v, str) and re.search(regex, v) for v in vals):
            return
    raise ctx.fail(f"no control in ufo's list matches /{regex}/ ({len(listing)} controls: "
                   f"{', '.join(repr(c.get('name')) for c in listing[:25])[:250]})")


def verify_menu_closed(ctx):
    """AT-SPI: no menu item is showing any more (the menu closed after the pick)."""
    def probe():
        open_items = [n["name"] for n in ctx.env.atspi_find(ctx.app, role="menu item", showing=True)
                      if n.get("parent", "").startswith(("popup menu", "menu "))
                      and not n.get("parent", "").startswith("menu bar")]
        return not open_items, open_items
    ok, got = _poll(probe, timeout=3)
    if not ok:
        raise ctx.fail(f"the menu stayed open after the pick: AT-SPI shows {got[:5]}")


def verify_window_title(ctx):
    """`ufo windows` names the launched app's window as X does (_NET_WM_NAME, read with xprop)."""
    import subprocess
    rc, out, err = ctx.env.ufo_cmd("windows", "--desktop", ctx.env.desktop, "--json")
    try:
        wins = json.loads(out)
    except ValueError:
        raise ctx.fail(f"ufo windows --json printed no JSON: {out[:100]!r}")
    pid = ctx.launched.get("pid")
    mine = [w for w in wins if w.get("pid") == pid] or [w for w in wins if w.get("app_name") == ctx.app]
    if not mine:
        raise ctx.fail(f"ufo windows does not list the app (pid {pid}): {[(w.get('app_name'), w.get('title')) for w in wins]}")
    for w in mine:
        x = subprocess.run(["xprop", "-id", w["id"], "_NET_WM_NAME"], env=ctx.env.env, capture_output=True, text=True).stdout
        m = re.search(r'= "(.*)"', x)
        xname = m.group(1) if m else ""
        if not w.get("title") or (xname and w.get("title") != xname):
            raise ctx.fail(f"ufo titles window {w['id']} {w.get('title')!r}; X names it {xname!r}")


def verify_listed_once(ctx, type, name):
    listing = ctx.vars.get("listing") or ctx.controls()
    same = [c for c in listing if c.get("type") == type and c.get("name") == name]
    if len(same) != 1:
        raise ctx.fail(f"ufo lists {len(same)} {type}s named {name!r}: "
                       f"{[(c.get('id'), c.get('rect')) for c in same]}")


def verify_not_listed(ctx, var, type, regex):
    """Items a person cannot see (a closed popup's) are not in ufo's list."""
    listing = ctx.vars.get(var) or []
    bad = [c.get("name") for c in listing if c.get("type") == type and re.search(regex, c.get("name") or "")]
    if bad:
        raise ctx.fail(f"with the popup closed, ufo lists its {type}s {bad[:5]}")


def verify_tab_names(ctx):
    tabs = [n for n in ctx.env.atspi_find(ctx.app, role="page tab") if "visible" in n["states"]]
    if not tabs:
        raise ctx.fail("AT-SPI shows no page tabs")
    listing = ctx.vars.get("listing") or ctx.controls()
    names = [c.get("name") for c in listing if c.get("type") == "TabItem"]
    if len(set(names)) < len(names) or len(names) < len(tabs):
        raise ctx.fail(f"ufo names the tabs {names}; AT-SPI has {len(tabs)} tabs named {[t['name'] for t in tabs]}")


def pick_popover_item(ctx):
    before = {(c.get("type"), c.get("name")) for c in ctx.vars.get("before", [])}
    new = [c for c in ctx.vars.get("listing", []) if (c.get("type"), c.get("name")) not in before
           and c.get("type") in ("ListItem", "MenuItem", "RadioButton", "Button", "TreeItem", "DataItem")]
    if not new:
        raise ctx.fail("after the click on the drop-down, ufo lists no new item (its popover's items are missing)")
    target = new[min(2, len(new) - 1)]
    ctx.vars["picked"] = target.get("name")
    ctx.act("click_input", target)


def verify_popover_pick(ctx):
    """AT-SPI: a drop-down now shows the picked item (its name, or the label it displays)."""
    want = ctx.vars.get("picked")

    def probe():
        rc, out = ctx.env.atspi("combos", ctx.app)
        combos = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        ok = any(want and (want == c["name"] or want in c["shows"][:1]) for c in combos)
        return ok, [(c["name"], c["shows"][:1]) for c in combos]
    ok, got = _poll(probe)
    if not ok:
        raise ctx.fail(f"AT-SPI: no drop-down shows {want!r} after the pick: {got[:5]}")


def verify_odt(ctx, path, text):
    import zipfile
    p = path.replace("$WORK", ctx.env.work)
    for _ in range(20):
        if os.path.exists(p):
            break
        time.sleep(0.4)
    try:
        with zipfile.ZipFile(p) as z:
            xml = z.read("content.xml").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile) as e:
        raise ctx.fail(f"{os.path.basename(p)}: {e}")
    if text not in xml:
        raise ctx.fail(f"{os.path.basename(p)} does not hold {text!r}")



def _poll(fn, timeout=6.0, every=0.4):
    end = time.time() + timeout
    val = fn()
    while not val[0] and time.time() < end:
        time.sleep(every)
        val = fn()
    return val


def verify_text(role, name=None, expect=None, regex=None, app=None):
    """AT-SPI (separate process): the first node of role/name has this text (exact, or regex)."""
    def v(ctx):
        def probe():
            nodes = ctx.env.atspi_find(app or ctx.app, role=role, name=name)
            texts = [n.get("text", n.get("name")) for n in nodes]
            for t in texts:
                if expect is not None and t is not None and t.rstrip("\n") == expect:
                    return True, t
                if regex is not None and t is not None and re.search(regex, t):
                    return True, t
            return False, texts
        ok, got = _poll(probe)
        if not ok:
            raise ctx.fail(f"AT-SPI {role} /{name or ''}/ reads {str(got)[:160]!r}, want {expect if expect is not None else '/' + regex + '/'!r}")
    return v


def verify_state(role, name, state, present=True):
    """AT-SPI: the node of role/name has (or has not) the state."""
    def v(ctx):
        def probe():
            nodes = ctx.env.atspi_find(ctx.app, role=role, name=name)
            if not nodes:
                return False, "no such node"
            return (state in nodes[0]["states"]) == present, nodes[0]["states"]
        ok, got = _poll(probe)
        if not ok:
            raise ctx.fail(f"AT-SPI {role} {name!r} states {got}: want {'' if present else 'no '}{state}")
    return v


def verify_file(path, contains=None, regex=None):
    """The file exists on disk (and holds the text)."""
    def v(ctx):
        p = path.replace("$WORK", ctx.env.work)

        def probe():
            if not os.path.exists(p):
                return False, "missing"
            data = open(p, "rb").read().decode("utf-8", "replace")
            if contains is not None and contains not in data:
                return False, data[:120]
            if regex is not None and not re.search(regex, data):
                return False, data[:120]
            return True, data
        ok, got = _poll(probe, timeout=8)
        if not ok:
            raise ctx.fail(f"file {os.path.basename(p)}: {got!r}, want {contains or regex!r}")
    return v


def verify_output(regex):
    """The application's own output (its stdout, in the launch log) matches."""
    def v(ctx):
        log = ctx.launched.get("log")

        def probe():
            try:
                data = open(log, errors="replace").read()
            except OSError as e:
                return False, str(e)
            lines = [line for line in data.splitlines() if line.strip() and "WARNING" not in line and "Gtk-" not in line]
            return any(re.fullmatch(regex, line.strip()) for line in lines), lines[-3:]
        ok, got = _poll(probe, timeout=8)
        if not ok:
            raise ctx.fail(f"app printed {got!r}, want /{regex}/")
    return v


def verify_in_texts(expect, var="texts"):
    """What ufo's `texts` returned holds the ground truth (a fixture's text, known independently)."""
    def v(ctx):
        got = ctx.vars.get(var, "")
        if expect not in got:
            raise ctx.fail(f"`texts` returned {got[:140]!r}; the document holds {expect!r}")
    return v


def verify_menu_listed(menu_role_names=("menu item", "check menu item", "radio menu item"), gtk4=False):
    """AT-SPI's showing items of the open menu (or popup) are all in ufo's control list.

    GTK 4.8 sets neither `showing` nor `enabled` on anything: there an item counts
    when it is `visible`, `sensitive` and has a box on screen."""
    def v(ctx):
        nodes = []
        for r in menu_role_names:
            for n in ctx.env.atspi_find(ctx.app, role=r, showing=not gtk4):
                e = n.get("extents") or [0, 0, 0, 0]
                shown = ("visible" in n["states"] and e[2] > 0 and e[3] > 0) if gtk4 else "showing" in n["states"]
                usable = "sensitive" in n["states"] if gtk4 else "enabled" in n["states"]
                if shown and usable and n["name"].strip():
                    nodes.append(n)
        if not nodes:
            raise ctx.fail("AT-SPI shows no open menu items (the menu did not open)")
        listing = ctx.vars.get("listing") or ctx.controls()
        names = {(c.get("name") or "").strip().lower() for c in listing}
        missing = [n["name"] for n in nodes if n["name"].strip().lower() not in names]
        if missing:
            raise ctx.fail(f"{len(missing)} of {len(nodes)} open menu items not in ufo's list: {missing[:5]}")
        # What the open menu covers is not to be listed: a person cannot see or click it.
        groups = {}
        for n in nodes:  # the popup's box: the union of its open items' boxes, per parent menu
            e = n.get("extents")
            if e and e[2] > 0 and e[3] > 0:
                g = groups.setdefault(n.get("parent"), [e[0], e[1], e[0] + e[2], e[1] + e[3]])
                g[:] = [min(g[0], e[0]), min(g[1], e[1]), max(g[2], e[0] + e[2]), max(g[3], e[1] + e[3])]
        boxes = [(g[0], g[1], g[2] - g[0], g[3] - g[1]) for g in groups.values() if g[3] - g[1] > 40]
        if gtk4:
            # GTK 4.8 reports a popover's items where its anchor is, not where
            # its surface is: the popup's box on screen is its X window's.
            boxes = _x_popup_boxes(ctx) or boxes
        # What lies inside the popup itself (shortcut labels, a disabled item's text, a
        # GTK 4 popover's buttons) is the menu's own: AT-SPI ancestors say so.
        own = set()
        if gtk4:
            own = {(n.get("name") or "").strip().lower() for n in ctx.env.atspi_find(ctx.app, limit=2000)
                   if {"menu", "popup menu"} & set(n.get("ancestor_roles", [])[:-2])}
        covered = []
        for c in listing:
            if c.get("type") in ("MenuItem", "Menu", "MenuBar", "Separator"):
                continue
            if (c.get("name") or "").strip().lower() in own:
                continue
            r = c.get("rect") or {}
            if not r:
                continue
            cx, cy = r.get("x", 0) + r.get("width", 0) / 2, r.get("y", 0) + r.get("height", 0) / 2
            if any(b[0] <= cx <= b[0] + b[2] and b[1] <= cy <= b[1] + b[3] for b in boxes):
                covered.append(f"{c.get('type')}:{c.get('name')!r}")
        if covered:
            raise ctx.fail(f"{len(covered)} controls under the open menu are still listed: {covered[:4]}")
    return v


def _x_popup_boxes(ctx):
    """The app's mapped override-redirect X windows (open popups), as (x, y, w, h), read with xwininfo/xprop."""
    import subprocess
    tree = subprocess.run(["xwininfo", "-root", "-children"], env=ctx.env.env, capture_output=True, text=True).stdout
    boxes = []
    for m in re.finditer(r"^\s+(0x[0-9a-f]+) .*?\)\s+(\d+)x(\d+)\+(-?\d+)\+(-?\d+)", tree, re.M):
        wid, w, h, x, y = m.group(1), *map(int, m.groups()[1:])
        if w < 20 or h < 20:
            continue
        info = subprocess.run(["xwininfo", "-id", wid], env=ctx.env.env, capture_output=True, text=True).stdout
        pid = subprocess.run(["xprop", "-id", wid, "_NET_WM_PID"], env=ctx.env.env, capture_output=True, text=True).stdout
        if "Override Redirect State: yes" in info and "IsViewable" in info and str(ctx.env.app_pid) in pid:
            boxes.append((x, y, w, h))
    return boxes


def verify_all(*vs):
    def v(ctx):
        for x in vs:
            x(ctx)
    return v


def verify_selected_row(role, name, not_activated=None):
    """AT-SPI: the row (role/name) is selected; optionally the app did not activate it."""
    def v(ctx):
        verify_state(role, name, "selected")(ctx)
        if not_activated:
            not_activated(ctx)
    return v

def verify_rows_listed(ctx, names):
    """AT-SPI's showing rows with these names are all in ufo's list."""
    listing = ctx.vars.get("listing") or ctx.controls()
    listed = {(c.get("name") or "").strip() for c in listing}
    missing = [n for n in names if n not in listed]
    if missing:
        raise ctx.fail(f"rows {missing} are on screen but not in ufo's list ({len(listing)} controls)")


def _inside(r, area):
    return (r and area and r[2] > 0 and r[3] > 0 and r[0] < area[0] + area[2] and area[0] < r[0] + r[2]
            and r[1] < area[1] + area[3] and area[1] < r[1] + r[3])


def verify_icons_listed(ctx, at_least):
    """Every icon-view item AT-SPI places inside its (showing) view is listed as a
    ListItem named by its caption (the item's text), whatever its own showing state."""
    views = [v for v in ctx.atspi_find(role="layered pane") if "showing" in v["states"]]
    if not views:
        raise ctx.fail("AT-SPI shows no icon view (layered pane)")
    area = views[0]["extents"]
    drawn = [i.get("text") or i["name"] for i in ctx.atspi_find(role="icon")
             if "selectable" in i["states"] and _inside(i["extents"], area)]
    if len(drawn) < at_least:
        raise ctx.fail(f"AT-SPI draws {len(drawn)} icons in the view, fewer than {at_least}: {drawn}")
    listing = ctx.vars.get("listing") or ctx.controls()
    listed = {(c.get("name") or "").strip() for c in listing if c.get("type") == "ListItem"}
    missing = [n for n in drawn if n not in listed]
    if missing:
        raise ctx.fail(f"{len(missing)} of {len(drawn)} icons drawn in the view are not listed: {missing[:6]}")


def verify_window_named(ctx, regex):
    """A window whose name matches is on the AT-SPI registry for the app (a frame or dialog)."""
    def found():
        wins = [w for role in ("frame", "dialog", "window") for w in ctx.atspi_find(role=role, name=regex)]
        return bool(wins), wins
    if not _poll(found)[0]:
        raise ctx.fail(f"no window named /{regex}/ opened")


def verify_grid_cells_listed(ctx, at_least):
    """Every cell of a GTK 4 grid view (a `table cell` named GtkListItemWidget) that AT-SPI
    places on screen is listed, named by the label it holds."""
    labels = [lab["name"] for lab in ctx.atspi_find(role="label")
              if any(r == "table cell" for r in lab.get("ancestor_roles", [])[:3])
              and lab["extents"] and lab["extents"][2] > 0]
    if len(labels) < at_least:
        raise ctx.fail(f"AT-SPI shows {len(labels)} grid cells with labels, fewer than {at_least}: {labels}")
    listing = ctx.vars.get("listing") or ctx.controls()
    listed = {(c.get("name") or "").strip() for c in listing if c.get("type") in ("DataItem", "ListItem")}
    missing = [n for n in labels if n not in listed]
    if missing:
        raise ctx.fail(f"{len(missing)} of {len(labels)} grid cells are not listed by their labels: {missing[:6]}")


def verify_rows_order(role, names):
    """AT-SPI: the showing nodes of `role` named one of `names` read top to bottom in that order."""
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")$"

    def v(ctx):
        def probe():
            nodes = ctx.env.atspi_find(ctx.app, role=role, name=pattern, showing=True)
            placed = sorted((n["extents"][1], n["name"]) for n in nodes if n.get("extents") and n["extents"][2] > 0)
            order = []
            for _, name in placed:
                if name not in order:
                    order.append(name)
            return order == list(names), order
        ok, got = _poll(probe)
        if not ok:
            raise ctx.fail(f"AT-SPI rows read {got}, want {list(names)}")
    return v


def verify_cell_column(name, column):
    """ufo's list: the cell `name` carries its column's name."""
    def v(ctx):
        for c in ctx.controls():
            if c.get("name") == name and c.get("column") == column:
                return
        raise ctx.fail(f"no cell {name!r} of column {column!r} in ufo's list")
    return v


def verify_spin_value(want):
    """AT-SPI: a showing spin button holds the number (its value, committed, not only its text)."""
    def v(ctx):
        def probe():
            nodes = ctx.env.atspi_find(ctx.app, role="spin button", showing=True)
            vals = [n.get("value") for n in nodes]
            return any(isinstance(x, (int, float)) and abs(x - want) < 1e-9 for x in vals), vals
        ok, got = _poll(probe)
        if not ok:
            raise ctx.fail(f"AT-SPI spin buttons hold {got}, want {want}")
    return v


def verify_app_answers(frame_regex, gone_regex):
    """AT-SPI: the application still answers (a frame matching `frame_regex`) and no window matches `gone_regex`."""
    def v(ctx):
        def probe():
            frames = [n["name"] for role in ("frame", "dialog", "file chooser")
                      for n in ctx.env.atspi_find(ctx.app, role=role, limit=20)]
            ok = any(re.search(frame_regex, f) for f in frames) and not any(re.search(gone_regex, f) for f in frames)
            return ok, frames
        ok, got = _poll(probe, timeout=10)
        if not ok:
            raise ctx.fail(f"windows {got}: want /{frame_regex}/ answering and no /{gone_regex}/")
    return v


def verify_named_controls(at_least):
    """ufo's list: at least this many named controls (the application is on the accessibility bus)."""
    def v(ctx):
        named = [c for c in ctx.controls() if (c.get("name") or "").strip()]
        if len(named) < at_least:
            raise ctx.fail(f"{len(named)} named controls in ufo's list, want at least {at_least}")
    return v


# ---------------------------------------------------------------- hands: toggles, menus, focus, combos

def _showing(ctx, role_re, name):
    """AT-SPI: the showing nodes named /name/ whose role matches `role_re` (a regex)."""
    return [n for n in ctx.env.atspi_find(ctx.app, name=name, showing=True)
            if role_re is None or re.fullmatch(role_re, n["role"])]


def verify_showing(role_re, name):
    """AT-SPI: a showing node of a role matching `role_re` is named /name/."""
    def v(ctx):
        ok, got = _poll(lambda: (bool(_showing(ctx, role_re, name)), None))
        if not ok:
            raise ctx.fail(f"AT-SPI shows no {role_re} named /{name}/")
    return v


def _placed(ctx, role_re, names):
    """The boxes of the showing nodes named one of `names`, in that order (None when one is missing)."""
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    boxes = {}
    for n in _showing(ctx, role_re, pattern):
        if n.get("extents") and n["extents"][2] > 0:
            boxes.setdefault(n["name"], n["extents"])
    return [boxes.get(n) for n in names]


def _lined_up(ctx, role_re, names, across):
    """The named items stand in one row (`across`) or one column, in this order."""
    def probe():
        boxes = _placed(ctx, role_re, names)
        if any(b is None for b in boxes):
            return False, boxes
        same, along = (1, 0) if across else (0, 1)
        level = all(abs(b[same] - boxes[0][same]) <= 8 for b in boxes)
        ordered = all(boxes[i][along] < boxes[i + 1][along] for i in range(len(boxes) - 1))
        return level and ordered, boxes
    ok, got = _poll(probe)
    if not ok:
        raise ctx.fail(f"AT-SPI: {names} at {got}, want them in one {'row' if across else 'column'}")


def verify_in_one_row(role_re, names):
    """AT-SPI: the named items stand side by side (an icon view)."""
    return lambda ctx: _lined_up(ctx, role_re, names, across=True)


def verify_in_one_column(role_re, names):
    """AT-SPI: the named items stand one below the other (a details list)."""
    return lambda ctx: _lined_up(ctx, role_re, names, across=False)


def remember_present(role_re, name):
    """A step: whether AT-SPI shows a node named /name/ now (for verify_flipped)."""
    def step(ctx):
        ctx.vars["present"] = bool(_showing(ctx, role_re, name))
    return step


def verify_flipped(role_re, name):
    """AT-SPI: a node named /name/ shows now exactly when it did not before the steps."""
    def v(ctx):
        before = ctx.vars["present"]
        ok, _ = _poll(lambda: (bool(_showing(ctx, role_re, name)) != before, None))
        if not ok:
            raise ctx.fail(f"AT-SPI: /{name}/ {'still' if before else 'still not'} listed after the pick")
    return v


def verify_typed_beside(role, doc_name, typed, kept):
    """AT-SPI: the document /doc_name/ holds `typed`, and the field inside a combo box (a find bar)
    still holds `kept` (nothing typed went there)."""
    def v(ctx):
        def probe():
            docs = [n.get("text") or "" for n in ctx.env.atspi_find(ctx.app, role=role, name=doc_name)]
            fields = [n.get("text") for n in ctx.env.atspi_find(ctx.app, role=role, showing=True)
                      if n.get("parent", "").startswith("combo box")]
            return any(typed in d for d in docs) and kept in fields, (docs, fields)
        ok, got = _poll(probe)
        if not ok:
            raise ctx.fail(f"AT-SPI: document texts {str(got[0])[:120]}, find field {got[1]}; "
                           f"want {typed!r} in the document and {kept!r} left in the field")
    return v


def verify_combo_shows(name_re, value):
    """ufo's list: a combo box named /name_re/ shows `value` (as its value, or as its name where
    the toolkit names a combo by its choice)."""
    def v(ctx):
        def probe():
            combos = [c for c in ctx.controls() if c.get("type") == "ComboBox"
                      and re.search(name_re, c.get("name") or "")]
            return any(value in (c.get("value"), c.get("name")) for c in combos), \
                [(c.get("name"), c.get("value")) for c in combos]
        ok, got = _poll(probe, timeout=3)
        if not ok:
            raise ctx.fail(f"ufo lists the combo boxes /{name_re}/ as {got[:6]}; want one showing {value!r}")
    return v


def verify_said_once(text):
    """ufo's list says `text` (a fixture's, known independently) once: as one control's name or
    value, not again by a container that repeats it."""
    def v(ctx):
        def probe():
            saying = [(c.get("type"), c.get("name")) for c in ctx.controls()
                      if text in (c.get("name") or "") or text in (c.get("value") or "")]
            return len(saying) == 1, saying
        ok, got = _poll(probe, timeout=4)
        if not ok:
            raise ctx.fail(f"ufo says {text!r} {len(got)} times: {got[:4]}")
    return v
