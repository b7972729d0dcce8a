//! `ufo bench tokens`: how many prompt tokens the control list of one AppAgent
//! step costs, in our layout and in UFO's, counted with OpenAI's tokenizers
//! (`tiktoken-rs`; its BPE files are compiled in, nothing is downloaded).
//!
//! Our layout is exactly the `{control_item}` text of the AppAgent's user
//! prompt ([`ufo_desktop::filter::prompt_text`]). UFO's layouts are rendered
//! here the way UFO renders the same controls, byte for byte (see
//! [`ufo_legacy_layout`] and [`ufo_head_layout`]), so the comparison can be
//! rerun on any window and any control list.

use serde::Serialize;
use std::fmt::Write as _;
use ufo_core::{Control, Diagnostic, ErrorReport};
use ufo_desktop::TreeBudget;
use ufo_desktop::filter::{FilterConfig, label_controls};

/// Token counts of one control list under one encoding.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EncodingCounts {
    /// Our `{control_item}` text.
    pub ours: usize,
    /// Our text with only the information UFO's layouts carry (ids, names,
    /// types: no values, no states), see [`our_layout_same_info`].
    pub ours_same_info: usize,
    /// UFO's classic layout ([`ufo_legacy_layout`]).
    pub ufo: usize,
    /// `ours / ufo`, three decimals.
    pub ratio: f64,
    /// `ours_same_info / ufo`, three decimals.
    pub ratio_same_info: f64,
    /// UFO's current (v3, HEAD) layout ([`ufo_head_layout`]).
    pub ufo_head: usize,
    /// `ours / ufo_head`, three decimals.
    pub ratio_head: f64,
    /// `ours_same_info / ufo_head`, three decimals.
    pub ratio_same_info_head: f64,
}

/// Prompt tokens of a control list, ours against UFO's layouts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenComparison {
    /// How many controls the list has.
    pub controls: usize,
    /// Characters of our text and of UFO's two layouts.
    pub chars: LayoutChars,
    /// Counted with `o200k_base` (GPT-4o, GPT-4.1, o-series).
    pub o200k_base: EncodingCounts,
    /// Counted with `cl100k_base` (GPT-4, GPT-3.5).
    pub cl100k_base: EncodingCounts,
}

/// Character counts of the three texts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LayoutChars {
    /// Our text.
    pub ours: usize,
    /// UFO's classic layout.
    pub ufo: usize,
    /// UFO's current layout.
    pub ufo_head: usize,
}

/// Our control list as the AppAgent puts it in the prompt.
pub fn our_layout(controls: &[Control]) -> String {
    ufo_desktop::filter::prompt_text(controls)
}

/// Our layout restricted to what UFO's layouts carry: the same objects
/// without `value` and `state`, so the ratio compares equal information.
pub fn our_layout_same_info(controls: &[Control]) -> String {
    let plain: Vec<_> = ufo_desktop::filter::prompt_controls(controls)
        .into_iter()
        .map(|mut c| {
            c.value = None;
            c.state = None;
            c
        })
        .collect();
    serde_json::to_string(&plain).unwrap_or_default()
}

/// UFO's classic control list (UFO v1.0 – v2.x), as put in the AppAgent's
/// `<Available Control Item:>`.
///
/// Mirrors `AppAgentProcessor.get_control_info` in
/// `ufo/agents/processors/app_agent_processor.py` (tag v2.0.0), which calls
/// `ControlInspectorFacade.get_control_info_list_of_dict(filtered_annotation_dict,
/// ["control_text", "control_type"])` in `ufo/automator/ui_control/inspector.py`:
/// `get_control_info` assigns the requested keys in its fixed order
/// (`control_type` before `control_text`, both from UIA's element info, the
/// text being the element's name) and `get_control_info_list_of_dict` then
/// appends `label` (the annotation number as a string). The list reaches the
/// prompt through `AppAgentPrompter.user_prompt_construction`
/// (`ufo/prompter/agent_prompter.py`): `control_item=json.dumps(control_item)`,
/// i.e. Python's defaults: separators `", "` and `": "`, `ensure_ascii=True`.
/// No value, state or rectangle is included.
pub fn ufo_legacy_layout(controls: &[Control]) -> String {
    py_json_list(controls, |c, out| {
        py_json_object(
            out,
            &[
                ("control_type", c.control_type.as_str()),
                ("control_text", &c.name),
                ("label", &c.id.to_string()),
            ],
        );
    })
}

