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
