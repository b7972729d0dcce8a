"""The conformance checks as data: app, widget class, launch line, steps through ufo,
independent verification. Read by run.py (not runnable on its own).

A step or a verification is a small function of a Ctx; the constructors below
(`act`, `keys`, `verify_text`, ...) build them, so each row of CHECKS reads as
"launch X; do this through ufo; check that with AT-SPI / the disk / the app's output".
Controls are found as a model finds them: in `ufo inspect --json`, by type and
name (a regular expression, case-insensitive).
"""
import json
import os
import re
import shutil
import time

from verify import (  # noqa: E402 (the table's verifications)
    remember_present,
    verify_combo_shows,
    verify_flipped,
    verify_in_one_column,
    verify_in_one_row,
    verify_showing,
    verify_typed_beside,
    verify_said_once,
    count_states,
    verify_app_answers,
    verify_cell_column,
    verify_named_controls,
    verify_rows_order,
    verify_spin_value,
    pick_popover_item,
    verify_all,
    verify_combo_count,
    verify_count_change,
    verify_file,
    verify_grid_cells_listed,
    verify_icons_listed,
    verify_in_texts,
    verify_listed_once,
    verify_listing_has,
    verify_menu_closed,
    verify_menu_listed,
    verify_not_listed,
    verify_odt,
    verify_output,
    verify_popover_pick,
    verify_rows_listed,
    verify_state,
    verify_tab_names,
    verify_text,
    verify_window_named,
    verify_window_title,
)

CLASSES = ["type", "calc", "select", "activate", "rows", "menu", "combo", "read", "checkbox", "dialog", "title",
           "sort", "spin", "modal", "gtk2", "password", "toggle", "focus", "toolmenu", "chooser", "comboval",
           "placeholder", "unnamed"]

TOOLKIT = {
    "gedit": "GTK 3", "mousepad": "GTK 3", "gtk3-widget-factory": "GTK 3", "galculator": "GTK 3",
    "gtk3-demo": "GTK 3", "gtk-demo": "GTK 2", "gpicview": "GTK 2",
    "gnumeric": "GTK 3", "thunar": "GTK 3", "evince": "GTK 3", "zenity": "GTK 3", "abiword": "GTK 3",
    "xfce4-terminal": "GTK 3 + VTE", "gnome-calculator": "GTK 4", "gnome-text-editor": "GTK 4",
    "gtk4-demo": "GTK 4", "featherpad": "Qt 5", "kcalc": "Qt 5 / KF5",
    "qpdfview": "Qt 5", "qt6ct": "Qt 6", "kdialog": "Qt 5 / KF5", "dolphin": "Qt 5 / KF5",
    "kate": "Qt 5 / KF5", "pcmanfm-qt": "Qt 5", "chromium": "Chromium (Blink)", "lo-calc": "LibreOffice (VCL gtk3)",
    "lo-writer": "LibreOffice (VCL gtk3)", "lo-impress": "LibreOffice (VCL gtk3)", "firefox": "Firefox ESR (Gecko)",
    "swing": "Java Swing (OpenJDK 17 + ATK wrapper)",
}

# The Debian package each corpus key comes from (its version goes into the report).
PACKAGES = {
    "gedit": "gedit", "mousepad": "mousepad", "gtk3-widget-factory": "gtk-3-examples",
    "gtk3-demo": "gtk-3-examples", "gtk-demo": "gtk2.0-examples", "gpicview": "gpicview",
    "gtk3-icon-browser": "gtk-3-examples", "gtk4-icon-browser": "gtk-4-examples", "galculator": "galculator",
    "gnumeric": "gnumeric", "thunar": "thunar", "evince": "evince", "zenity": "zenity", "abiword": "abiword",
    "xfce4-terminal": "xfce4-terminal", "gnome-calculator": "gnome-calculator", "gnome-text-editor": "gnome-text-editor",
    "gtk4-demo": "gtk-4-examples", "featherpad": "featherpad", "kcalc": "kcalc", "qpdfview": "qpdfview",
    "qt6ct": "qt6ct", "lo-calc": "libreoffice-calc", "lo-writer": "libreoffice-writer", "lo-impress": "libreoffice-impress",
    "firefox": "firefox-esr",
    "swing": "openjdk-17-jre", "kdialog": "kdialog", "dolphin": "dolphin", "kate": "kate",
    "pcmanfm-qt": "pcmanfm-qt", "chromium": "chromium",
}

REQUIRED_PROGRAMS = ["gedit", "mousepad", "gtk3-widget-factory", "gtk3-demo", "gtk-demo", "gpicview", "gtk3-icon-browser", "gtk4-icon-browser", "galculator", "gnumeric", "thunar",
                     "evince", "zenity", "abiword", "xfce4-terminal", "gnome-calculator",
                     "gnome-text-editor", "gtk4-demo", "featherpad", "kcalc",
                     "qpdfview", "qt6ct", "soffice", "firefox-esr", "java",
                     "kdialog", "dolphin", "kate", "pcmanfm-qt", "chromium"]



class Check:
    def __init__(self, app, cls, title, launch, steps, verify, settle=1.0, key=None):
        self.app, self.cls, self.title = app, cls, title
        self.launch, self.steps, self.verify, self.settle = launch, steps, verify, settle
        self.key = key or f"{app}.{cls}"


