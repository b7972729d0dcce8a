//! Tests of the parent module.
use super::*;
use ufo_core::ui::Capabilities;
use ufo_core::{ElementHandle, WindowInfo};

/// One node of a hand-built tree: (parent, type, name, states, rect).
type Spec<'a> = (
    Option<usize>,
    &'a str,
    &'a str,
    &'a str,
    Option<(i32, i32, i32, i32)>,
);

fn tree(window_rect: Option<(i32, i32, i32, i32)>, specs: &[Spec<'_>]) -> UiTree {
    let mut nodes: Vec<UiNode> = specs
        .iter()
        .enumerate()
        .map(|(i, (parent, ty, name, states, rect))| UiNode {
            index: i,
            parent: *parent,
            children: vec![],
            depth: 0,
            handle: ElementHandle(format!(":1.0|/n{i}")),
            role: ty.to_lowercase(),
            control_type: ty.parse().unwrap(),
            name: (*name).into(),
            description: String::new(),
            value: None,
            states: ufo_core::States::from_names(states.split_whitespace()),
            rect: rect.map(|(x, y, w, h)| Rect::new(x, y, w, h)),
            actions: vec![],
            capabilities: Capabilities::default(),
        })
        .collect();
    for i in 0..nodes.len() {
        if let Some(p) = nodes[i].parent {
            nodes[p].children.push(i);
            nodes[i].depth = nodes[p].depth + 1;
        }
    }
    UiTree {
        window: WindowInfo {
            id: "w1".into(),
            app_name: "app".into(),
            pid: None,
            title: "Win".into(),
            rect: window_rect.map(|(x, y, w, h)| Rect::new(x, y, w, h)),
            focused: true,
            handle: ElementHandle(":1.0|/n0".into()),
            native_id: None,
            dialog: false,
            modal: false,
            owner: None,
        },
        nodes,
        truncated: false,
        truncation: None,
    }
}

fn labels(t: &UiTree, cfg: &FilterConfig) -> Vec<String> {
    label_controls(t, cfg, None)
        .iter()
        .map(|c| format!("{}:{}:{}", c.id, c.control_type, c.name))
        .collect()
}

/// The names of the controls `t` lists with the default configuration.
fn listed_names(t: &UiTree) -> Vec<String> {
    label_controls(t, &FilterConfig::default(), None)
        .into_iter()
        .map(|c| c.name)
        .collect()
}

const GTK3: &str = "enabled sensitive showing visible";
const GTK4: &str = "sensitive visible focusable";

#[test]
fn real_app_noise_is_folded() {
    let w = Some((0, 0, 400, 300));
    let frame = (None, "Window", "Win", GTK3, Some((0, 0, 400, 300)));
    let mut t = tree(
        w,
        &[
            frame,
            // LibreOffice's two menu bars: the second one has the action.
            (Some(0), "MenuItem", "File", GTK3, Some((0, 0, 35, 19))),
            (Some(0), "MenuItem", "File", GTK3, Some((0, 0, 39, 25))),
            // A notebook page that is not showing, with a showing editor.
            (
                Some(0),
                "Pane",
                "page 2",
                "enabled sensitive visible",
                Some((0, 30, 400, 100)),
            ),
            (
                Some(3),
                "Edit",
                "hidden editor",
                GTK3,
                Some((0, 30, 400, 100)),
            ),
            // Buttons say "0" through their Value interface; sliders mean it.
            (Some(0), "Button", "Bold", GTK3, Some((0, 140, 20, 20))),
            (Some(0), "Slider", "Zoom", GTK3, Some((30, 140, 90, 20))),
            // A list row named after its label.
            (Some(0), "ListItem", "Home", GTK3, Some((0, 170, 100, 20))),
            (Some(7), "Text", "Home", GTK3, Some((20, 172, 60, 16))),
            // An unnamed empty table cell.
            (Some(0), "DataItem", "", GTK3, Some((0, 200, 50, 20))),
        ],
    );
    t.nodes[2].actions = vec!["Click".into()];
    t.nodes[5].value = Some("0".into());
    t.nodes[6].value = Some("0".into());
    let got = label_controls(&t, &FilterConfig::default(), None);
    let names: Vec<String> = got
        .iter()
        .map(|c| {
            format!(
                "{}:{}:{}",
                c.control_type,
                c.name,
                c.value.clone().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            "MenuItem:File:",
            "Button:Bold:",
            "Slider:Zoom:0",
            "ListItem:Home:"
        ]
    );
    assert_eq!(
        got[0].actions,
        vec!["Click".to_owned()],
        "the twin with the action is kept"
    );
}

/// A window holding a column of cells named `names`, each showing `shows`
/// of its name.
fn column_of_cells(names: &[String], shows: impl Fn(&str) -> String) -> UiTree {
    let w = Some((0, 0, 2000, 2000));
    let mut specs: Vec<Spec<'_>> = vec![(None, "Window", "Sheet", GTK3, w)];
    for (r, n) in names.iter().enumerate() {
        let y = i32::try_from(r).unwrap() * 20;
        specs.push((Some(0), "DataItem", n.as_str(), GTK3, Some((0, y, 80, 20))));
    }
    let mut t = tree(w, &specs);
    for n in t.nodes.iter_mut().skip(1) {
        n.value = Some(shows(&n.name));
    }
    t
}

#[test]
fn many_empty_cells_are_left_out_but_filled_and_current_ones_stay() {
    let names: Vec<String> = (1..=80).map(|r| format!("A{r}")).collect();
    // A spreadsheet's cells show a blank text when empty.
    let mut t = column_of_cells(&names, |_| String::new());
    t.nodes[1].value = Some("5".into());
    t.nodes[3].states |= ufo_core::States::FOCUSED;
    let got: Vec<String> = label_controls(&t, &FilterConfig::default(), None)
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(got, vec!["A1", "A3"]);
    // A small table keeps its empty cells.
    let small = column_of_cells(&names[..10], |_| String::new());
    assert_eq!(
        label_controls(&small, &FilterConfig::default(), None).len(),
        10
    );
}

#[test]
fn a_cell_showing_its_name_as_text_is_not_empty() {
    // A GTK list's text cells are named by the text they show: 80 of them
    // are 80 rows with content, none empty.
    let names: Vec<String> = (1..=80).map(|r| format!("file{r}.txt")).collect();
    let t = column_of_cells(&names, str::to_owned);
    assert_eq!(label_controls(&t, &FilterConfig::default(), None).len(), 80);
}

#[test]
#[allow(clippy::too_many_lines)]
fn data_driven_filtering() {
    let w = Some((0, 0, 400, 300));
    let frame = (
        None,
        "Window",
        "Win",
        "showing visible sensitive",
        Some((0, 0, 400, 300)),
    );
    let cases: Vec<(&str, UiTree, FilterConfig, Vec<&str>)> = vec![
        (
            "gtk3 keeps showing+enabled interactive types only",
            tree(
                w,
                &[
                    frame,
                    (Some(0), "Pane", "panel", GTK3, Some((0, 0, 400, 300))),
                    (Some(1), "Button", "OK", GTK3, Some((10, 10, 50, 20))),
                    (
                        Some(1),
                        "Button",
                        "Hidden",
                        "enabled sensitive visible",
                        Some((70, 10, 50, 20)),
                    ),
                    (
                        Some(1),
                        "Button",
                        "Disabled",
                        "showing visible",
                        Some((130, 10, 50, 20)),
                    ),
                    (Some(1), "Edit", "", GTK3, Some((10, 40, 200, 20))),
                    (Some(1), "Text", "", GTK3, Some((10, 70, 200, 20))),
                    (Some(1), "Group", "", GTK3, Some((10, 100, 200, 20))),
                    (Some(1), "Button", "NoRect", GTK3, None),
                    (
                        Some(1),
                        "Button",
                        "Offscreen",
                        GTK3,
                        Some((500, 10, 50, 20)),
                    ),
                    (Some(1), "Button", "Zero", GTK3, Some((10, 130, 0, 20))),
                ],
            ),
            FilterConfig::default(),
            vec!["1:Button:OK", "2:Edit:"],
        ),
        (
            "gtk4 lacks showing below the root: visible is enough, names undoubled, label deduped",
            tree(
                w,
                &[
                    frame,
                    (Some(0), "Button", "7 7", GTK4, Some((16, 288, 55, 40))),
                    (
                        Some(1),
                        "Text",
                        "7",
                        "sensitive visible",
                        Some((16, 288, 55, 40)),
                    ),
                    (Some(0), "Button", "8 8", GTK4, Some((76, 288, 55, 40))),
                    (
                        Some(3),
                        "Text",
                        "8",
                        "sensitive visible",
                        Some((76, 288, 55, 40)),
                    ),
                    (
                        Some(0),
                        "Text",
                        "Result",
                        "sensitive visible",
                        Some((0, 100, 300, 30)),
                    ),
                    (
                        Some(0),
                        "Button",
                        "gone",
                        "sensitive",
                        Some((136, 288, 55, 40)),
                    ),
                ],
            ),
            FilterConfig::default(),
            vec!["1:Text:Result", "2:Button:7", "3:Button:8"],
        ),
        (
            "showing reported somewhere below the root: visible alone is not enough",
            tree(
                w,
                &[
                    frame,
                    (Some(0), "Button", "A", GTK3, Some((10, 10, 50, 20))),
                    (
                        Some(0),
                        "Button",
                        "B",
                        "enabled visible",
                        Some((70, 10, 50, 20)),
                    ),
                ],
            ),
            FilterConfig::default(),
            vec!["1:Button:A"],
        ),
        (
            "reading order: rows within tolerance, then x",
            tree(
                w,
                &[
                    frame,
                    (Some(0), "Button", "R2a", GTK3, Some((200, 60, 40, 20))),
                    (Some(0), "Button", "R1b", GTK3, Some((100, 14, 40, 20))),
                    (Some(0), "Button", "R1a", GTK3, Some((10, 10, 40, 20))),
                    (Some(0), "Button", "R2b", GTK3, Some((10, 66, 40, 20))),
                    (Some(0), "Edit", "Tall", GTK3, Some((300, 0, 50, 44))),
                ],
            ),
            FilterConfig::default(),
            vec![
                "1:Button:R1a",
                "2:Button:R1b",
                "3:Edit:Tall",
                "4:Button:R2b",
                "5:Button:R2a",
            ],
        ),
        (
            "custom control list, unnamed excluded, not deduped when names differ",
            tree(
                w,
                &[
                    frame,
                    (Some(0), "Button", "Open", GTK3, Some((10, 10, 50, 20))),
                    (Some(1), "Text", "Open file", GTK3, Some((10, 10, 50, 20))),
                    (Some(0), "MenuItem", "", GTK3, Some((10, 40, 50, 20))),
                    (Some(0), "Slider", "Vol", GTK3, Some((10, 70, 50, 20))),
                ],
            ),
            FilterConfig {
                control_types: vec![
                    ControlType::Button,
                    ControlType::Text,
                    ControlType::MenuItem,
                ],
                include_unnamed: false,
                ..FilterConfig::default()
            },
            vec!["1:Button:Open", "2:Text:Open file"],
        ),
        (
            "no enabled/sensitive states anywhere: enabled check skipped; no window rect: root rect used",
            tree(
                None,
                &[
                    (None, "Window", "Win", "showing", Some((0, 0, 100, 100))),
                    (Some(0), "Button", "X", "showing", Some((10, 10, 20, 20))),
                    (Some(0), "Button", "Out", "showing", Some((200, 10, 20, 20))),
                ],
            ),
            FilterConfig::default(),
            vec!["1:Button:X"],
        ),
    ];
    for (what, t, cfg, want) in cases {
        assert_eq!(labels(&t, &cfg), want, "{what}");
    }
}

#[test]
fn clips_to_visible_area_and_caps_count() {
    let t = tree(
        Some((0, 0, 100, 100)),
        &[
            (None, "Window", "Win", "showing", Some((0, 0, 100, 100))),
            (
                Some(0),
                "Document",
                "Doc",
                "showing enabled",
                Some((0, 50, 100, 500)),
            ),
            (
                Some(0),
                "Button",
                "B",
                "showing enabled",
                Some((0, 0, 10, 10)),
            ),
        ],
    );
    let cs = label_controls(&t, &FilterConfig::default(), Some(Rect::new(0, 0, 100, 80)));
    assert_eq!(cs[1].name, "Doc");
    assert_eq!(cs[1].rect, Rect::new(0, 50, 100, 30));
    let capped = label_controls(
        &t,
        &FilterConfig {
            max_controls: 1,
            ..FilterConfig::default()
        },
        None,
    );
    assert_eq!(capped.len(), 1);
    assert_eq!(capped[0].name, "B");
}

#[test]
fn values_and_serialisation() {
    let mut t = tree(
        Some((0, 0, 100, 100)),
        &[
            (None, "Window", "Win", "showing", Some((0, 0, 100, 100))),
            (
                Some(0),
                "Edit",
                "Name",
                "showing enabled",
                Some((0, 0, 50, 10)),
            ),
            (
                Some(0),
                "Text",
                "Same",
                "showing enabled",
                Some((0, 20, 50, 10)),
            ),
        ],
    );
    t.nodes[1].value = Some("abcdef".into());
    t.nodes[2].value = Some("Same".into());
    let cs = label_controls(
        &t,
        &FilterConfig {
            max_value_chars: 3,
            ..FilterConfig::default()
        },
        None,
    );
    assert_eq!(cs[0].value.as_deref(), Some("abc…"));
    assert_eq!(cs[1].value, None);
    assert_eq!(
        prompt_json(&cs).to_string(),
        r#"[{"id":"1","name":"Name","type":"Edit","value":"abc…"},{"id":"2","name":"Same","type":"Text"}]"#
    );
    let full = full_json(&cs);
    assert_eq!(full[0]["handle"], ":1.0|/n1");
    assert_eq!(full[0]["rect"]["width"], 50);
    let back: Vec<Control> = serde_json::from_value(full).unwrap();
    assert_eq!(back, cs);
}

#[test]
fn config_deserialises_with_defaults() {
    let cfg: FilterConfig =
        serde_json::from_str(r#"{"control_types":["Button","Edit"],"min_width":5}"#).unwrap();
    assert_eq!(
        cfg.control_types,
        vec![ControlType::Button, ControlType::Edit]
    );
    assert_eq!(cfg.min_width, 5);
    assert!(cfg.require_showing);
    assert!(
        FilterConfig::default()
            .control_types
            .contains(&ControlType::Slider)
    );
}

#[test]
fn an_open_popup_hides_what_it_covers() {
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Win", s, Some((0, 0, 400, 300))),
            // Under the popup: covered, dropped.
            (Some(0), "Button", "Under", s, Some((110, 110, 40, 20))),
            // Beside it: kept.
            (Some(0), "Button", "Beside", s, Some((10, 10, 40, 20))),
            // Half under it, centre outside: kept.
            (Some(0), "Edit", "Page", s, Some((0, 100, 180, 100))),
            // A GTK popover (modal pane) and its item: kept.
            (
                Some(0),
                "Pane",
                "",
                &format!("{s} modal"),
                Some((100, 100, 150, 120)),
            ),
            (Some(4), "Button", "Item", s, Some((105, 105, 140, 20))),
            // A closed menu (not showing) covers nothing.
            (Some(0), "Menu", "Closed", "visible", Some((0, 0, 400, 300))),
        ],
    );
    let names = listed_names(&t);
    assert_eq!(names, ["Beside", "Item", "Page"]);
}

#[test]
fn a_popup_whose_items_sit_in_a_box_without_a_rectangle_still_hides_what_it_covers() {
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Win", s, Some((0, 0, 400, 300))),
            (Some(0), "Button", "Under", s, Some((110, 110, 40, 20))),
            (Some(0), "Button", "Beside", s, Some((10, 10, 40, 20))),
            // A GTK 3 popover: its items lie in a layout box whose rectangle
            // was not read.
            (
                Some(0),
                "Pane",
                "",
                &format!("{s} modal"),
                Some((100, 100, 150, 120)),
            ),
            (Some(3), "Pane", "", s, None),
            (Some(4), "Button", "Cut", s, Some((105, 105, 140, 20))),
            (Some(4), "Button", "Paste", s, Some((105, 130, 140, 20))),
        ],
    );
    let names = listed_names(&t);
    assert_eq!(names, ["Beside", "Cut", "Paste"]);
}

