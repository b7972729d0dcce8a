//! The conversion of what Windows layers read into backend-neutral nodes,
//! on element data in the shape the captures record (runs on every OS).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde::Deserialize;
use ufo_core::{ControlType, ElementHandle, Rect, States, UiTree, WindowInfo};
use ufo_desktop::filter::{FilterConfig, label_controls};
use ufo_desktop_windows::handle::WinHandle;
use ufo_desktop_windows::record::ElementRecord;

#[derive(Deserialize)]
struct Fixture {
    elements: Vec<Element>,
}

#[derive(Deserialize)]
struct Element {
    parent: Option<usize>,
    record: ElementRecord,
}

/// Builds the tree a capture would from recorded elements (parents first).
fn tree(json: &str) -> UiTree {
    let f: Fixture = serde_json::from_str(json).unwrap();
    let mut nodes = Vec::new();
    let depth = |nodes: &Vec<ufo_core::UiNode>, p: Option<usize>| {
        p.map_or(0, |p: usize| nodes[p].depth + 1)
    };
    for (i, e) in f.elements.iter().enumerate() {
        let h = WinHandle::Uia {
            hwnd: 0x10,
            runtime_id: vec![42, i as i32],
        }
        .encode();
        let d = depth(&nodes, e.parent);
        nodes.push(e.record.to_node(h, i, e.parent, d, 200));
        if let Some(p) = e.parent {
            nodes[p].children.push(i);
        }
    }
    UiTree {
        window: WindowInfo {
            id: "0x10".into(),
            app_name: "notepad".into(),
            pid: Some(4),
            title: "Untitled - Notepad".into(),
            rect: Some(Rect::new(100, 100, 800, 600)),
            focused: true,
            handle: ElementHandle("w32:10".into()),
            native_id: Some(0x10),
            dialog: false,
            modal: false,
            owner: None,
        },
        nodes,
        truncated: false,
        truncation: None,
    }
}

#[test]
fn uia_elements_become_the_controls_ufo_shows() {
    let t = tree(include_str!("data/uia_notepad.json"));
    let n = |name: &str| t.nodes.iter().find(|n| n.name == name).unwrap();

    let editor = n("Text Editor");
    assert_eq!(editor.control_type, ControlType::Edit);
    assert_eq!(editor.value.as_deref(), Some("hello"));
    assert!(editor.capabilities.editable_text && editor.capabilities.text);
    assert!(editor.states.contains(States::FOCUSED) && editor.states.contains(States::EDITABLE));
    assert!(
        editor.actions.is_empty(),
        "a text field is clicked, not invoked"
    );

    let file = t
        .nodes
        .iter()
        .find(|n| n.name == "File" && n.control_type == ControlType::MenuItem)
        .unwrap();
    assert_eq!(file.actions, ["expand", "collapse"]);
    assert!(file.states.contains(States::EXPANDED));
    let edit_menu = t.nodes.iter().find(|n| n.name == "Edit").unwrap();
    assert!(
        edit_menu.states.contains(States::EXPANDABLE)
            && !edit_menu.states.contains(States::EXPANDED)
    );

    let close = n("Close");
    assert_eq!(
        (close.control_type.clone(), close.actions.as_slice()),
        (ControlType::Button, &["click".to_owned()][..])
    );
    let wrap = n("Word Wrap");
    assert_eq!(wrap.role, "check menu item");
    assert!(wrap.states.contains(States::CHECKED));
    assert_eq!(wrap.actions, ["toggle"]);

    let encoding = n("Encoding");
    assert_eq!(encoding.control_type, ControlType::ComboBox);
    assert!(encoding.capabilities.selection && !encoding.capabilities.editable_text);

    let pw = n("Password");
    assert_eq!(pw.role, "password text");
    assert_eq!(pw.value, None, "a password's value is never carried");

    let zoom = n("Zoom");
    assert_eq!(zoom.control_type, ControlType::Slider);
    assert!(zoom.capabilities.value);
    assert_eq!(zoom.value.as_deref(), Some("100"));

    assert_eq!(n("Status Bar").control_type, ControlType::StatusBar);
    assert_eq!(n("Untitled - Notepad").control_type, ControlType::Window);
}

#[test]
fn the_filter_shows_what_is_on_screen_with_its_state() {
    let t = tree(include_str!("data/uia_notepad.json"));
    let controls = label_controls(&t, &FilterConfig::default(), None);
    let names: Vec<&str> = controls.iter().map(|c| c.name.as_str()).collect();
    for want in [
        "Text Editor",
        "File",
        "Edit",
        "Close",
        "Save As...",
        "Word Wrap",
        "Encoding",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(
        !names.contains(&"Match case"),
        "an offscreen control is not shown"
    );
    let wrap = controls.iter().find(|c| c.name == "Word Wrap").unwrap();
    assert_eq!(wrap.to_prompt().state.as_deref(), Some("checked"));
    let file = controls.iter().find(|c| c.name == "File").unwrap();
    assert_eq!(file.to_prompt().state.as_deref(), Some("expanded"));
}