/// UFO's current control list (UFO v3.x, HEAD of microsoft/UFO).
///
/// Mirrors `AppAgentLLMInteractionStrategy` in
/// `ufo/agents/processors/strategies/app_agent_processing_strategy.py`:
/// `target_registry.to_list(keep_keys=["id", "name", "type"])`, where
/// `TargetRegistry.to_list` (`ufo/agents/processors/schemas/target.py`) keeps
/// those keys of `TargetInfo.model_dump()` in field order (`kind, name, id,
/// type, rect`), so each item is `{"name", "id", "type"}`; then the same
/// `json.dumps` in `AppAgentPrompter.user_prompt_construction`.
pub fn ufo_head_layout(controls: &[Control]) -> String {
    py_json_list(controls, |c, out| {
        py_json_object(
            out,
            &[
                ("name", &c.name),
                ("id", &c.id.to_string()),
                ("type", c.control_type.as_str()),
            ],
        );
    })
}

/// `json.dumps(list)` with Python's default separators.
fn py_json_list(controls: &[Control], item: impl Fn(&Control, &mut String)) -> String {
    let mut out = String::from("[");
    for (i, c) in controls.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item(c, &mut out);
    }
    out.push(']');
    out
}

/// `json.dumps(dict)` of string values with Python's default separators.
fn py_json_object(out: &mut String, fields: &[(&str, &str)]) {
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_json_str(out, k);
        out.push_str(": ");
        py_json_str(out, v);
    }
    out.push('}');
}