#[test]
fn an_open_submenu_hides_what_it_covers() {
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Win", s, Some((0, 0, 400, 300))),
            (Some(0), "MenuBar", "", s, Some((0, 0, 400, 20))),
            // GTK hangs the open menu's items under its title in the bar.
            (Some(1), "MenuItem", "File", s, Some((0, 0, 40, 20))),
            (Some(2), "MenuItem", "New", s, Some((0, 20, 150, 20))),
            (Some(2), "MenuItem", "Quit", s, Some((0, 40, 150, 20))),
            // A closed menu's items are not showing: they cover nothing.
            (Some(1), "MenuItem", "Edit", s, Some((40, 0, 40, 20))),
            (
                Some(5),
                "MenuItem",
                "Undo",
                "visible",
                Some((40, 20, 150, 20)),
            ),
            // Under the open menu, and beside it.
            (
                Some(0),
                "ListItem",
                "Covered row",
                s,
                Some((0, 30, 120, 20)),
            ),
            (Some(0), "ListItem", "Free row", s, Some((200, 30, 120, 20))),
        ],
    );
    // The open menu's items are numbered together, after the bar.
    let names = listed_names(&t);
    assert_eq!(names, ["File", "Edit", "New", "Quit", "Free row"]);
}

#[test]
fn an_open_menus_items_are_numbered_together_not_between_the_controls_beside_it() {
    // LibreOffice's Format menu hangs beside the toolbar: read row by row,
    // its items ran between the toolbar's buttons.
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 600, 300)),
        &[
            (None, "Window", "Calc", s, Some((0, 0, 600, 300))),
            (Some(0), "MenuBar", "", s, Some((0, 0, 600, 20))),
            (Some(1), "MenuItem", "Format", s, Some((0, 0, 60, 20))),
            (Some(2), "Menu", "", s, Some((0, 20, 150, 60))),
            (Some(3), "MenuItem", "Text", s, Some((0, 20, 150, 20))),
            (Some(3), "MenuItem", "Rows", s, Some((0, 40, 150, 20))),
            (Some(3), "MenuItem", "Columns", s, Some((0, 60, 150, 20))),
            (Some(0), "Button", "Sort", s, Some((300, 20, 40, 20))),
            (Some(0), "Button", "Chart", s, Some((300, 42, 40, 20))),
        ],
    );
    let names = listed_names(&t);
    assert_eq!(
        names,
        ["Format", "Text", "Rows", "Columns", "Sort", "Chart"]
    );
}

