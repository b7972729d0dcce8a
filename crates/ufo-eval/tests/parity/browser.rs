//! Tab URL checkers (`chrome.py`): URL variants built from parts (scheme,
//! host, path, params, query, fragment), compared pairwise and matched
//! against patterns.

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// URL variants: every host with a few shapes, then mixed parts.
fn urls() -> Vec<String> {
    let schemes = ["http://", "https://", "HTTPS://", "", "ftp://"];
    let hosts = [
        "www.airbnb.com",
        "airbnb.com.sg",
        "airbnb.com",
        "WWW.Example.COM.",
        "foo.github.io",
        "a.b.example.co.uk",
        "www.www.example.org",
        "co.uk",
        "localhost",
        "10.0.0.1",
        "010.0.0.1",
        "user:pw@maps.google.com:8080",
        "[::1]",
        "example.internal",
        " spaced.example.com",
    ];
    let tails = [
        "",
        "/",
        "/a",
        "/a/",
        "/a;p",
        "/x/y;q=1",
        "?q=1",
        "/s?q=2#top",
        "#f",
    ];
    let mut out = Vec::new();
    for (i, h) in hosts.iter().enumerate() {
        out.push(format!(
            "{}{h}{}",
            schemes[i % schemes.len()],
            tails[i % tails.len()]
        ));
        out.push(format!("https://{h}/"));
    }
    let mut x = 7usize;
    for _ in 0..30 {
        x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
        let s = schemes[x % schemes.len()];
        let h = hosts[(x / 7) % hosts.len()];
        let t = tails[(x / 101) % tails.len()];
        out.push(format!("{s}{h}{t}"));
    }
    out.push("http://[::1/".into());
    out.push("mailto:someone@example.com".into());
    out
}

fn tab(url: &str) -> Value {
    json!({"title": "t", "url": url})
}

#[test]
fn is_expected_active_tab() {
    let urls = urls();
    let mut cases = Vec::new();
    for (i, a) in urls.iter().enumerate() {
        for (j, b) in urls.iter().enumerate() {
            if i == j || (i * 31 + j * 17) % 11 == 0 {
                cases.push(Case::new(
                    format!("{a} vs {b}"),
                    Got::Json(tab(a)),
                    Got::Json(json!({"type": "url", "url": b})),
                ));
            }
        }
    }
    let rule = Got::Json(json!({"type": "url", "url": "https://www.airbnb.com/"}));
    for (name, result) in [
        ("url as text", Got::Text("airbnb.com".into())),
        ("empty text", Got::Text(String::new())),
        ("no result", Got::Missing),
        ("object without url", Got::Json(json!({"title": "x"}))),
        ("url not a string", Got::Json(json!({"url": 5}))),
        ("url null", Got::Json(json!({"url": null}))),
        ("empty object", Got::Json(json!({}))),
    ] {
        cases.push(Case::new(name, result, rule.clone()));
    }
    for (name, rules) in [
        ("type title", json!({"type": "title", "url": "x"})),
        ("no type", json!({"url": "https://airbnb.com"})),
        ("no url", json!({"type": "url"})),
        ("url null in rule", json!({"type": "url", "url": null})),
    ] {
        cases.push(Case::new(
            name,
            Got::Json(tab("https://airbnb.com")),
            Got::Json(rules),
        ));
    }
    compare("chrome", "is_expected_active_tab", &cases);
}

#[test]
fn is_expected_url_pattern_match() {
    let patterns = [
        json!(["airbnb"]),
        json!(["^https://", "q=\\d+"]),
        json!(["(?i)EXAMPLE"]),
        json!(["\\.com$"]),
        json!(["[a-z]+\\.github\\.io", "/"]),
        json!(["#f$"]),
        json!([]),
        json!("ab"),
        json!(["("]),
        json!(["(?P<n>maps)\\.google"]),
    ];
    let mut cases = Vec::new();
    for (i, u) in urls().iter().enumerate() {
        for (k, p) in patterns.iter().enumerate() {
            if (i + k) % 3 == 0 || k == 0 {
                let result = if i % 2 == 0 {
                    Got::Text(u.clone())
                } else {
                    Got::Json(tab(u))
                };
                cases.push(Case::new(
                    format!("{u} ~ {p}"),
                    result,
                    Got::Json(json!({"expected": p})),
                ));
            }
        }
    }
    let rules = Got::Json(json!({"expected": ["airbnb"]}));
    for (name, result) in [
        ("empty", Got::Text(String::new())),
        ("missing", Got::Missing),
        ("no url key", Got::Json(json!({"title": "airbnb"}))),
        ("url a number", Got::Json(json!({"url": 5}))),
        ("a list", Got::Json(json!(["https://airbnb.com"]))),
        ("a number", Got::Json(json!(5))),
    ] {
        cases.push(Case::new(name, result, rules.clone()));
    }
    cases.push(Case::new(
        "rules without expected",
        Got::Text("https://airbnb.com".into()),
        Got::Json(json!({"pattern": "x"})),
    ));
    compare("chrome", "is_expected_url_pattern_match", &cases);
}