class Ctx:
    """What a step sees: the run.py Env (ufo and the verifier), the check, the launched app."""

    def __init__(self, env, chk, launched):
        self.env, self.chk, self.launched = env, chk, launched
        self.app = launched.get("app_name") or chk.app
        self.vars = {}

    def work(self, name):
        return os.path.join(self.env.work, name)

    def controls(self):
        return self.env.inspect(self.app)

    def find(self, type=None, name=None, tries=10, state=None):
        """The first control of `type` (regex on ufo's type) whose name matches `name` (regex)."""
        last = []
        for _ in range(tries):
            last = self.stable_controls()
            for c in last:
                if type and not re.fullmatch(type, c.get("type", "") or ""):
                    continue
                if name is not None and not re.search(name, c.get("name", "") or "", re.I):
                    continue
                if state and state not in st(c):
                    continue
                return c
            time.sleep(0.5)
        listing = ", ".join(f"{c.get('type')}:{c.get('name')!r}" for c in last[:60])
        raise self.fail(f"ufo lists no {type or 'control'} named /{name}/ (it lists {len(last)}: {listing[:300]})")

    def stable_controls(self, tries=6):
        """The controls once two listings in a row agree (at most `tries`):
        `ufo act` observes again and numbers the controls again, so an id
        taken from a listing while the application still changes its tree
        (a web page loading) could name another control by then."""
        key = lambda cs: [(c.get("id"), c.get("type"), c.get("name")) for c in cs]
        last = self.controls()
        for _ in range(tries):
            time.sleep(0.2)
            now = self.controls()
            if key(now) == key(last):
                return now
            last = now
        return last

    def fail(self, msg):
        return self.env.Fail(msg)

    def act(self, tool, ctl=None, expect_ok=True, **args):
        a = {k: (v.replace("$WORK", self.env.work) if isinstance(v, str) else v) for k, v in args.items()}
        if ctl is not None:
            a = {"id": ctl["id"], "name": ctl.get("name", ""), **a}
        return self.env.act(self.app, tool, a, expect_ok=expect_ok)

    def atspi_find(self, role=None, name=None):
        return self.env.atspi_find(self.app, role=role, name=name)


def st(c):
    """A control's states as ufo lists them (`states`, or the prompt's `state` string)."""
    v = c.get("states", c.get("state")) or []
    return set(v.split(",")) if isinstance(v, str) else set(v)


# ---------------------------------------------------------------- step builders

def act(tool, type=None, name=None, expect_ok=True, **args):
    """ufo act TOOL on the control found by type/name (or none)."""
    def step(ctx):
        ctl = ctx.find(type, name) if (type or name) else None
        ctx.vars["last_result"] = ctx.act(tool, ctl, expect_ok=expect_ok, **args)
    step.__doc__ = f"{tool} {type or ''} /{name or ''}/ {args}"
    return step


def keys(k, type=None, name=None):
    """keyboard_input KEYS (to a control found by type/name, else the window)."""
    return act("keyboard_input", type, name, keys=k)


def remove(path):
    """Delete a file a check will look for, so an old one cannot pass it."""
    def step(ctx):
        p = path.replace("$WORK", ctx.env.work)
        if os.path.exists(p):
            os.remove(p)
    return step


def sleep(s):
    def step(ctx):
        time.sleep(s)
    return step


def remember_texts(type, name, var="texts"):
    """ufo act texts on a control; the result is kept for a verification."""
    def step(ctx):
        ctl = ctx.find(type, name)
        res = ctx.act("texts", ctl)
        ctx.vars[var] = json.dumps(res.get("result", res), ensure_ascii=False)
        ctx.vars[var + "_ctl"] = ctl
    return step


def remember_listing(var="listing"):
    def step(ctx):
        ctx.vars[var] = ctx.controls()
    return step


def run_step(fn):
    """A custom step written as a function of ctx."""
    return fn


def act_on(choose, tool, pick=0, **args):
    """ufo act TOOL on a control chosen from ufo's list by a function (pick: index among the matches)."""
    def step(ctx):
        found = choose(ctx)
        if not found:
            raise ctx.fail(f"ufo lists no control for {tool} (chooser found none)")
        ctx.vars["acted_on"] = found[pick]
        ctx.vars["last_result"] = ctx.act(tool, found[pick], **args)
    return step


# ---------------------------------------------------------------- fixtures

# The files the applications open: one tree for the benchmarks, the tests and
# these checks (crates/ufo-testkit/fixtures/apps), laid out as $WORK. The texts
# the checks look for are read from it.
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "crates", "ufo-testkit", "fixtures", "apps")


def make_fixtures(work):
    shutil.copytree(FIXTURES, work, dirs_exist_ok=True)


def _fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


DOC_TEXT = _fixture("doc.txt").decode().splitlines()[0]
PDF_TEXT = re.search(rb"\((.*?)\) Tj", _fixture("doc.pdf")).group(1).decode()
FORM_PARAGRAPH = re.search(r"<p>(.*?)</p>", _fixture("form.html").decode()).group(1)
HIDDEN = ".hidden-note.txt"
PASSWORD = "s3cret!"


# ---------------------------------------------------------------- the table

LO = ["soffice", "-env:UserInstallation=file://$WORK/lo-profile", "--norestore", "--nologo"]
# Java Swing through the ATK bridge (libatk-wrapper-java): a form of our own
SWING = ["java", "-cp", "/usr/share/java/java-atk-wrapper.jar", "-Djava.library.path=/usr/lib/x86_64-linux-gnu/jni",
         "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper",
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "swing", "ConformanceForm.java"), "$WORK/swing-out.txt"]
FF = ["firefox-esr", "--new-instance", "--no-remote", "--profile", "$WORK/ffprofile", "file://$WORK/form.html"]
FF_LOGIN = FF[:-1] + ["file://$WORK/login.html"]
# Chromium as root needs --no-sandbox; its accessibility tree is built on request.
CHR = ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--no-first-run",
       "--user-data-dir=$WORK/chrprofile", "file://$WORK/form.html"]
TYPED = "conformance typed text"

