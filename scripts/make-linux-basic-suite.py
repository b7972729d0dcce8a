#!/usr/bin/env python3
"""Writes suites/linux-basic/: OSWorld-format tasks, their follower plans
(plans/<id>.json, the solutions the test suite replays to check every
checker scores 1) and the fixtures they use. Deterministic; rerun it after
editing and commit the result.

    python3 scripts/make-linux-basic-suite.py
"""
import json
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "suites", "linux-basic")
SOURCE = "ufo-rs linux-basic"
tasks, plans, fixtures = {}, {}, {}


def task(id, instruction, apps, config, evaluator, plan=None):
    tasks[id] = {
        "id": id,
        "snapshot": apps[0],
        "instruction": instruction,
        "source": SOURCE,
        "related_apps": apps,
        "config": config,
        "evaluator": evaluator,
    }
    if plan is not None:
        plans[id] = {"request": instruction, "actions": plan}


def host(app):
    return {"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": app}}


def act(action, **parameters):
    return {"agent": "AppAgent", "action": action, "parameters": parameters}


def launch(*command):
    return {"type": "launch", "parameters": {"command": list(command)}}


def download(fixture, dest):
    return {"type": "download", "parameters": {"files": [{"url": "$SUITE/fixtures/" + fixture, "path": dest}]}}


def set_text(text):
    return act("set_edit_text", name="", control_type="Edit|Document", text=text, clear_current_text=True)


SAVE = [act("keyboard_input", keys="^s", control_focus=False), act("wait", seconds=1)]


def same_file(path, fixture):
    return {
        "func": "compare_text_file",
        "result": {"type": "vm_file", "path": path, "dest": os.path.basename(path)},
        "expected": {"type": "local_file", "path": "$SUITE/fixtures/" + fixture},
        "options": {"ignore_blanks": True},
    }


def tree_has(selector, text=None):
    rule = {"selectors": [selector]}
    if text is not None:
        rule["text"] = text
        rule["exact"] = True
    return {"func": "check_accessibility_tree", "result": {"type": "accessibility_tree"},
            "expected": {"type": "rule", "rules": rule}}


def tree_includes(*texts):
    return {"func": "check_include_exclude", "result": {"type": "accessibility_tree"},
            "expected": {"type": "rule", "rules": {"include": list(texts), "exclude": []}}}


# Fixtures.
fixtures["notes.txt"] = "alpha\nbeta\n"
fixtures["notes-done.txt"] = "alpha\nbeta\ndone\n"
fixtures["notes-todo.txt"] = "TODO\nalpha\nbeta\n"
fixtures["greek.txt"] = "alpha\nbeta\ngamma\n"
fixtures["greek-no-beta.txt"] = "alpha\ngamma\n"
fixtures["hello.txt"] = "hello world\n"
fixtures["shout.txt"] = "quiet please\n"
fixtures["shout-upper.txt"] = "QUIET PLEASE\n"

# Text editors: the same edits in four toolkits (GTK 3, GTK 3, GTK 4, Qt 5).
EDITORS = [("mousepad", "Mousepad"), ("gedit", "gedit"), ("gnome-text-editor", "Text Editor"), ("featherpad", "FeatherPad")]
for app, shown in EDITORS:
    task(f"{app}-append-line",
         f"notes.txt is open in {shown}. Add a last line that says done, then save the file.",
         [app], [download("notes.txt", "~/notes.txt"), launch(app, "~/notes.txt")],
         same_file("~/notes.txt", "notes-done.txt"),
         [host(app), set_text("alpha\nbeta\ndone")] + SAVE)
    task(f"{app}-delete-line",
         f"greek.txt is open in {shown}. Delete the line that says beta, then save the file.",
         [app], [download("greek.txt", "~/greek.txt"), launch(app, "~/greek.txt")],
         same_file("~/greek.txt", "greek-no-beta.txt"),
         [host(app), set_text("alpha\ngamma")] + SAVE)
    task(f"{app}-first-line",
         f"notes.txt is open in {shown}. Insert a new first line that says TODO, then save the file.",
         [app], [download("notes.txt", "~/notes.txt"), launch(app, "~/notes.txt")],
         same_file("~/notes.txt", "notes-todo.txt"),
         [host(app), set_text("TODO\nalpha\nbeta")] + SAVE)