#[test]
fn a_paragraph_made_of_labels_is_not_listed_again_as_a_document() {
    let s = "showing visible enabled";
    let mut t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Page", s, Some((0, 0, 400, 300))),
            // Chromium: a paragraph over a static text.
            (Some(0), "Document", "", s, Some((0, 10, 400, 20))),
            (Some(1), "Text", "First words.", s, Some((0, 10, 120, 20))),
            // Gecko: a paragraph holding its text itself.
            (Some(0), "Document", "", s, Some((0, 40, 400, 20))),
        ],
    );
    for i in [1, 3] {
        t.nodes[i].role = "paragraph".into();
    }
    t.nodes[3].value = Some("Own words.".into());
    let c = label_controls(&t, &FilterConfig::default(), None);
    let shown: Vec<(&str, Option<&str>)> = c
        .iter()
        .map(|c| (c.name.as_str(), c.value.as_deref()))
        .collect();
    assert_eq!(shown, [("First words.", None), ("", Some("Own words."))]);
}

#[test]
fn closed_combo_items_and_a_closed_list_that_says_it_shows_are_left_out() {
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Win", s, Some((0, 0, 400, 300))),
            // Qt: a closed combo's items say "showing".
            (
                Some(0),
                "ComboBox",
                "Zoom",
                &format!("{s} expandable"),
                Some((10, 10, 100, 20)),
            ),
            (Some(1), "List", "", "visible", Some((10, 30, 100, 60))),
            (Some(2), "ListItem", "50%", s, Some((10, 30, 100, 20))),
            // Gecko: a closed select keeps a "showing" list at -1,-1 over it.
            (Some(0), "ComboBox", "Color", s, Some((200, 10, 100, 20))),
            (Some(4), "Menu", "", s, Some((200, 10, 100, 20))),
            (Some(5), "MenuItem", "Red", "visible", Some((-1, -1, 1, 1))),
            // Beside them.
            (Some(0), "Button", "Go", s, Some((150, 200, 40, 20))),
            // Qt 5 (qpdfview): neither expandable nor expanded; the closed
            // popup's list has no box, its items say showing at 0,0.
            (Some(0), "ComboBox", "100 %", s, Some((200, 100, 100, 20))),
            (Some(8), "List", "", s, None),
            (Some(9), "ListItem", "50 %", s, Some((0, 34, 100, 17))),
        ],
    );
    let names = listed_names(&t);
    assert_eq!(names, ["Zoom", "Color", "100 %", "Go"]);
}

