//! `check_accessibility_tree` and the selector engine.

use serde_json::{Value, json};

use super::super::selector::SelectorList;
use super::{assert_bad, rules, score, text};
use crate::checkers::Got;

/// A tree shaped like OSWorld's AT-SPI dump (namespaced attributes).
const TREE: &str = r#"<desktop-frame xmlns:attr="uri:deskat:attributes.at-spi.gnome.org" xmlns:st="uri:deskat:state.at-spi.gnome.org" name="main">
  <application name="Thunderbird">
    <tool-bar attr:id="MsgHeadersToolbar">
      <label name="To"/>
      <section attr:class="address-pill">
        <label attr:class="pill-label" name="fox@someuniversity.edu">fox@someuniversity.edu</label>
      </section>
      <section attr:class="address-pill">
        <label attr:class="pill-label" name="Iron &lt;iron@someuniversity.edu&gt;"/>
      </section>
    </tool-bar>
    <page-tab-list attr:id="tabmail-tabs">
      <page-tab name="Inbox" st:selected="true"/>
      <page-tab name="About Profiles"/>
    </page-tab-list>
  </application>
  <application name="gnome-calculator">
    <push-button name="7">7</push-button>
    <push-button name="8"/>
    <label name="result">42</label>
  </application>
</desktop-frame>"#;

fn names(selector: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(TREE).unwrap();
    let list = SelectorList::parse(selector).unwrap();
    list.select(doc.root())
        .iter()
        .map(|n| n.attribute("name").unwrap_or("?").to_owned())
        .collect()
}

#[test]
fn selector_engine() {
    assert_eq!(names("push-button"), vec!["7", "8"]);
    assert_eq!(names("push-button[name=\"7\"]"), vec!["7"]);
    assert_eq!(
        names(
            "application[name=Thunderbird] page-tab-list[attr|id=\"tabmail-tabs\"]>page-tab[name=\"About Profiles\"]"
        ),
        vec!["About Profiles"]
    );
    assert_eq!(
        names(
            "tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class=\"address-pill\"]>label[attr|class=\"pill-label\"][name*=\"iron@someuniversity.edu\"]"
        ),
        vec!["Iron <iron@someuniversity.edu>"]
    );
    assert_eq!(names("page-tab[st|selected=true]"), vec!["Inbox"]);
    assert_eq!(names("page-tab:not([st|selected])"), vec!["About Profiles"]);
    assert_eq!(
        names("application > push-button:first-child + push-button"),
        vec!["8"]
    );
    assert_eq!(
        names("push-button:nth-child(2), application > label:last-child"),
        vec!["8", "result"]
    );
    assert_eq!(names("[name^=gnome] :contains('42')"), vec!["result"]);
    assert_eq!(
        names("*|label[name$=\".edu\"]"),
        vec!["fox@someuniversity.edu"]
    );
    assert_eq!(names(":root"), vec!["main"]);
    // An unknown prefix selects nothing; child is not descendant.
    assert!(names("[nope|id]").is_empty());
    assert!(names("desktop-frame > push-button").is_empty());
    for bad in [
        "",
        "push-button[",
        "a >",
        "a:hover",
        "[name=\"x]",
        "a,,b",
        "a:nth-child(x)",
    ] {
        assert!(
            SelectorList::parse(bad).is_err(),
            "{bad:?} should not parse"
        );
    }
}

#[test]
fn a11y_rules_all_must_select() {
    let tree = text(TREE);
    let ok = rules(json!([
        {"selectors": ["tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class=\"address-pill\"]>label[attr|class=\"pill-label\"][name*=\"fox@someuniversity.edu\"]"]},
        {"selectors": ["page-tab[name=\"About Profiles\"]"]}
    ]));
    assert_eq!(
        score("check_accessibility_tree", &tree, Some(&ok), Value::Null),
        1.0
    );
    let one_missing = rules(json!([
        {"selectors": ["page-tab[name=\"About Profiles\"]"]},
        {"selectors": ["label[name*=\"nancy@someuniversity.edu\"]"]}
    ]));
    assert_eq!(
        score(
            "check_accessibility_tree",
            &tree,
            Some(&one_missing),
            Value::Null
        ),
        0.0
    );
    // A single rule object is accepted as a list of one.
    let single = rules(json!({"selectors": ["push-button[name=\"7\"]"]}));
    assert_eq!(
        score(
            "check_accessibility_tree",
            &tree,
            Some(&single),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "check_accessibility_tree",
            &text("<not xml"),
            Some(&single),
            Value::Null
        ),
        0.0
    );
}

#[test]
fn a11y_text_exact_and_fuzzy() {
    let tree = text(TREE);
    let exact = rules(json!([{"selectors": ["label[name=result]"], "text": "42", "exact": true}]));
    assert_eq!(
        score("check_accessibility_tree", &tree, Some(&exact), Value::Null),
        1.0
    );
    let exact_default = rules(json!([{"selectors": ["label[name=result]"], "text": "43"}]));
    assert_eq!(
        score(
            "check_accessibility_tree",
            &tree,
            Some(&exact_default),
            Value::Null
        ),
        0.0
    );
    let fuzzy = rules(json!([{"selectors": ["label[name=result]"], "text": "4", "exact": false}]));
    let s = score("check_accessibility_tree", &tree, Some(&fuzzy), Value::Null);
    assert!((s - 2.0 / 3.0).abs() < 1e-9, "{s}");
    // Best element wins; an element without text falls back to its name.
    let best = rules(json!([{"selectors": ["push-button"], "text": "8"}]));
    assert_eq!(
        score("check_accessibility_tree", &tree, Some(&best), Value::Null),
        1.0
    );
}

#[test]
fn a11y_bad_rules() {
    let tree = text(TREE);
    let f = "check_accessibility_tree";
    assert_bad(f, &tree, Some(&rules(json!([{"text": "x"}]))), Value::Null);
    assert_bad(
        f,
        &tree,
        Some(&rules(json!([{"xpath": "//label"}]))),
        Value::Null,
    );
    assert_bad(
        f,
        &tree,
        Some(&rules(json!([{"selectors": ["label["]}]))),
        Value::Null,
    );
    assert_bad(
        f,
        &tree,
        Some(&rules(json!([{"selectors": [1]}]))),
        Value::Null,
    );
    assert_bad(
        f,
        &tree,
        Some(&rules(
            json!([{"selectors": ["label"], "text": "x", "exact": "yes"}]),
        )),
        Value::Null,
    );
    assert_bad(f, &tree, Some(&rules(json!("label"))), Value::Null);
    assert_bad(f, &tree, Some(&text("label")), Value::Null);
    assert_eq!(
        score(f, &Got::Missing, Some(&rules(json!([]))), Value::Null),
        0.0
    );
}