for app, shown in EDITORS[:2]:
    task(f"{app}-upper-case",
         f"shout.txt is open in {shown}. Change its text to upper case, then save the file.",
         [app], [download("shout.txt", "~/shout.txt"), launch(app, "~/shout.txt")],
         same_file("~/shout.txt", "shout-upper.txt"),
         [host(app), set_text("QUIET PLEASE")] + SAVE)


for app, shown in EDITORS:
    task(f"{app}-type-sentence",
         f"{shown} shows an empty document. Type: The quick brown fox",
         [app], [launch(app)],
         tree_includes(">The quick brown fox<"),
         [host(app), set_text("The quick brown fox")])

# The calculator.
for id, keys, result in [("multiply", ["1", "2", "×", "7"], "84"), ("add", ["2", "5", "+", "1", "7"], "42"),
                         ("subtract", ["1", "0", "0", "−", "5", "8"], "42"), ("divide", ["1", "4", "4", "÷", "1", "2"], "12")]:
    shown = " ".join(keys).replace(" ", "")
    task(f"calculator-{id}", f"Compute {shown} in the calculator, so that its display shows the result.",
         ["gnome-calculator"], [launch("gnome-calculator")],
         tree_includes(f">{result}<"),
         [host("gnome-calculator")] + [act("click_input", name=k, control_type="Button") for k in keys + ["="]])

# GTK 3 widgets.
for page in ["2", "3"]:
    task(f"widget-factory-page-{page}", f"In the GTK widget factory, switch to Page {page}.",
         ["gtk3-widget-factory"], [launch("gtk3-widget-factory")],
         tree_has(f'radio-button[name="Page {page}"][states~="checked"]'),
         [host("gtk3-widget-factory"), act("click_input", name=f"Page {page}", control_type="RadioButton")])

# LibreOffice (VCL on GTK 3), with a profile that skips the first-start dialogs.
fixtures["lo-profile/user/registrymodifications.xcu"] = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""
fixtures["amounts.csv"] = "item,amount\napples,10\npears,20\nplums,30\n"
fixtures["amounts-total.csv"] = "item,amount\napples,10\npears,20\nplums,30\n,60\n"
PROFILE = download("lo-profile/user/registrymodifications.xcu", "~/.lo-profile/user/registrymodifications.xcu")
LO = "-env:UserInstallation=file://$WORK/.lo-profile"
task("calc-column-total",
     "amounts.csv is open in LibreOffice Calc. In cell B5, put the total of the amounts above it, then save the file, keeping the CSV format.",
     ["localc"], [PROFILE, download("amounts.csv", "~/amounts.csv"),
                  launch("localc", LO, "--infilter=Text - txt - csv (StarCalc):44,34,76", "~/amounts.csv"),
                  {"type": "activate_window", "parameters": {"window_name": "amounts.csv - LibreOffice Calc"}}],
     {"func": "compare_table", "result": {"type": "vm_file", "path": "~/amounts.csv", "dest": "amounts.csv"},
      "expected": {"type": "local_file", "path": "$SUITE/fixtures/amounts-total.csv"}},
     [host("soffice"), act("wait", seconds=2),
      # One key at a time: a busy Calc can miss moves sent in one burst.
      *[a for k in ["^{HOME}", "{DOWN}", "{DOWN}", "{DOWN}", "{DOWN}", "{RIGHT}", "=SUM(B2:B4){ENTER}"]
        for a in (act("keyboard_input", keys=k, control_focus=False), act("wait", seconds=0.3))],
      act("keyboard_input", keys="^s", control_focus=False), act("wait", seconds=1),
      act("click_input", name="Use Text CSV Format", control_type="Button"), act("wait", seconds=1)])