/// A JSON string as Python's `json.dumps` writes it with `ensure_ascii=True`
/// (`py_encode_basestring_ascii`): `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`;
/// everything else outside printable ASCII (space to `~`) as lowercase
/// `\uXXXX`, characters beyond the BMP as a surrogate pair.
fn py_json_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(ch),
            _ => {
                let mut units = [0u16; 2];
                for u in ch.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

fn ratio(ours: usize, theirs: usize) -> f64 {
    if theirs == 0 {
        return 0.0;
    }
    (ours as f64 / theirs as f64 * 1000.0).round() / 1000.0
}

/// The four texts counted.
struct Texts {
    ours: String,
    same: String,
    ufo: String,
    head: String,
}

fn counts(bpe: &tiktoken_rs::CoreBPE, t: &Texts) -> EncodingCounts {
    let n = |s: &str| bpe.encode_ordinary(s).len();
    let (ours, same, ufo, ufo_head) = (n(&t.ours), n(&t.same), n(&t.ufo), n(&t.head));
    EncodingCounts {
        ours,
        ours_same_info: same,
        ufo,
        ratio: ratio(ours, ufo),
        ratio_same_info: ratio(same, ufo),
        ufo_head,
        ratio_head: ratio(ours, ufo_head),
        ratio_same_info_head: ratio(same, ufo_head),
    }
}

/// Counts the prompt tokens of `controls` in our layout and in UFO's, with
/// `o200k_base` and `cl100k_base`.
pub fn compare(controls: &[Control]) -> TokenComparison {
    let t = Texts {
        ours: our_layout(controls),
        same: our_layout_same_info(controls),
        ufo: ufo_legacy_layout(controls),
        head: ufo_head_layout(controls),
    };
    TokenComparison {
        controls: controls.len(),
        chars: LayoutChars {
            ours: t.ours.chars().count(),
            ufo: t.ufo.chars().count(),
            ufo_head: t.head.chars().count(),
        },
        o200k_base: counts(tiktoken_rs::o200k_base_singleton(), &t),
        cl100k_base: counts(tiktoken_rs::cl100k_base_singleton(), &t),
    }
}

/// One window's comparison (the `--json` shape of `ufo bench tokens`).
#[derive(Debug, Serialize)]
pub struct TokensReport {
    /// The application.
    pub app: String,
    /// Its window's title.
    pub window: String,
    /// Nodes captured.
    pub nodes: usize,
    /// Whether the capture hit a budget.
    pub truncated: bool,
    /// The counts.
    #[serde(flatten)]
    pub comparison: TokenComparison,
    /// The four texts counted, when asked for (`--show`).
    #[serde(skip)]
    pub texts: Option<[String; 4]>,
}

/// Captures `window`, labels its controls as the AppAgent does and compares
/// their prompt tokens; with `show`, keeps the texts counted.
pub async fn run(
    backend: &dyn ufo_desktop::Backend,
    window: &ufo_core::WindowInfo,
    show: bool,
) -> Result<TokensReport, ErrorReport> {
    let tree = backend
        .capture_tree(window, &TreeBudget::default())
        .await
        .map_err(|e| e.report())?;
    let controls = label_controls(&tree, &FilterConfig::default(), None);
    Ok(TokensReport {
        app: window.app_name.clone(),
        window: window.title.clone(),
        nodes: tree.nodes.len(),
        truncated: tree.truncated,
        comparison: compare(&controls),
        texts: show.then(|| {
            [
                our_layout(&controls),
                our_layout_same_info(&controls),
                ufo_legacy_layout(&controls),
                ufo_head_layout(&controls),
            ]
        }),
    })
}

impl std::fmt::Display for TokensReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some([ours, same, ufo, head]) = &self.texts {
            writeln!(f, "ours:\n{ours}\n")?;
            writeln!(f, "ours, same information:\n{same}\n")?;
            writeln!(f, "ufo (classic):\n{ufo}\n")?;
            writeln!(f, "ufo (head):\n{head}\n")?;
        }
        let c = &self.comparison;
        writeln!(
            f,
            "{} ({:?}): {} nodes, {} controls{}",
            self.app,
            self.window,
            self.nodes,
            c.controls,
            if self.truncated { " (truncated)" } else { "" }
        )?;
        writeln!(
            f,
            "{:<12} {:>6} {:>6} {:>6} {:>6}   {:>8} {:>8} {:>9} {:>9}",
            "tokens",
            "ours",
            "same",
            "ufo",
            "head",
            "ours/ufo",
            "same/ufo",
            "ours/head",
            "same/head"
        )?;
        for (name, e) in [("o200k_base", c.o200k_base), ("cl100k_base", c.cl100k_base)] {
            writeln!(
                f,
                "{name:<12} {:>6} {:>6} {:>6} {:>6}   {:>8.3} {:>8.3} {:>9.3} {:>9.3}",
                e.ours,
                e.ours_same_info,
                e.ufo,
                e.ufo_head,
                e.ratio,
                e.ratio_same_info,
                e.ratio_head,
                e.ratio_same_info_head
            )?;
        }
        writeln!(
            f,
            "chars: ours {}, ufo {}, head {}",
            c.chars.ours, c.chars.ufo, c.chars.ufo_head
        )?;
        write!(
            f,
            "(ufo = UFO v1-v2 {{control_type, control_text, label}}, head = UFO v3 {{name, id, type}}, \
             both json.dumps without values or states; same = ours without values and states)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::ui::{Capabilities, ElementHandle};
    use ufo_core::{ControlType, Rect, Screen};

    fn control(
        id: u32,
        name: &str,
        ty: ControlType,
        value: Option<&str>,
        states: &[&str],
    ) -> Control {
        Control {
            id,
            name: name.into(),
            control_type: ty,
            value: value.map(str::to_owned),
            column: None,
            rect: Rect::<Screen>::new(10 * id as i32, 20, 30, 40),
            handle: ElementHandle(format!("h{id}")),
            role: String::new(),
            states: ufo_core::States::from_names(states.iter().copied()),
            actions: vec![],
            capabilities: Capabilities::default(),
        }
    }

    /// A small editor window: menus, a check box, a font box with a value.
    fn editor() -> Vec<Control> {
        vec![
            control(1, "File", ControlType::MenuItem, None, &[]),
            control(2, "Edit", ControlType::MenuItem, None, &[]),
            control(3, "Bold", ControlType::Button, None, &[]),
            control(
                4,
                "Font Name",
                ControlType::ComboBox,
                Some("DejaVu Serif"),
                &[],
            ),
            control(5, "Wrap lines", ControlType::CheckBox, None, &["checked"]),
            control(6, "Save", ControlType::Button, None, &[]),
            control(7, "Close", ControlType::Button, None, &[]),
            control(8, "", ControlType::Edit, Some("Hello"), &["focused"]),
        ]
    }

    // Expected strings checked against Python 3.11:
    // json.dumps([{"control_type": ..., "control_text": ..., "label": ...}, ...]).
    #[test]
    fn ufo_layouts_are_python_json_dumps() {
        let c = vec![
            control(1, "Bold", ControlType::Button, None, &[]),
            control(
                12,
                "Caf\u{e9} \"q\" a\\b\nc\t\u{7f}\u{1F600} \u{4e2d}",
                ControlType::Edit,
                Some("ignored"),
                &["focused"],
            ),
        ];
        assert_eq!(
            ufo_legacy_layout(&c),
            r#"[{"control_type": "Button", "control_text": "Bold", "label": "1"}, {"control_type": "Edit", "control_text": "Caf\u00e9 \"q\" a\\b\nc\t\u007f\ud83d\ude00 \u4e2d", "label": "12"}]"#
        );
        assert_eq!(
            ufo_head_layout(&c[..1]),
            r#"[{"name": "Bold", "id": "1", "type": "Button"}]"#
        );
        assert_eq!(ufo_legacy_layout(&[]), "[]");
        assert_eq!(ufo_head_layout(&[]), "[]");
    }

    #[test]
    fn our_layout_is_the_agents_control_item() {
        let c = editor();
        assert_eq!(
            our_layout(&c[3..5]),
            r#"[{"id":"4","name":"Font Name","type":"ComboBox","value":"DejaVu Serif"},{"id":"5","name":"Wrap lines","type":"CheckBox","state":"checked"}]"#
        );
        assert_eq!(
            our_layout(&c),
            serde_json::to_string(&ufo_desktop::filter::prompt_controls(&c)).unwrap()
        );
    }

    #[test]
    fn token_counts_are_stable_and_ours_is_smaller() {
        let cmp = compare(&editor());
        assert_eq!(cmp.controls, 8);
        let o = cmp.o200k_base;
        let cl = cmp.cl100k_base;
        assert_eq!(
            (o.ours, o.ours_same_info, o.ufo, o.ufo_head),
            (122, 103, 166, 150),
            "o200k_base"
        );
        assert_eq!(
            (cl.ours, cl.ours_same_info, cl.ufo, cl.ufo_head),
            (118, 99, 162, 146),
            "cl100k_base"
        );
        // Ours also carries two values and two states UFO leaves out; with
        // the same information (ids, names, types) it is at most 0.7x UFO's
        // classic layout and below UFO's current one.
        for e in [o, cl] {
            assert!(e.ours < e.ufo_head && e.ufo_head < e.ufo, "{e:?}");
            assert!(e.ours_same_info < e.ours, "{e:?}");
            assert!(e.ratio_same_info <= 0.7, "{e:?}");
            assert!(e.ratio_same_info_head < 1.0, "{e:?}");
            assert_eq!(e.ratio, ratio(e.ours, e.ufo));
            assert_eq!(e.ratio_same_info_head, ratio(e.ours_same_info, e.ufo_head));
        }
    }

    #[test]
    fn same_info_layout_drops_values_and_states_only() {
        let c = editor();
        assert_eq!(
            our_layout_same_info(&c[3..5]),
            r#"[{"id":"4","name":"Font Name","type":"ComboBox"},{"id":"5","name":"Wrap lines","type":"CheckBox"}]"#
        );
    }

    #[test]
    fn empty_list_counts_two_brackets() {
        let cmp = compare(&[]);
        assert_eq!(cmp.controls, 0);
        assert_eq!(cmp.chars.ours, 2);
        assert_eq!(cmp.o200k_base.ours, cmp.o200k_base.ufo);
    }
}