CHECKS = [
    # ---- gedit (GTK 3)
    Check("gedit", "type", "set_edit_text in the document → AT-SPI text of the view",
          ["gedit", "--new-window", "-s"],
          [act("set_edit_text", "Edit|Document", ".*", text=TYPED, clear_current_text=True)],
          verify_text("text", None, expect=TYPED)),
    Check("gedit", "read", "`texts` on the document of an opened file → the file's text",
          ["gedit", "-s", "$WORK/doc.txt"],
          [remember_texts("Edit|Document", ".*")],
          verify_in_texts(DOC_TEXT)),
    Check("gedit", "dialog", "^+s, type the name into Save As, Enter → the file on disk",
          ["gedit", "-s"],
          [act("set_edit_text", "Edit|Document", ".*", text="saved by gedit", clear_current_text=True),
           keys("^+s"), sleep(1.5),
           act("set_edit_text", "Edit", "^Name:?$", text="$WORK/gedit-saved.txt", clear_current_text=True),
           keys("{ENTER}")],
          verify_file("$WORK/gedit-saved.txt", contains="saved by gedit")),
    # ---- mousepad (GTK 3)
    Check("mousepad", "type", "set_edit_text in the document → AT-SPI text",
          ["mousepad"],
          [act("set_edit_text", "Edit|Document", ".*", text=TYPED, clear_current_text=True)],
          verify_text("text", None, expect=TYPED)),
    Check("mousepad", "menu", "click the File menu, observe → every item AT-SPI shows is listed",
          ["mousepad"],
          [act("click_input", "MenuItem|Menu", "^File$"), sleep(0.8), remember_listing()],
          verify_menu_listed()),
    Check("mousepad", "dialog", "^+s, file name into Save As, Enter → the file on disk",
          ["mousepad"],
          [act("set_edit_text", "Edit|Document", ".*", text="saved by mousepad", clear_current_text=True),
           keys("^+s"), sleep(1.5),
           act("set_edit_text", "Edit", "^Name:?$", text="$WORK/mousepad-saved.txt", clear_current_text=True),
           keys("{ENTER}")],
          verify_file("$WORK/mousepad-saved.txt", contains="saved by mousepad")),
    # ---- galculator (GTK 3)
    Check("galculator", "calc", "keyboard_input {ESC}98-19{ENTER} → AT-SPI display reads 79",
          ["galculator"],
          [keys("{ESC}98-19{ENTER}")],
          verify_text("text", None, expect="79")),
    Check("galculator", "menu", "click the Edit menu → every open item is listed",
          ["galculator"],
          [act("click_input", "MenuItem|Menu", "^Edit$"), sleep(0.8), remember_listing()],
          verify_menu_listed()),
    # ---- thunar (GTK 3)
    Check("thunar", "select", "click_input on a folder row → the row is selected, the folder not opened",
          ["thunar", "$WORK/files"],
          [keys("^2"), sleep(1),  # the details view: Thunar's icon view has no accessible items
           act("click_input", "ListItem|TreeItem|DataItem|TableItem", "^beta-folder$"), sleep(1)],
          verify_all(verify_state("table cell", "^beta-folder$", "selected"),
                     verify_text("text", None, regex=r"/files/?$"))),
    Check("thunar", "activate", "double click on a folder row → Thunar is in that folder",
          ["thunar", "$WORK/files"],
          [keys("^2"), sleep(1),
           act("click_input", "ListItem|TreeItem|DataItem|TableItem", "^gamma-folder$", double=True), sleep(1)],
          verify_text("text", None, regex=r"gamma-folder/?$")),
    Check("thunar", "rows", "the side pane's rows AT-SPI shows are all in ufo's list",
          ["thunar", "$WORK/files"],
          [remember_listing()],
          lambda ctx: verify_rows_listed(ctx, ["Places", "root", "File System"])),
    # ---- evince (GTK 3)
    Check("evince", "read", "`texts` on the page of a PDF → the PDF's text",
          ["evince", "$WORK/doc.pdf"],
          [sleep(1), remember_texts("Document", ".*")],
          verify_in_texts(PDF_TEXT), settle=2),
    # ---- gnome-calculator (GTK 4)
    Check("gnome-calculator", "calc", "keyboard_input 98-19{ENTER} → AT-SPI display reads 79",
          ["gnome-calculator"],
          [keys("{ESC}98-19{ENTER}")],
          verify_text("text", None, regex=r"^79$")),
    # ---- gnome-text-editor (GTK 4)
    Check("gnome-text-editor", "type", "set_edit_text in the view → AT-SPI text",
          ["gnome-text-editor", "--standalone"],
          [act("set_edit_text", "Edit|Document", ".*", text=TYPED, clear_current_text=True)],
          verify_text("text", None, expect=TYPED)),
    # ---- KCalc (Qt 5)
    Check("kcalc", "calc", "keyboard_input 98-19{ENTER} → KCalc's display (AT-SPI) reads 79",
          ["kcalc"],
          [keys("{ESC}98-19{ENTER}")],
          verify_text(None, None, regex=r"^79$")),
    # ---- featherpad (Qt 5)
    Check("featherpad", "type", "set_edit_text in the editor → AT-SPI text",
          ["featherpad", "--standalone"],
          [act("set_edit_text", "Edit|Document", ".*", text=TYPED, clear_current_text=True)],
          verify_text("text", None, expect=TYPED)),
    Check("featherpad", "menu", "click File → every open item is listed",
          ["featherpad", "--standalone"],
          [act("click_input", "MenuItem|Menu", "^File$"), sleep(0.8), remember_listing()],
          verify_menu_listed()),
    # ---- zenity (GTK 3)
    Check("zenity", "dialog", "zenity --entry: set_edit_text, click OK → zenity prints the text",
          ["zenity", "--entry", "--text", "Your name"],
          [act("set_edit_text", "Edit", ".*", text="Ada", clear_current_text=True),
           act("click_input", "Button", "^OK$")],
          verify_output(r"Ada")),
    Check("zenity", "select", "zenity --list: click a row, OK → zenity prints that row",
          ["zenity", "--list", "--column", "Fruit", "apple", "banana", "cherry"],
          [act("click_input", "ListItem|TreeItem|DataItem|TableItem", "^banana$"),
           act("click_input", "Button", "^OK$")],
          verify_output(r"banana")),
    Check("zenity", "activate", "zenity --list: double click a row → zenity prints it (row activated)",
          ["zenity", "--list", "--column", "Fruit", "apple", "banana", "cherry"],
          [act("click_input", "ListItem|TreeItem|DataItem|TableItem", "^cherry$", double=True)],
          verify_output(r"cherry")),
    # ---- gtk3-widget-factory (GTK 3)
    Check("gtk3-widget-factory", "checkbox", "click_input on the unticked, enabled 'checkbutton' → AT-SPI: one more ticked",
          ["gtk3-widget-factory"],
          [run_step(lambda ctx: ctx.vars.__setitem__("before", count_states(ctx, "check box", "^checkbutton$", ["checked", "enabled"]))),
           act_on(lambda ctx: [c for c in ctx.controls() if c.get("type") == "CheckBox" and c.get("name") == "checkbutton"
                               and "checked" not in st(c) and "enabled" in st(c)], "click_input", pick=0)],
          lambda ctx: verify_count_change(ctx, "check box", "^checkbutton$", ["checked", "enabled"], +1)),
    Check("gtk3-widget-factory", "select", "click_input on the tree row 'Otto' → AT-SPI: that cell is selected",
          ["gtk3-widget-factory"],
          [act("click_input", "ListItem|TreeItem|DataItem|TableItem", "^Otto$")],
          verify_state("table cell", "^Otto$", "selected")),
    Check("gtk3-widget-factory", "combo", "click the combo 'Left', click the item 'Middle' in its popup → AT-SPI combo named 'Middle'",
          ["gtk3-widget-factory"],
          [act("click_input", "ComboBox", "^Left$"), sleep(0.8),
           act("click_input", "MenuItem|ListItem", "^Middle$")],
          lambda ctx: verify_combo_count(ctx, "Middle", 2)),
    Check("gtk3-widget-factory", "type", "set_edit_text in the multi-line text view → AT-SPI text",
          ["gtk3-widget-factory"],
          [act("set_edit_text", "Edit|Document", "Lorem|^$", text=TYPED, clear_current_text=True)],
          verify_text("text", None, expect=TYPED)),
    # ---- gnumeric (GTK 3)
    Check("gnumeric", "type", "keyboard_input =6*7{ENTER}{UP} into the sheet → the status bar reads 'Sum = 42'",
          ["gnumeric"],
          [keys("=6*7{ENTER}{UP}")],
          verify_text("label", "^Sum", regex=r"Sum = 42$"), settle=2),
    Check("gnumeric", "menu", "click the Edit menu → every open item is listed",
          ["gnumeric"],
          [act("click_input", "MenuItem|Menu", "^Edit$"), sleep(0.8), remember_listing()],
          verify_menu_listed(), settle=2),
    # ---- xfce4-terminal (VTE)
    Check("xfce4-terminal", "type", "keyboard_input 'echo … > file{ENTER}' → the shell wrote the file",
          ["xfce4-terminal", "--disable-server", "--working-directory", "$WORK"],
          [keys("echo conformance-term > term-out.txt{ENTER}")],
          verify_file("$WORK/term-out.txt", contains="conformance-term")),
    Check("xfce4-terminal", "read", "run 'echo MARK', then `texts` on the terminal → holds the output line",
          ["xfce4-terminal", "--disable-server", "--working-directory", "$WORK"],
          [keys("echo MARK-$((6*7)){ENTER}"), sleep(1), remember_texts("Edit|Document|Terminal|Custom|Pane", ".*")],
          verify_all(verify_text("terminal", None, regex=r"\nMARK-42"), verify_in_texts("MARK-42"))),
    Check("xfce4-terminal", "dialog", "set_edit_text into the terminal ('echo hi > f') then {ENTER} → file, and ufo reports success",
          ["xfce4-terminal", "--disable-server", "--working-directory", "$WORK"],
          [act("set_edit_text", "Edit|Document|Terminal|Custom|Pane", ".*", text="echo set-edit > term-set.txt"),
           keys("{ENTER}")],
          verify_file("$WORK/term-set.txt", contains="set-edit")),
    # ---- abiword (GTK 3)
    Check("abiword", "dialog", "keyboard_input text, ^s, name into Save As, Enter → the .abw on disk holds the text",
          ["abiword"],
          [keys("abiword typed text"), keys("^s"), sleep(1.5),
           act("set_edit_text", "Edit", "^Name:?$", text="$WORK/abi-saved.abw", clear_current_text=True),
           keys("{ENTER}")],
          verify_file("$WORK/abi-saved.abw", contains="abiword typed text"), settle=2),
    Check("abiword", "menu", "click the Format menu → every open item is listed",
          ["abiword"],
          [act("click_input", "MenuItem|Menu", "^Format$"), sleep(0.8), remember_listing()],
          verify_menu_listed(), settle=2),
    # ---- qt6ct (Qt 6)
    Check("qt6ct", "combo", "click the combo 'Style:' (Fusion), click 'Windows' → AT-SPI combo named 'Windows'",
          ["qt6ct"],
          [act("click_input", "ComboBox", "^Fusion$"), sleep(0.8),
           act("click_input", "ListItem|MenuItem", "^Windows$")],
          verify_text("combo box", "^Windows$", expect="Windows"), settle=1.5),
    Check("qt6ct", "checkbox", "click tab 'Interface', click_input 'Enable gui effects' → AT-SPI checked",
          ["qt6ct"],
          [act("click_input", "TabItem", "^Interface$"), sleep(0.5),
           act("click_input", "CheckBox", "^Enable gui effects$")],
          verify_state("check box", "^Enable gui effects$", "checked"), settle=1.5),
    Check("qt6ct", "dialog", "tab 'Interface', tick 'Enable gui effects', click OK → qt6ct.conf on disk",
          ["qt6ct"],
          [act("click_input", "TabItem", "^Interface$"), sleep(0.5),
           act("click_input", "CheckBox", "^Enable gui effects$"), act("click_input", "Button", "^OK$")],
          verify_file("$WORK/config/qt6ct/qt6ct.conf", regex=r"gui_effects=\S"), settle=1.5),
    # ---- zenity password and calendar
    Check("zenity", "type", "zenity --password: set_edit_text into the password field, OK → zenity prints it",
          ["zenity", "--password"],
          [act("set_edit_text", "Edit", ".*", text="s3cret-pw", clear_current_text=True),
           act("click_input", "Button", "^OK$")],
          verify_output(r"s3cret-pw")),
    Check("zenity", "read", "zenity --calendar on 17 May 2024: ufo lists Calendar \"Calendar\"; keyboard_input ^{RIGHT}^{DOWN} on it (a month and a year on), OK → zenity prints 2025-06-17",
          ["zenity", "--calendar", "--day", "17", "--month", "5", "--year", "2024", "--date-format", "%Y-%m-%d"],
          [remember_listing(),
           act("keyboard_input", "Calendar", "^Calendar:?$", keys="^{RIGHT}^{DOWN}"),
           act("click_input", "Button", "^OK$")],
          verify_all(verify_output(r"2025-06-17"), lambda ctx: verify_listing_has(ctx, r"Calendar", field="type"))),
    # ---- evince menu? (no menu bar: GTK 3 header bar)
    # ---- gtk4-widget-factory (GTK 4)
    Check("gtk4-demo", "checkbox", "gtk4-demo dropdown page: click_input 'Enable search' → AT-SPI checked",
          ["gtk4-demo", "--run=dropdown"],
          [act("click_input", "CheckBox", "^Enable search$")],
          verify_state("check box", "^Enable search$", "checked"), settle=2),
    Check("gtk4-demo", "read", "the main window's tabs are listed by their visible names (Info, Source, ...), not all 'Tab'",
          ["gtk4-demo"],
          [remember_listing()],
          lambda ctx: verify_tab_names(ctx), settle=2),
    Check("gtk4-demo", "combo", "gtk4-demo dropdown: click a drop-down, pick an item in its popover → AT-SPI shows the new choice",
          ["gtk4-demo", "--run=dropdown"],
          [remember_listing("before"),
           act_on(lambda ctx: [c for c in ctx.controls() if c.get("type") == "ComboBox"], "click_input", pick=0), sleep(0.8),
           remember_listing(),
           run_step(lambda ctx: pick_popover_item(ctx))],
          lambda ctx: verify_popover_pick(ctx), settle=2),
    Check("gnome-text-editor", "menu", "click the main menu button → every item of its popover is listed, none it covers; click its last item (below the window's edge) → AT-SPI: the About window",
          ["gnome-text-editor", "--standalone"],
          [act("click_input", "Button|MenuItem", "Main Menu|Menu"), sleep(0.8), remember_listing(),
           run_step(lambda ctx: verify_menu_listed(gtk4=True)(ctx)),
           # The last item, below the window's edge: the click lands on it.
           act("click_input", "MenuItem", "^About Text Editor$")],
          verify_text("frame", "^About$", regex="About"), settle=1.5),
    Check("gnome-text-editor", "dialog", "type, ^+s, name into Save As, Enter → the file on disk",
          ["gnome-text-editor", "--standalone"],
          [act("set_edit_text", "Edit|Document", ".*", text="saved by gte", clear_current_text=True),
           keys("^+s"), sleep(1.5),
           act("set_edit_text", "Edit", "^Name:?$", text="$WORK/gte-saved.txt", clear_current_text=True),
           keys("{ENTER}")],
          verify_file("$WORK/gte-saved.txt", contains="saved by gte"), settle=1.5),
    Check("featherpad", "checkbox", "Options menu → click the ticked 'Wrap Lines' → AT-SPI: unticked, and the menu closed",
          ["featherpad", "--standalone"],
          [act("click_input", "MenuItem|Menu", "^Options$"), sleep(0.8),
           act("click_input", "MenuItem|CheckBox", "^Wrap Lines$"), sleep(0.8)],
          verify_all(verify_state("menu item", "^Wrap Lines$", "checked", present=False),
                     lambda ctx: verify_menu_closed(ctx))),
    # ---- featherpad dialog
    Check("featherpad", "dialog", "type, ^+s, file name into Save As, Enter → the file on disk",
          ["featherpad", "--standalone"],
          [act("set_edit_text", "Edit|Document", ".*", text="saved by featherpad", clear_current_text=True),
           keys("^+s"), sleep(1.5),
           act("set_edit_text", "Edit|ComboBox", "File name|^$", text="$WORK/fp-saved.txt", clear_current_text=True),
           keys("{ENTER}")],
          verify_file("$WORK/fp-saved.txt", contains="saved by featherpad")),
    # ---- kcalc read
    Check("kcalc", "read", "after 6*7{ENTER}, ufo's control list shows the display's 42",
          ["kcalc"],
          [keys("{ESC}6*7{ENTER}"), sleep(0.5), remember_listing()],
          verify_all(verify_text(None, None, regex=r"^42$"), lambda ctx: verify_listing_has(ctx, r"^42$"))),
    Check("kcalc", "menu", "click the Edit menu → every open item is listed, then it closes on a pick",
          ["kcalc"],
          [act("click_input", "MenuItem|Menu", "^Edit$"), sleep(0.8), remember_listing()],
          verify_menu_listed()),
    # ---- qpdfview (Qt 5)
    Check("qpdfview", "combo", "the closed zoom combo's items are not listed; click it, click '200 %' → AT-SPI combo reads 200 %",
          ["qpdfview", "--unique", "$WORK/doc.pdf"],
          [remember_listing("closed"),
           act("click_input", "ComboBox", "^100 %$"), sleep(0.8),
           act("click_input", "ListItem|MenuItem", "^200 %$")],
          verify_all(lambda ctx: verify_not_listed(ctx, "closed", "ListItem", r"^(50|75|150|300|400) %$"),
                     verify_text("combo box", None, regex=r"^200 %$")), settle=2),
    # ---- LibreOffice Calc
    Check("lo-calc", "type", "Name Box → A1, keyboard_input =6*7{ENTER} → AT-SPI cell A1 reads 42",
          LO + ["--calc"],
          [act_on(lambda ctx: [c for c in ctx.controls() if c.get("type") == "Edit" and c.get("value") == "A1"],
                  "set_edit_text", text="A1", clear_current_text=True), keys("{ENTER}"),
           keys("=6*7{ENTER}")],
          verify_text("table cell", "^A1$", regex=r"^42$"), settle=4),
    Check("lo-calc", "menu", "click the Format menu → every open item is listed (once)",
          LO + ["--calc"],
          [act("click_input", "MenuItem|Menu", "^Format$"), sleep(1), remember_listing()],
          verify_menu_listed(), settle=4),
    # The Name Box has no name, description or relation in AT-SPI (LO 7.4, VCL gtk3; see
    # CONFORMANCE-DEFECTS.md §7): it is checked as the field showing the cell reference.
    Check("lo-calc", "read", "the menu bar is listed once (AT-SPI shows one on screen); the Name Box is listed as the Edit showing A1",
          LO + ["--calc"],
          [remember_listing()],
          verify_all(lambda ctx: verify_listed_once(ctx, "MenuItem", "File"),
                     lambda ctx: verify_listing_has(ctx, r"^A1$", field="value")), settle=4),
    # ---- LibreOffice Writer
    Check("lo-writer", "type", "set_edit_text into the document → AT-SPI paragraph text",
          LO + ["--writer"],
          [act("set_edit_text", "Document", ".*", text=TYPED)],
          verify_text("paragraph", None, regex=TYPED), settle=4),
    Check("lo-writer", "dialog", "type, ^+s, name into Save As, Enter (Keep format) → the .odt on disk holds the text",
          LO + ["--writer"],
          [act("set_edit_text", "Document", ".*", text="saved by writer"),
           keys("^+s"), sleep(2),
           act("set_edit_text", "Edit|ComboBox", "^Name:?$|File name", text="$WORK/writer-saved.odt", clear_current_text=True),
           keys("{ENTER}")],
          lambda ctx: verify_odt(ctx, "$WORK/writer-saved.odt", "saved by writer"), settle=4),
    Check("lo-writer", "read", "`texts` on the document of an opened .txt → the file's text",
          LO + ["--writer", "$WORK/doc.txt"],
          [remember_texts("Document", ".*")],
          verify_in_texts(DOC_TEXT), settle=4),
    # ---- Java Swing (ATK bridge)
    Check("swing", "type", "set_edit_text in the field 'Name', click Save → the form's file holds the name",
          SWING,
          [remove("$WORK/swing-out.txt"),
           act("set_edit_text", "Edit", "^Name$", text="Ada Swing", clear_current_text=True),
           act("click_input", "Button", "^Save$")],
          verify_all(verify_text("text", "^Name$", expect="Ada Swing"),
                     verify_file("$WORK/swing-out.txt", contains="name=Ada Swing")), settle=2),
    Check("swing", "checkbox", "click_input on 'Subscribe', click Save → AT-SPI checked and the file says so",
          SWING,
          [remove("$WORK/swing-out.txt"),
           act("click_input", "CheckBox", "^Subscribe$"), act("click_input", "Button", "^Save$")],
          verify_all(verify_state("check box", "^Subscribe$", "checked"),
                     verify_file("$WORK/swing-out.txt", contains="subscribe=true")), settle=2),
    Check("swing", "combo", "click the combo 'Red', click 'Blue' in its popup → AT-SPI combo named Blue",
          SWING,
          [act("click_input", "ComboBox", "^Red$"), sleep(0.8),
           act("click_input", "ListItem|MenuItem|Text", "^Blue$")],
          verify_text("combo box", None, regex="^Blue$"), settle=2),
    Check("swing", "select", "click_input on the list row 'banana', click Save → AT-SPI selected, the file names it",
          SWING,
          [remove("$WORK/swing-out.txt"),
           act("click_input", "ListItem|Text|DataItem", "^banana$"), act("click_input", "Button", "^Save$")],
          verify_all(verify_state("label", "^banana$", "selected"),
                     verify_file("$WORK/swing-out.txt", contains="fruit=banana")), settle=2),
    # ---- gtk3-icon-browser (GTK 3's GtkIconView)
    Check("gtk3-icon-browser", "rows", "click the category 'Emotes' → every icon AT-SPI draws in the icon view is listed by its caption",
          ["gtk3-icon-browser"],
          [act("click_input", "ListItem", "^Emotes$"), sleep(1), remember_listing()],
          lambda ctx: verify_icons_listed(ctx, at_least=10)),
    Check("gtk3-icon-browser", "activate", "category 'Emotes', click_input the icon 'face-cool' (the view opens on one click) → its window opens",
          ["gtk3-icon-browser"],
          [act("click_input", "ListItem", "^Emotes$"), sleep(1), act("click_input", "ListItem", "^face-cool$"), sleep(1)],
          lambda ctx: verify_window_named(ctx, "^face-cool$")),
    # ---- gtk4-icon-browser (GTK 4's GtkGridView)
    Check("gtk4-icon-browser", "rows", "every cell AT-SPI draws in the grid view is listed by the label it shows",
          ["gtk4-icon-browser"],
          [sleep(1), remember_listing()],
          lambda ctx: verify_grid_cells_listed(ctx, at_least=4)),
    Check("gtk4-icon-browser", "activate", "click_input the cell 'audio-volume-low' (the grid opens on one click) → its window opens",
          ["gtk4-icon-browser"],
          [act("click_input", "DataItem|ListItem", "^audio-volume-low$"), sleep(1)],
          lambda ctx: verify_window_named(ctx, "^audio-volume-low$")),
    # ---- window titles (issue 27: windows named "")
    Check("kcalc", "title", "`ufo windows` titles KCalc's window as X does (xprop _NET_WM_NAME)",
          ["kcalc"], [], verify_window_title),
    Check("qt6ct", "title", "`ufo windows` lists qt6ct (its top level is a `filler`) with X's title",
          ["qt6ct"], [], verify_window_title),
    Check("zenity", "title", "`ufo windows` titles zenity's calendar dialog as X does",
          ["zenity", "--calendar", "--title", "Pick a day"], [], verify_window_title),
    Check("swing", "title", "`ufo windows` titles the Swing frame as X does",
          SWING, [], verify_window_title, settle=2),
    # ---- firefox
    Check("firefox", "type", "set_edit_text in a web form field → AT-SPI text",
          FF,
          [act("set_edit_text", "Edit", "^Name:?$", text="Ada Lovelace", clear_current_text=True)],
          verify_text("entry", "^Name:?$", expect="Ada Lovelace"), settle=3),
    Check("firefox", "checkbox", "click_input on 'Subscribe' → AT-SPI checked",
          FF,
          [act("click_input", "CheckBox", "^Subscribe$")],
          verify_state("check box", "^Subscribe$", "checked"), settle=3),
    Check("firefox", "combo", "click the select 'Color', click 'Blue' → AT-SPI combo shows Blue",
          FF,
          [act("click_input", "ComboBox", "Color|Red"), sleep(0.8), act("click_input", "MenuItem|ListItem", "^Blue$")],
          verify_state("menu item", "^Blue$", "selected"), settle=3),
    Check("firefox", "read", "`texts` on the page document → the page's paragraph",
          FF,
          [remember_texts("Document|Pane|Group", "Signup|.*")],
          verify_in_texts(FORM_PARAGRAPH), settle=3),
    # ---- tables by column: a header click sorts; a cell says its column
    Check("zenity", "sort", "zenity --list (two columns, unsorted): click the header 'Fruit' → AT-SPI rows sorted; 'yellow' is of column 'Colour'",
          ["zenity", "--list", "--column", "Fruit", "--column", "Colour", "cherry", "dark red", "apple", "red", "banana", "yellow"],
          [act("click_input", "HeaderItem", "^Fruit$")],
          verify_all(verify_rows_order("table cell", ["apple", "banana", "cherry"]),
                     verify_cell_column("yellow", "Colour"))),
    Check("gtk3-demo", "sort", "the List Store demo: click the header 'Bug number' → AT-SPI rows sorted by number",
          ["gtk3-demo", "--run", "list_store"],
          [act("click_input", "HeaderItem", "^Bug number$")],
          verify_all(verify_rows_order("table cell", ["50055", "50214", "52877"]),
                     verify_cell_column("52877", "Bug number"))),
    # ---- spin buttons: the number committed, not only the entry's text
    Check("gtk3-widget-factory", "spin", "set_edit_text 42 into a spin button → AT-SPI: a spin button's value is 42",
          ["gtk3-widget-factory"],
          [act("set_edit_text", "Spinner", ".*", text="42", clear_current_text=True)],
          verify_spin_value(42)),
    Check("gtk3-demo", "spin", "the Spin Button demo: set_edit_text 42 into a spin button → AT-SPI value 42",
          ["gtk3-demo", "--run", "spinbutton"],
          [act("set_edit_text", "Spinner", ".*", text="42", clear_current_text=True)],
          verify_spin_value(42)),
    # ---- a menu item that runs a modal dialog (gtk_dialog_run), then a key
    Check("mousepad", "modal", "click File, 'Save As...' (a modal dialog), then {ESC} → the dialog closed and mousepad answers",
          ["mousepad"],
          [act("click_input", "MenuItem|Menu", "^File$"), sleep(0.8),
           act("click_input", "MenuItem", "^Save As"), sleep(1), keys("{ESC}")],
          verify_app_answers(r"Mousepad", r"^Save As")),
    Check("thunar", "modal", "click File, 'Create Folder...' (a modal dialog), then {ESC} → the dialog closed and Thunar answers",
          ["thunar", "$WORK/files"],
          [act("click_input", "MenuItem|Menu", "^File$"), sleep(0.8),
           act("click_input", "MenuItem", "^Create Folder"), sleep(1), keys("{ESC}")],
          verify_app_answers(r"Thunar", r"New Folder|Create")),
    # ---- GTK 2 applications on the accessibility bus (gail + atk-bridge)
    Check("gtk-demo", "gtk2", "gtk-demo (GTK 2) → ufo lists its named controls",
          ["gtk-demo"],
          [sleep(1)],
          lambda ctx: verify_named_controls(3)(ctx)),
    Check("gpicview", "gtk2", "gpicview (GTK 2) → ufo lists its named controls",
          ["gpicview"],
          [sleep(1)],
          lambda ctx: verify_named_controls(3)(ctx)),
    # ---- a password goes in once (the application prints what it got)
    Check("zenity", "password", "set_edit_text a password into zenity --password, click OK → zenity prints it, once",
          ["zenity", "--password", "--title", "Unlock"],
          [act("set_edit_text", "Edit", "^Password$", text=PASSWORD, clear_current_text=True),
           act("click_input", "Button", "^OK$")],
          verify_output(re.escape(PASSWORD))),
    Check("kdialog", "password", "set_edit_text a password into kdialog --password (KDE's password dialog), click OK → kdialog prints it, once",
          ["kdialog", "--password", "Unlock the vault"],
          [act("set_edit_text", "Edit", "^Password$", text=PASSWORD, clear_current_text=True),
           act("click_input", "Button", "^OK$")],
          verify_output(re.escape(PASSWORD)), settle=2),
    # ---- a toolbar's checkable buttons run their command (Qt's Toggle action only flips)
    Check("pcmanfm-qt", "toggle", "click the toolbar's checkable 'Detailed List' → AT-SPI: the column header 'Name' shows, 'Icon View' is no longer checked",
          ["pcmanfm-qt", "$WORK/pick"],
          [act("click_input", "CheckBox", "^Icon View$"), sleep(0.5), act("click_input", "CheckBox", "^Detailed List$")],
          verify_all(verify_showing("column header|table column header", "^Name$"),
                     verify_state(None, "^Icon View$", "checked", present=False)), settle=2),
    Check("dolphin", "toggle", "click the toolbar's checkable 'Icons', then 'Details' → AT-SPI: the files stand in a row, then in one column; 'Icons' is no longer checked",
          ["dolphin", "$WORK/pick"],
          [act("click_input", "CheckBox", "^Icons$"), sleep(0.8),
           run_step(verify_in_one_row("table cell|list item", ["a.txt", "b.txt", "c.txt"])),
           act("click_input", "CheckBox", "^Details$")],
          verify_all(verify_in_one_column("table cell|list item", ["a.txt", "b.txt", "c.txt"]),
                     verify_state("check box", "^Icons$", "checked", present=False)), settle=3),
    # ---- typing goes where it is meant, whatever holds the keyboard
    Check("kate", "focus", "open the find bar and type 'findme' there, then set_edit_text into the document → AT-SPI: the document holds the text, the find field still 'findme'",
          ["kate", "$WORK/focus.txt"],
          [act("click_input", "Edit", "^focus.txt$"), keys("^f"), sleep(1), keys("findme"), sleep(0.5),
           act("set_edit_text", "Edit", "^focus.txt$", text="typed into the document")],
          verify_typed_beside("text", "^focus.txt$", "typed into the document", "findme"), settle=3),
    Check("firefox", "focus", "the login page's search field holds the keyboard (autofocus); set_edit_text 'ada' into 'User' → AT-SPI: User reads ada, Search stays empty",
          FF_LOGIN,
          [act("set_edit_text", "Edit", "^User$", text="ada")],
          verify_all(verify_text("entry", "^User$", expect="ada"), verify_text("entry", "^Search$", expect="")),
          settle=3),
    # ---- a tool button's menu (Qt leaves the open popup out of the tree)
    Check("dolphin", "toolmenu", "click the tool button 'Open Menu', then its item 'Show Hidden Files' by name → AT-SPI: the hidden file's listing flips",
          ["dolphin", "$WORK/pick"],
          [sleep(1), run_step(remember_present("table cell|list item", "^" + re.escape(HIDDEN) + "$")),
           act("click_input", "Button", "^Open Menu$"), sleep(0.8),
           act("click_input", "MenuItem", "^Show Hidden Files$")],
          verify_flipped("table cell|list item", "^" + re.escape(HIDDEN) + "$"), settle=3),
    Check("kate", "toolmenu", "click the status bar's tool button 'Soft Tabs: 4', then its item 'Tabulators' by name → AT-SPI: the button reads 'Tab Size: 4'",
          ["kate", "$WORK/focus.txt"],
          [act("click_input", "Button", "^Soft Tabs"), sleep(0.8), act("click_input", "MenuItem", "^Tabulators$")],
          verify_showing("push button", "^Tab Size: 4$"), settle=3),
    # ---- a file chooser's rows, by name
    Check("zenity", "chooser", "zenity --file-selection in a folder: click the row 'b.txt' by name, click OK → zenity prints its path",
          ["zenity", "--file-selection", "--filename=$WORK/pick/"],
          [act("click_input", "DataItem|ListItem", r"^b\.txt$"), act("click_input", "Button", "^OK$")],
          verify_output(r".*/pick/b\.txt"), settle=1.5),
    Check("mousepad", "chooser", "mousepad with a.txt open: Ctrl+O, click the row 'c.txt' by name, click Open → a window named c.txt",
          ["mousepad", "$WORK/pick/a.txt"],
          [keys("^o"), sleep(1.5), act("click_input", "DataItem|ListItem", r"^c\.txt$"),
           act("click_input", "Button", "^Open$")],
          lambda ctx: verify_window_named(ctx, r"c\.txt"), settle=1.5),
    # ---- a combo box shows its current choice
    Check("firefox", "comboval", "the select 'Color' is listed with its choice 'Red'; click it, click 'Blue' → ufo lists it with 'Blue', AT-SPI has Blue selected",
          FF,
          [run_step(verify_combo_shows("Color", "Red")),
           act("click_input", "ComboBox", "Color"), sleep(0.8), act("click_input", "MenuItem|ListItem", "^Blue$"), sleep(0.5)],
          verify_all(verify_state("menu item", "^Blue$", "selected"), verify_combo_shows("Color", "Blue")), settle=3),
    Check("qt6ct", "comboval", "the style combo is listed with its choice 'Fusion'; click it, click 'Windows' → ufo lists it with 'Windows', AT-SPI too",
          ["qt6ct"],
          [run_step(verify_combo_shows(".*", "Fusion")),
           act("click_input", "ComboBox", "^Fusion$"), sleep(0.8), act("click_input", "ListItem|MenuItem", "^Windows$"), sleep(0.5)],
          verify_all(verify_text("combo box", "^Windows$", expect="Windows"), verify_combo_shows(".*", "Windows")),
          settle=1.5),
    Check("chromium", "comboval", "the select 'Color' is listed with its choice 'Red' (Chromium reads its closed list nowhere); click it, click 'Blue' → ufo lists it with 'Blue', AT-SPI has Blue selected",
          CHR,
          [run_step(verify_combo_shows("Color", "Red")),
           act("click_input", "ComboBox", "Color"), sleep(0.8), act("click_input", "MenuItem|ListItem", "^Blue$"), sleep(0.5)],
          verify_all(verify_state("menu item", "^Blue$", "selected"), verify_combo_shows("Color", "Blue")), settle=4),
    Check("zenity", "comboval", "a form's combo: click it, click the item 'colorful' by name → ufo lists it by its label, 'Theme' = 'colorful' (GTK names a combo by its choice: it read 'colorful' alone)",
          ["zenity", "--forms", "--title", "Prefs", "--add-combo", "Theme", "--combo-values", "light|dark|colorful"],
          [act("click_input", "ComboBox", "^Theme$"), sleep(0.8), act("click_input", "MenuItem", "^colorful$"), sleep(0.5)],
          verify_combo_shows("^Theme$", "colorful"), settle=1.5),
    # ---- a slide's placeholder is no text
    Check("lo-impress", "placeholder", "Impress: the empty title box is listed as 'Click to add Title' with no value; append 'Quarterly Review' to it → AT-SPI: the title reads 'Quarterly Review' alone (it read 'Click to add TitleQuarterly Review')",
          LO + ["--impress"],
          [act("set_edit_text", "Document", "^Click to add Title$", text="Quarterly Review")],
          verify_text("paragraph", expect="Quarterly Review"), settle=4),
    # ---- an icon button is named by what a person reads: its tooltip, a label beside
    Check("lo-impress", "unnamed", "Impress: the sidebar's icon tab is listed by its tooltip, 'Styles' (it was unnamed); click it by name → AT-SPI: the deck's title reads 'Styles'",
          LO + ["--impress"],
          [act("click_input", "Button", "^Styles$")],
          verify_showing("label", "^Styles$"), settle=4),
    Check("lo-writer", "unnamed", "Writer: the sidebar's icon tab 'Page' by its tooltip; click it by name → AT-SPI: the deck's title reads 'Page'",
          LO + ["--writer"],
          [act("click_input", "Button", "^Page$")],
          verify_showing("label", "^Page$"), settle=4),
    Check("chromium", "read", "the page's paragraph is said once, by the text it is (not again by an unnamed document)",
          CHR, [sleep(0.5)], verify_said_once(FORM_PARAGRAPH), settle=4),
]