task("writer-append-line",
     "notes.txt is open in LibreOffice Writer. Add a last line that says done, then save the file, keeping the text format.",
     ["lowriter"], [PROFILE, download("notes.txt", "~/notes.txt"), launch("lowriter", LO, "~/notes.txt"),
                    {"type": "activate_window", "parameters": {"window_name": "notes.txt - LibreOffice Writer"}}],
     # Writer may write a byte-order mark (it does under a UTF-8 locale): the
     # check looks for the lines, not for the exact bytes.
     {"func": "check_include_exclude", "result": {"type": "vm_command_line", "command": ["cat", "~/notes.txt"]},
      "expected": {"type": "rule", "rules": {"include": ["alpha\nbeta\ndone"], "exclude": ["done\ndone"]}}},
     [host("soffice"), act("wait", seconds=2),
      act("keyboard_input", keys="^{END}", control_focus=False), act("wait", seconds=0.3),
      act("keyboard_input", keys="{ENTER}done", control_focus=False), act("wait", seconds=1),
      act("keyboard_input", keys="^s", control_focus=False), act("wait", seconds=1),
      act("click_input", name="Use Text Format", control_type="Button"), act("wait", seconds=1)])

# Several applications.
for editor, shown in EDITORS[:2]:
    task(f"calculator-to-{editor}",
         f"Compute 6 × 7 with the calculator and write the result into result.txt, which is open in {shown}; save it.",
         ["gnome-calculator", editor],
         [{"type": "execute", "parameters": {"command": ["touch", "~/result.txt"]}},
          launch("gnome-calculator"), launch(editor, "~/result.txt")],
         {"func": ["exact_match"], "result": [{"type": "vm_command_line", "command": ["cat", "~/result.txt"]}],
          "expected": [{"type": "rule", "rules": {"expected": "42"}}]} if editor == "mousepad" else
         {"func": "check_include_exclude",
          "result": {"type": "vm_command_line", "command": ["cat", "~/result.txt"]},
          "expected": {"type": "rule", "rules": {"include": ["42"], "exclude": ["43", "41", "6", "7"]}}},
         [host("gnome-calculator")] + [act("click_input", name=k, control_type="Button") for k in ["6", "×", "7", "="]]
         + [host(editor), set_text("42")] + SAVE)
task("mousepad-to-gedit",
     "hello.txt is open in Mousepad and an empty file copy.txt in gedit. Copy the text of hello.txt into copy.txt and save it.",
     ["gedit", "mousepad"],
     [download("hello.txt", "~/hello.txt"), {"type": "execute", "parameters": {"command": ["touch", "~/copy.txt"]}},
      launch("mousepad", "~/hello.txt"), launch("gedit", "~/copy.txt")],
     same_file("~/copy.txt", "hello.txt"),
     [host("gedit"), set_text("hello world")] + SAVE)

# Infeasible: the agent should say so (FAIL).
task("infeasible-photoshop", "Open notes.txt in Adobe Photoshop and apply a Gaussian blur to it.",
     ["mousepad"], [download("notes.txt", "~/notes.txt"), launch("mousepad", "~/notes.txt")], {"func": "infeasible"})
task("infeasible-calculator-graph", "Draw a 3D plot of sin(x) in the calculator.",
     ["gnome-calculator"], [launch("gnome-calculator")], {"func": "infeasible"})
task("infeasible-gedit-spreadsheet", "Insert a pivot table into notes.txt in gedit.",
     ["gedit"], [download("notes.txt", "~/notes.txt"), launch("gedit", "~/notes.txt")], {"func": "infeasible"})
task("infeasible-widget-factory-email", "Send the GTK widget factory's settings by e-mail to the administrator.",
     ["gtk3-widget-factory"], [launch("gtk3-widget-factory")], {"func": "infeasible"})

shutil.rmtree(ROOT, ignore_errors=True)
for sub in ["plans", "fixtures"]:
    os.makedirs(os.path.join(ROOT, sub))
for id, t in tasks.items():
    with open(os.path.join(ROOT, id + ".json"), "w") as f:
        json.dump(t, f, indent=2, ensure_ascii=False)
        f.write("\n")
for id, p in plans.items():
    with open(os.path.join(ROOT, "plans", id + ".json"), "w") as f:
        json.dump(p, f, indent=2, ensure_ascii=False)
        f.write("\n")
for name, text in fixtures.items():
    os.makedirs(os.path.dirname(os.path.join(ROOT, "fixtures", name)), exist_ok=True)
    with open(os.path.join(ROOT, "fixtures", name), "w") as f:
        f.write(text)
print(f"{len(tasks)} tasks ({len(plans)} with plans), {len(fixtures)} fixtures in {os.path.normpath(ROOT)}")