#[test]
fn is_expected_tabs() {
    let urls = urls();
    let pick = |ix: &[usize]| -> Vec<String> { ix.iter().map(|&i| urls[i].clone()).collect() };
    let tabs = |u: &[String]| Got::Json(Value::Array(u.iter().map(|x| tab(x)).collect()));
    let rule = |u: &[String]| Got::Json(json!({"type": "url", "urls": u}));
    let mut cases = Vec::new();
    let n = urls.len();
    for start in 0..n {
        let a = pick(&[start, (start + 1) % n, (start + 5) % n]);
        let same = a.clone();
        let mut reversed = a.clone();
        reversed.reverse();
        let shorter = a[..2].to_vec();
        let mut other = a.clone();
        other[1] = urls[(start + 9) % n].clone();
        let dup = vec![a[0].clone(), a[0].clone(), a[2].clone()];
        for (what, got) in [
            ("same", same),
            ("reversed", reversed),
            ("shorter", shorter),
            ("one other", other),
            ("a duplicate", dup),
        ] {
            cases.push(Case::new(format!("{what} {a:?}"), tabs(&got), rule(&a)));
        }
    }
    let a = pick(&[0, 1]);
    cases.push(Case::new("no tabs", Got::Json(json!([])), rule(&a)));
    cases.push(Case::new("missing", Got::Missing, rule(&a)));
    cases.push(Case::new(
        "tab without url",
        Got::Json(json!([{"title": "x"}, {"url": "airbnb.com"}])),
        rule(&a),
    ));
    cases.push(Case::new(
        "type title",
        tabs(&a),
        Got::Json(json!({"type": "title", "urls": a})),
    ));
    cases.push(Case::new(
        "no urls",
        tabs(&a),
        Got::Json(json!({"type": "url"})),
    ));
    compare("chrome", "is_expected_tabs", &cases);
}

#[test]
fn is_expected_bookmarks() {
    let bar = |children: Value| json!({"bookmark_bar": {"children": children}, "other": {"children": []}});
    let url = |name: &str, u: &str| json!({"type": "url", "name": name, "url": u});
    let folder =
        |name: &str, children: Value| json!({"type": "folder", "name": name, "children": children});
    let liked = |urls: &[&str]| {
        folder(
            "Liked Authors",
            Value::Array(urls.iter().map(|u| url("a", u)).collect()),
        )
    };
    let a = "https://www.goodreads.com/author/show/1";
    let b = "https://www.goodreads.com/author/show/2";
    let c = "https://www.goodreads.com/author/show/3";
    let states = [
        ("empty bar", bar(json!([]))),
        (
            "two folders",
            bar(json!([
                folder("Work", json!([])),
                folder("Fun", json!([])),
                url("x", a)
            ])),
        ),
        ("one folder", bar(json!([folder("Work", json!([]))]))),
        (
            "folders repeated",
            bar(json!([
                folder("Work", json!([])),
                folder("Work", json!([])),
                folder("Fun", json!([]))
            ])),
        ),
        (
            "two sites",
            bar(json!([
                url("one", a),
                url("two", b),
                folder("Work", json!([]))
            ])),
        ),
        ("liked a b", bar(json!([liked(&[a, b]), url("x", c)]))),
        ("liked a c", bar(json!([liked(&[a, c])]))),
        ("liked a", bar(json!([liked(&[a])]))),
        (
            "liked elsewhere",
            bar(json!([folder("Other", json!([url("a", a)]))])),
        ),
        ("no bar", json!({"other": {}})),
        ("an item without type", bar(json!([{"name": "x"}]))),
    ];
    let rules = [
        json!({"type": "bookmark_bar_folders_names", "names": ["Work", "Fun"]}),
        json!({"type": "bookmark_bar_folders_names", "names": ["Work"]}),
        json!({"type": "bookmark_bar_websites_urls", "urls": [a, b]}),
        json!({"type": "bookmark_bar_websites_urls", "urls": []}),
        json!({"type": "liked_authors_websites_urls", "urls": [a, [b, c]]}),
        json!({"type": "liked_authors_websites_urls", "urls": [[a], b]}),
        json!({"type": "something_else"}),
    ];
    let mut cases = Vec::new();
    for (name, state) in &states {
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                Got::Json(state.clone()),
                Got::Json(r.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "no bookmarks",
        Got::Json(json!({})),
        Got::Json(rules[0].clone()),
    ));
    compare("chrome", "is_expected_bookmarks", &cases);
}

#[test]
fn is_expected_search_query() {
    let mut cases = Vec::new();
    let patterns = [
        "google\\.com/search\\?.*q=drip\\+coffee",
        "(?i)DRIP",
        "q=",
        "^https://www\\.bing",
        "(",
    ];
    for u in urls()
        .iter()
        .chain(["https://www.google.com/search?q=drip+coffee+maker&hl=en".to_owned()].iter())
    {
        for p in patterns {
            cases.push(Case::new(
                format!("{u} ~ {p}"),
                Got::Json(tab(u)),
                Got::Json(json!({"expect": {"pattern": p}})),
            ));
        }
    }
    let rules = Got::Json(json!({"expect": {"pattern": "q="}}));
    for (name, result) in [
        ("empty", Got::Json(json!({}))),
        ("missing", Got::Missing),
        ("no url", Got::Json(json!({"title": "q="}))),
    ] {
        cases.push(Case::new(name, result, rules.clone()));
    }
    compare("chrome", "is_expected_search_query", &cases);
}

#[test]
fn is_expected_installed_extensions() {
    let installed = [
        json!(["uBlock Origin", "Dark Reader", "Grammarly"]),
        json!(["Dark Reader"]),
        json!([]),
        json!(["uBlock Origin", "uBlock Origin"]),
    ];
    let expected = [
        json!(["uBlock Origin"]),
        json!(["uBlock Origin", "Dark Reader"]),
        json!([]),
        json!(["ublock origin"]),
    ];
    let mut cases = Vec::new();
    for i in &installed {
        for e in &expected {
            cases.push(Case::new(
                format!("{i} has {e}"),
                Got::Json(i.clone()),
                Got::Json(json!({"expected": e})),
            ));
        }
    }
    cases.push(Case::new(
        "missing",
        Got::Missing,
        Got::Json(json!({"expected": ["x"]})),
    ));
    compare("chrome", "is_expected_installed_extensions", &cases);
}
