//! `compare_pptx_files` (`slides.py`): decks written by python-pptx from a
//! base deck, each variant changing one property (`make_pptx.py`), scored
//! against the base under OSWorld's option sets, and against each other.

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

#[test]
fn compare_pptx_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity/make_pptx.py");
    ufo_testkit::deps::run(
        std::process::Command::new(python()).arg(&script).arg(d),
        "make_pptx.py",
    );
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
    let decks: Vec<(String, Got)> = manifest
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_owned(),
                Got::File(d.join(m["file"].as_str().unwrap())),
            )
        })
        .collect();
    let options = [
        json!({}),
        json!({"examine_shape": false}),
        json!({"examine_shape": false, "examine_title_bottom_position": true}),
        json!({"examine_shape": false, "examine_right_position": true}),
        json!({"examine_shape": false, "examine_image_size": true}),
        json!({"examine_shape": false, "examine_table_bottom_position": true}),
        json!({"examine_shape": false, "examine_modify_height": true}),
        json!({"examine_shape": false, "examine_top_position": true}),
        json!({"examine_shape": false, "examine_shape_for_shift_size": true}),
        json!({"examine_bullets": false, "examine_shape": false}),
        json!({"examine_aligment": false}),
        json!({"examine_alignment": false, "examine_text": false, "examine_note": false,
               "examine_background_color": false, "examine_number_of_slides": false,
               "examine_font_bold": false, "examine_font_italic": false,
               "examine_color_rgb": false, "examine_font_underline": false,
               "examine_strike_through": false, "examine_indent": false,
               "examine_font_name": false, "examine_font_size": false}),
        json!({"approximately_tolerance": 0.1}),
    ];
    let (_, gold) = &decks[0];
    let mut cases = Vec::new();
    for (name, deck) in &decks {
        for o in &options {
            cases
                .push(Case::new(format!("{name} {o}"), deck.clone(), gold.clone()).with(o.clone()));
        }
        cases.push(Case::new(
            format!("base vs {name}"),
            gold.clone(),
            deck.clone(),
        ));
    }
    let broken = d.join("broken.pptx");
    std::fs::write(&broken, "not a zip").unwrap();
    cases.push(Case::new("not a zip", Got::File(broken), gold.clone()));
    compare("slides", "compare_pptx_files", &cases);
}

/// Decks for `check_image_stretch_and_center`, written by python-pptx:
/// an original with a picture, and modified decks moving and sizing it.
fn stretch_decks(d: &std::path::Path) -> Vec<(&'static str, Got)> {
    let script = r#"
import os, sys
from PIL import Image
from pptx import Presentation
from pptx.util import Emu, Inches
out = sys.argv[1]
red = os.path.join(out, "red.png"); Image.new("RGB", (40, 30), (200, 30, 30)).save(red)
blue = os.path.join(out, "blue.png"); Image.new("RGB", (40, 30), (30, 30, 200)).save(blue)
W, H = 9144000, 6858000
def deck(name, pics, size=(W, H), slides=1, placeholder=False):
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(size[0]), Emu(size[1])
    for i in range(slides):
        s = prs.slides.add_slide(prs.slide_layouts[8 if placeholder else 6])
        if i:
            continue
        if placeholder:
            s.placeholders[1].insert_picture(red)
        for img, box in pics:
            s.shapes.add_picture(img, Emu(box[0]), Emu(box[1]), Emu(box[2]), Emu(box[3]))
    prs.save(os.path.join(out, name + ".pptx"))
half = Inches(0.5)
deck("original", [(red, (100000, 200000, 3000000, 2000000))])
deck("stretched", [(red, (0, 0, W, H))])
deck("nearly stretched", [(red, (half - 10, half - 10, W - 2 * half + 20, H - 2 * half + 20))])
deck("too narrow", [(red, (half + 10, 0, W - 2 * half - 20, H))])
deck("off centre", [(red, (half + 10, 0, W, H))])
deck("too low", [(red, (0, half + 10, W, H))])
deck("other image", [(blue, (0, 0, W, H))])
deck("two, last stretched", [(red, (0, 0, 100, 100)), (blue, (0, 0, W, H)), (red, (0, 0, W, H))])
deck("two, first stretched", [(red, (0, 0, W, H)), (red, (5, 5, 100, 100))])
deck("wide slide, stretched to it", [(red, (0, 0, 12192000, H))], size=(12192000, H))
deck("no picture", [])
deck("placeholder picture", [], placeholder=True)
deck("no slides", [], slides=0)
"#;
    ufo_testkit::deps::run(
        std::process::Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(d),
        "writing decks with python-pptx",
    );
    let names = [
        "original",
        "stretched",
        "nearly stretched",
        "too narrow",
        "off centre",
        "too low",
        "other image",
        "two, last stretched",
        "two, first stretched",
        "wide slide, stretched to it",
        "no picture",
        "placeholder picture",
        "no slides",
    ];
    let mut out: Vec<(&str, Got)> = names
        .iter()
        .map(|n| (*n, Got::File(d.join(format!("{n}.pptx")))))
        .collect();
    let broken = d.join("broken.pptx");
    std::fs::write(&broken, "not a zip").unwrap();
    out.push(("not a zip", Got::File(broken)));
    out
}

#[test]
fn check_image_stretch_and_center() {
    let dir = tempfile::tempdir().unwrap();
    let decks = stretch_decks(dir.path());
    let mut cases = Vec::new();
    for (name, deck) in &decks {
        for (oname, original) in &decks[..] {
            if matches!(
                *oname,
                "original" | "stretched" | "no picture" | "placeholder picture" | "no slides"
            ) || *name == "original"
            {
                cases.push(Case::new(
                    format!("{name} from {oname}"),
                    deck.clone(),
                    original.clone(),
                ));
            }
        }
    }
    compare("slides", "check_image_stretch_and_center", &cases);
}
