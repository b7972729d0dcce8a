//! Impress checks (`slides.py`): LibreOffice settings files, accessibility
//! trees, decks written by python-pptx (backgrounds, slide sizes) and
//! packages written here (transitions, master colours).

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

fn write(dir: &Path, name: &str, text: &str) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    Got::File(p)
}

/// Each input alone, with each of `rules` (none: no `expected`).
fn singles(inputs: &[(&str, Got)], rules: &[Value]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, g) in inputs {
        if rules.is_empty() {
            cases.push(Case {
                name: (*name).to_owned(),
                result: g.clone(),
                expected: None,
                options: json!({}),
                known: None,
            });
        }
        for r in rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                g.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    cases
}

/// A `registrymodifications.xcu` of `items`.
fn xcu(items: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{items}</oor:items>"#
    )
}

fn item(path: &str, prop: &str, value: &str) -> String {
    format!(
        r#"<item oor:path="{path}"><prop oor:name="{prop}" oor:op="fuse">{value}</prop></item>"#
    )
}

#[test]
fn check_presenter_console_disable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let start = "/org.openoffice.Office.Impress/Misc/Start";
    let files = [
        (
            "false",
            write(
                d,
                "a.xcu",
                &xcu(&item(
                    start,
                    "EnablePresenterScreen",
                    "<value>false</value>",
                )),
            ),
        ),
        (
            "FALSE",
            write(
                d,
                "b.xcu",
                &xcu(&item(
                    start,
                    "EnablePresenterScreen",
                    "<value>FALSE</value>",
                )),
            ),
        ),
        (
            "true",
            write(
                d,
                "c.xcu",
                &xcu(&item(start, "EnablePresenterScreen", "<value>true</value>")),
            ),
        ),
        (
            "no value",
            write(d, "d.xcu", &xcu(&item(start, "EnablePresenterScreen", ""))),
        ),
        (
            "empty value",
            write(
                d,
                "e.xcu",
                &xcu(&item(start, "EnablePresenterScreen", "<value/>")),
            ),
        ),
        (
            "true, then false",
            write(
                d,
                "f.xcu",
                &xcu(&[
                    item(start, "EnablePresenterScreen", "<value>true</value>"),
                    item(start, "EnablePresenterScreen", "<value>false</value>"),
                ]
                .concat()),
            ),
        ),
        (
            "other prop",
            write(
                d,
                "g.xcu",
                &xcu(&item(start, "Other", "<value>false</value>")),
            ),
        ),
        (
            "other path",
            write(
                d,
                "h.xcu",
                &xcu(&item(
                    "/org.openoffice.Office.Impress/Misc",
                    "EnablePresenterScreen",
                    "<value>false</value>",
                )),
            ),
        ),
        ("empty settings", write(d, "i.xcu", &xcu(""))),
        ("not XML", write(d, "j.xcu", "<oor:items")),
        ("missing", Got::File(d.join("absent.xcu"))),
    ];
    compare(
        "slides",
        "check_presenter_console_disable",
        &singles(&files, &[]),
    );
}

#[test]
fn check_auto_saving_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let save = "/org.openoffice.Office.Common/Save/Document";
    let files = [
        (
            "3 minutes",
            write(
                d,
                "a.xcu",
                &xcu(&item(save, "AutoSaveTimeIntervall", "<value>3</value>")),
            ),
        ),
        (
            "10 minutes",
            write(
                d,
                "b.xcu",
                &xcu(&item(save, "AutoSaveTimeIntervall", "<value>10</value>")),
            ),
        ),
        (
            "spaced",
            write(
                d,
                "c.xcu",
                &xcu(&item(save, "AutoSaveTimeIntervall", "<value> 3 </value>")),
            ),
        ),
        (
            "not a number",
            write(
                d,
                "d.xcu",
                &xcu(&item(save, "AutoSaveTimeIntervall", "<value>three</value>")),
            ),
        ),
        (
            "no value",
            write(d, "e.xcu", &xcu(&item(save, "AutoSaveTimeIntervall", ""))),
        ),
        (
            "empty value",
            write(
                d,
                "f.xcu",
                &xcu(&item(save, "AutoSaveTimeIntervall", "<value/>")),
            ),
        ),
        (
            "10 then 3",
            write(
                d,
                "g.xcu",
                &xcu(&[
                    item(save, "AutoSaveTimeIntervall", "<value>10</value>"),
                    item(save, "AutoSaveTimeIntervall", "<value>3</value>"),
                ]
                .concat()),
            ),
        ),
        (
            "other prop",
            write(
                d,
                "h.xcu",
                &xcu(&item(save, "AutoSave", "<value>3</value>")),
            ),
        ),
        ("empty settings", write(d, "i.xcu", &xcu(""))),
        ("not XML", write(d, "j.xcu", "<oor:items")),
        ("missing", Got::File(d.join("absent.xcu"))),
    ];
    let rules = [
        json!({"minutes": 3}),
        json!({"minutes": 3.0}),
        json!({"minutes": "3"}),
        json!({}),
    ];
    compare("slides", "check_auto_saving_time", &singles(&files, &rules));
}