#[test]
fn a_combo_without_text_shows_the_item_selected_in_its_list() {
    let s = "showing visible enabled";
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Win", s, Some((0, 0, 400, 300))),
            // Gecko: <select> is named by its label; the choice is the
            // selected item of the closed list below it.
            (
                Some(0),
                "ComboBox",
                "Color",
                &format!("{s} expandable"),
                Some((10, 10, 100, 20)),
            ),
            (Some(1), "Menu", "", s, Some((10, 10, 100, 20))),
            (Some(2), "MenuItem", "", "visible selectable", None),
            (Some(2), "MenuItem", "Green", &format!("{s} selected"), None),
            // A combo with text of its own keeps it; one with no selected
            // item shows none.
            (Some(0), "ComboBox", "Size", s, Some((10, 40, 100, 20))),
            (Some(5), "Menu", "", s, Some((10, 40, 100, 20))),
            (Some(6), "MenuItem", "Small", s, None),
        ],
    );
    let c = label_controls(&t, &FilterConfig::default(), None);
    let shown: Vec<(&str, Option<&str>)> = c
        .iter()
        .map(|c| (c.name.as_str(), c.value.as_deref()))
        .collect();
    assert_eq!(shown, [("Color", Some("Green")), ("Size", None)]);
}

#[test]
fn a_tables_cells_carry_the_name_of_the_column_header_above_them() {
    let t = tree(
        Some((0, 0, 400, 300)),
        &[
            (None, "Window", "Files", GTK3, Some((0, 0, 400, 300))),
            // A side list whose only header has no name.
            (Some(0), "Table", "", GTK3, Some((0, 0, 100, 300))),
            (Some(1), "HeaderItem", "", GTK3, Some((0, 0, 100, 20))),
            (Some(1), "DataItem", "Places", GTK3, Some((0, 20, 100, 20))),
            // The file list: two named headers and a row of cells.
            (Some(0), "Table", "", GTK3, Some((100, 0, 300, 300))),
            (Some(4), "HeaderItem", "Name", GTK3, Some((100, 0, 200, 20))),
            (Some(4), "HeaderItem", "Size", GTK3, Some((300, 0, 100, 20))),
            (
                Some(4),
                "DataItem",
                "file1.txt",
                GTK3,
                Some((100, 20, 200, 20)),
            ),
            (
                Some(4),
                "DataItem",
                "2 bytes",
                GTK3,
                Some((300, 20, 100, 20)),
            ),
        ],
    );
    let controls = label_controls(&t, &FilterConfig::default(), None);
    let seen: Vec<(String, Option<String>)> = controls
        .iter()
        .map(|c| (format!("{}:{}", c.control_type, c.name), c.column.clone()))
        .collect();
    let col = |s: &str| Some(s.to_owned());
    assert_eq!(
        seen,
        vec![
            ("HeaderItem:Name".into(), None),
            ("HeaderItem:Size".into(), None),
            ("DataItem:Places".into(), None),
            ("DataItem:file1.txt".into(), col("Name")),
            ("DataItem:2 bytes".into(), col("Size")),
        ]
    );
    // The model is shown the column with the cell.
    let prompt = prompt_text(&controls);
    assert!(
        prompt.contains(r#""name":"2 bytes","type":"DataItem","column":"Size""#),
        "{prompt}"
    );
}
