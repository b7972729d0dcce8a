//! Chrome's settings and data checks (`chrome.py`): cookie and history
//! rows, experiment lists, font settings, desktop shortcuts and tab
//! contents as the getters give them (JSON), against rules of every type.

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// Every result against every rules object.
fn grid(results: &[Value], rules: &[Value]) -> Vec<Case> {
    let mut cases = Vec::new();
    for r in results {
        for rule in rules {
            cases.push(Case::new(
                format!("{r} with {rule}"),
                Got::Json(r.clone()),
                Got::Json(rule.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "no data",
        Got::Missing,
        Got::Json(rules[0].clone()),
    ));
    cases
}

#[test]
fn is_cookie_deleted() {
    let rows = [
        json!([]),
        json!([[1, ".example.com", "sid"], [2, "accounts.google.com", "x"]]),
        json!([[1, "www.example.com", "sid"]]),
        json!([[1, "example.co.uk", "sid"]]),
        json!([[1, "other.org", "sid"]]),
        json!([[1, null, "sid"]]),
        json!([[1]]),
        json!(["ab"]),
    ];
    let rules = [
        json!({"type": "domains", "domains": [".example.com"]}),
        json!({"type": "domains", "domains": ["example.com", "google.com"]}),
        json!({"type": "domains", "domains": []}),
        json!({"type": "domains", "domains": [null]}),
        json!({"type": "names", "domains": ["example.com"]}),
        json!({"domains": ["example.com"]}),
    ];
    compare("chrome", "is_cookie_deleted", &grid(&rows, &rules));
}

#[test]
fn check_history_deleted() {
    let rows = [
        json!([]),
        json!([["https://www.youtube.com/watch?v=1", "Video", 3]]),
        json!([
            ["https://news.example.org/a", "News"],
            ["https://www.amazon.com/", "Shop"]
        ]),
        json!([["https://example.org/", "x"]]),
        json!([[null, "x"]]),
        json!([[]]),
    ];
    let rules = [
        json!({"type": "keywords", "keywords": ["youtube"]}),
        json!({"type": "keywords", "keywords": ["amazon", "youtube"]}),
        json!({"type": "keywords", "keywords": []}),
        json!({"type": "keywords", "keywords": "ex"}),
        json!({"type": "keywords", "keywords": [5]}),
        json!({"type": "domains", "keywords": ["youtube"]}),
    ];
    compare("chrome", "check_history_deleted", &grid(&rows, &rules));
}

#[test]
fn check_enabled_experiments() {
    let lists = [
        json!([]),
        json!(["read-anywhere@1", "tab-groups@2"]),
        json!(["read-anywhere", "tab-groups"]),
        json!(["tab-groups@2", "read-anywhere@1"]),
        json!(["read-anywhere@1@2"]),
        json!([3]),
    ];
    let rules = [
        json!({"type": "names", "names": ["read-anywhere", "tab-groups"]}),
        json!({"type": "names", "names": ["read-anywhere"]}),
        json!({"type": "names", "names": []}),
        json!({"type": "other", "names": []}),
        json!({"names": []}),
    ];
    compare("chrome", "check_enabled_experiments", &grid(&lists, &rules));
}

#[test]
fn check_font_size() {
    let settings = [
        json!({"default_font_size": 16}),
        json!({"default_font_size": 20}),
        json!({"default_font_size": 20.5}),
        json!({"default_font_size": "20"}),
        json!({"default_fixed_font_size": 13}),
    ];
    let rules = [
        json!({"type": "value", "value": 20}),
        json!({"type": "value", "value": 20.0}),
        json!({"type": "range", "min": 16, "max": 24}),
        json!({"type": "range", "min": 12, "max": 16}),
        json!({"type": "range", "min": 20, "max": 21}),
        json!({"type": "range", "min": "1", "max": "3"}),
        json!({"type": "range", "min": 16}),
        json!({"type": "other"}),
    ];
    compare("chrome", "check_font_size", &grid(&settings, &rules));
}

#[test]
fn is_shortcut_on_desktop() {
    let shortcuts = [
        json!({}),
        json!({"/home/user/Desktop/a.desktop": "[Desktop Entry]\nName=Play Puzzle Game\nExec=/opt/google/chrome/chrome --app=https://x\n"}),
        json!({"/home/user/Desktop/a.desktop": "[Desktop Entry]\nName=Play Puzzle Game 2\n", "/b.desktop": "Name=Other\n"}),
        json!({"/home/user/Desktop/a.desktop": "[Desktop Entry]\nName=Play Puzzle Game"}),
        json!({"/a.desktop": null}),
        json!(["Name=Play Puzzle Game\n"]),
    ];
    let rules = [
        json!({"type": "name", "name": "Play Puzzle Game"}),
        json!({"type": "exec", "exec": "/opt/google/chrome/chrome --app=https://x"}),
        json!({"type": "name", "name": 3}),
        json!({"type": "name"}),
        json!({"type": "url", "url": "https://x"}),
        json!({}),
    ];
    compare(
        "chrome",
        "is_shortcut_on_desktop",
        &grid(&shortcuts, &rules),
    );
}

#[test]
fn is_added_to_steam_cart() {
    let tabs = [
        json!({"title": "Cart", "url": "https://store.steampowered.com/cart", "content": "Your cart: Dota Plus, Portal 2. Estimated total"}),
        json!({"content": "Your cart: Portal 2"}),
        json!({"content": ["Portal 2", "Dota Plus"]}),
        json!({"content": ""}),
        json!({"content": null}),
        json!({"title": "Cart"}),
    ];
    let rules = [
        json!({"items": ["Dota Plus", "Portal 2"]}),
        json!({"items": ["Portal 2"]}),
        json!({"items": []}),
        json!({"items": "Po"}),
        json!({"items": [3]}),
        json!({}),
    ];
    compare("chrome", "is_added_to_steam_cart", &grid(&tabs, &rules));
}