#[test]
fn check_left_panel() {
    let trees = [
        (
            "slides view",
            r#"<desktop-frame><application name="soffice"><frame><panel><document-frame name="Slides View"/></panel></frame></application></desktop-frame>"#,
        ),
        (
            "other view",
            r#"<desktop-frame><document-frame name="Outline View"/></desktop-frame>"#,
        ),
        (
            "root is the view",
            r#"<document-frame name="Slides View"/>"#,
        ),
        (
            "another role",
            r#"<desktop-frame><panel name="Slides View"/></desktop-frame>"#,
        ),
        (
            "namespaced",
            r#"<desktop-frame xmlns="urn:x"><document-frame name="Slides View"/></desktop-frame>"#,
        ),
        ("empty", "<desktop-frame/>"),
        ("not XML", "<desktop-frame"),
    ];
    let inputs: Vec<(&str, Got)> = trees
        .iter()
        .map(|(n, t)| (*n, Got::Text((*t).to_owned())))
        .collect();
    compare("slides", "check_left_panel", &singles(&inputs, &[]));
}

/// A zip of `parts` (name, content).
fn package(dir: &Path, name: &str, parts: &[(&str, String)]) -> Got {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (n, c) in parts {
        zip.start_file(*n, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(c.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    Got::File(path)
}

const PNS: &str = r#"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main""#;

fn slide(transition: &str) -> String {
    format!(r#"<p:sld {PNS}><p:cSld><p:spTree/></p:cSld>{transition}</p:sld>"#)
}

#[test]
fn check_transition() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fade = r#"<p:transition spd="med"><p:fade/></p:transition>"#;
    let alt = r#"<mc:AlternateContent><mc:Choice Requires="p14"><p:transition spd="slow" p14:dur="2000"><p:dissolve/></p:transition></mc:Choice><mc:Fallback><p:transition spd="slow"><p:fade/></p:transition></mc:Fallback></mc:AlternateContent>"#;
    let decks = [
        (
            "fade on slide 1",
            package(d, "a.pptx", &[("ppt/slides/slide1.xml", slide(fade))]),
        ),
        (
            "dissolve in alternate content",
            package(d, "b.pptx", &[("ppt/slides/slide1.xml", slide(alt))]),
        ),
        (
            "no transition",
            package(d, "c.pptx", &[("ppt/slides/slide1.xml", slide(""))]),
        ),
        (
            "fade on slide 2",
            package(
                d,
                "e.pptx",
                &[
                    ("ppt/slides/slide1.xml", slide("")),
                    ("ppt/slides/slide2.xml", slide(fade)),
                ],
            ),
        ),
        (
            "slide not XML",
            package(d, "f.pptx", &[("ppt/slides/slide1.xml", "<p:sld".into())]),
        ),
        ("not a zip", write(d, "g.pptx", "x")),
        ("missing", Got::File(d.join("absent.pptx"))),
    ];
    let rules = [
        json!({"slide_idx": 0, "transition_type": "fade"}),
        json!({"slide_idx": 0, "transition_type": "dissolve"}),
        json!({"slide_idx": 1, "transition_type": "fade"}),
        json!({"slide_idx": 5, "transition_type": "fade"}),
        json!({"slide_idx": 0.0, "transition_type": "fade"}),
        json!({"slide_idx": 0, "transition_type": "push"}),
        json!({"slide_idx": 0}),
        json!({"transition_type": "fade"}),
    ];
    compare("slides", "check_transition", &singles(&decks, &rules));
}

#[test]
fn check_page_number_colors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let master = |colours: &[&str]| {
        let fills: String = colours
            .iter()
            .map(|c| format!(r#"<p:sp><p:spPr><a:solidFill><a:srgbClr val="{c}"/></a:solidFill></p:spPr></p:sp>"#))
            .collect();
        format!(
            r#"<p:sldMaster {PNS}><p:cSld><p:spTree>{fills}<a:solidFill><a:schemeClr val="tx1"/></a:solidFill></p:spTree></p:cSld></p:sldMaster>"#
        )
    };
    let deck = |name: &str, colours: &[&str]| {
        package(
            d,
            name,
            &[("ppt/slideMasters/slideMaster1.xml", master(colours))],
        )
    };
    let decks = [
        (
            "red numbers",
            deck("a.pptx", &["000000", "FF0000", "FFFFFF"]),
        ),
        (
            "dark red numbers",
            deck("b.pptx", &["000000", "C00000", "FFFFFF"]),
        ),
        ("0F0000", deck("c.pptx", &["000000", "0F0000", "FFFFFF"])),
        (
            "blue numbers",
            deck("d.pptx", &["000000", "0000FF", "FFFFFF"]),
        ),
        (
            "green numbers",
            deck("e.pptx", &["000000", "00FF00", "FFFFFF"]),
        ),
        (
            "black numbers",
            deck("f.pptx", &["FFFFFF", "000000", "FFFFFF"]),
        ),
        ("short value", deck("g.pptx", &["000000", "F00", "FFFFFF"])),
        ("one colour", deck("h.pptx", &["FF0000"])),
        (
            "no val",
            package(
                d,
                "i.pptx",
                &[(
                    "ppt/slideMasters/slideMaster1.xml",
                    master(&["000000", "FF0000", "FFFFFF"]).replace(r#"val="FF0000""#, ""),
                )],
            ),
        ),
        (
            "no master",
            package(d, "j.pptx", &[("ppt/slides/slide1.xml", slide(""))]),
        ),
        ("not a zip", write(d, "k.pptx", "x")),
    ];
    let rules = [
        json!({"color": "red"}),
        json!({"color": "blue"}),
        json!({"color": "green"}),
        json!({"color": "black"}),
        json!({"color": "purple"}),
        json!({}),
    ];
    compare(
        "slides",
        "check_page_number_colors",
        &singles(&decks, &rules),
    );
}

/// Decks written by python-pptx (default template): backgrounds and sizes.
fn decks(d: &Path) -> Vec<(&'static str, Got)> {
    let script = r#"
import sys, os
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.util import Emu
out = sys.argv[1]
def deck(name, backgrounds, master=None, size=None, slides=None):
    prs = Presentation()
    if size:
        prs.slide_width, prs.slide_height = Emu(size[0]), Emu(size[1])
    if master is not None:
        f = prs.slide_master.background.fill
        f.solid(); f.fore_color.rgb = RGBColor(*master)
    for bg in backgrounds:
        s = prs.slides.add_slide(prs.slide_layouts[6])
        f = s.background.fill
        if bg is None:
            continue
        if bg == "nofill":
            f.background()
        elif bg == "gradient":
            f.gradient()
        elif bg == "scheme":
            f.solid(); f.fore_color.theme_color = MSO_THEME_COLOR.ACCENT_1
        else:
            f.solid(); f.fore_color.rgb = RGBColor(*bg)
    prs.save(os.path.join(out, name + ".pptx"))
deck("red", [(255, 0, 0)])
deck("near red", [(250, 10, 5)])
deck("red and blue", [(255, 0, 0), (0, 0, 255)])
deck("red and unset", [(255, 0, 0), None])
deck("unset on a green master", [None, "nofill"], master=(0, 200, 0))
deck("gradient", ["gradient"])
deck("scheme colour", ["scheme"])
deck("white", [(255, 255, 255)])
deck("no slides", [])
deck("portrait", [(255, 0, 0)], size=(6858000, 9144000))
deck("square", [(255, 0, 0)], size=(6858000, 6858000))
"#;
    ufo_testkit::deps::run(
        std::process::Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(d),
        "writing decks with python-pptx",
    );
    let names = [
        "red",
        "near red",
        "red and blue",
        "red and unset",
        "unset on a green master",
        "gradient",
        "scheme colour",
        "white",
        "no slides",
        "portrait",
        "square",
    ];
    let mut out: Vec<(&str, Got)> = names
        .iter()
        .map(|n| (*n, Got::File(d.join(format!("{n}.pptx")))))
        .collect();
    out.push(("not a zip", write(d, "x.pptx", "x")));
    out.push(("missing", Got::File(d.join("absent.pptx"))));
    out
}

#[test]
fn check_slide_orientation_portrait() {
    let dir = tempfile::tempdir().unwrap();
    let cases = singles(&decks(dir.path()), &[]);
    compare("slides", "check_slide_orientation_Portrait", &cases);
}

#[test]
fn evaluate_presentation_fill_to_rgb_distance() {
    let dir = tempfile::tempdir().unwrap();
    let rules = [
        json!({"rgb": [255, 0, 0]}),
        json!({"rgb": [0, 200, 0]}),
        json!({"rgb": [255, 0, 0], "original_rgb": [255, 255, 255]}),
        json!({"rgb": [0, 0, 0], "original_rgb": [255, 0, 0]}),
        json!({"rgb": [255, 0, 0], "original_rgb": null}),
        json!({"rgb": [255, 0]}),
        json!({"rgb": "red"}),
        json!({}),
    ];
    let cases = singles(&decks(dir.path()), &rules);
    compare(
        "slides",
        "evaluate_presentation_fill_to_rgb_distance",
        &cases,
    );
}
