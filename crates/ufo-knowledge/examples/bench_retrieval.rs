//! Retrieval benchmark: 10,000 stored experiences, top-5 latency of the
//! tantivy store (with and without the application filter) against a linear
//! scan over the same records in memory (term-overlap scoring), in one run.
//!
//! `cargo run --release -p ufo-knowledge --example bench_retrieval [N]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::HashSet;
use std::time::{Duration, Instant};
use ufo_knowledge::records::{record_of_summary, summary_record};
use ufo_knowledge::{Record, Store};

const APPS: &[&str] = &[
    "mousepad",
    "gedit",
    "gnome-calculator",
    "libreoffice-calc",
    "libreoffice-writer",
    "firefox",
    "thunderbird",
    "nautilus",
    "gimp",
    "inkscape",
    "evince",
    "vlc",
    "rhythmbox",
    "gnome-terminal",
    "xterm",
    "kate",
    "konsole",
    "okular",
    "dolphin",
    "thunar",
];
const VERBS: &[&str] = &[
    "open", "save", "close", "type", "delete", "rename", "copy", "paste", "search", "replace",
    "print", "export", "import", "insert", "format", "select", "sort", "filter", "zoom", "share",
];
const OBJECTS: &[&str] = &[
    "document",
    "file",
    "folder",
    "spreadsheet",
    "cell",
    "row",
    "column",
    "image",
    "layer",
    "page",
    "tab",
    "window",
    "bookmark",
    "email",
    "attachment",
    "playlist",
    "song",
    "table",
    "chart",
    "note",
    "paragraph",
    "heading",
    "font",
    "color",
    "border",
    "link",
    "comment",
    "slide",
    "menu",
    "toolbar",
];
const EXTRAS: &[&str] = &[
    "quickly",
    "named report",
    "from the desktop",
    "in the home folder",
    "with bold text",
    "to pdf",
    "for the meeting",
    "on the second sheet",
    "as a backup",
    "by date",
];

fn pick<'a>(xs: &[&'a str], seed: &mut u64) -> &'a str {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    xs[(*seed % xs.len() as u64) as usize]
}

fn request(seed: &mut u64) -> (String, &'static str) {
    let app = pick(APPS, seed);
    let r = format!(
        "{} the {} {} and {} the {} {}",
        pick(VERBS, seed),
        pick(OBJECTS, seed),
        pick(EXTRAS, seed),
        pick(VERBS, seed),
        pick(OBJECTS, seed),
        pick(EXTRAS, seed)
    );
    (r, app)
}

fn tokens(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn stats(mut d: Vec<Duration>) -> String {
    d.sort();
    let us = |x: Duration| x.as_secs_f64() * 1e6;
    let mean = d.iter().map(|x| us(*x)).sum::<f64>() / d.len() as f64;
    format!(
        "mean {:>8.1} µs  p50 {:>8.1} µs  p95 {:>8.1} µs  max {:>8.1} µs",
        mean,
        us(d[d.len() / 2]),
        us(d[d.len() * 95 / 100]),
        us(d[d.len() - 1])
    )
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let records: Vec<Record> = (0..n)
        .map(|i| {
            let (req, app) = request(&mut seed);
            let s = summary_record(
                &serde_json::json!({"Function": "click_input", "ControlText": "OK", "Status": "FINISH"}),
                "tips for this task",
                &req,
                &req,
                &[app.to_owned()],
            );
            record_of_summary(&format!("exp-{i}"), &s)
        })
        .collect();
    let t = Instant::now();
    {
        let (store, _) = Store::open(dir.path(), "experience").unwrap();
        store.add(&records).unwrap();
    }
    let index_time = t.elapsed();
    let t = Instant::now();
    let (store, _) = Store::open(dir.path(), "experience").unwrap();
    let open_time = t.elapsed();

    let queries: Vec<(String, &str)> = (0..500).map(|_| request(&mut seed)).collect();
    // Warm-up.
    for (q, a) in queries.iter().take(20) {
        store.search(q, Some(a), 5).unwrap();
    }
    let mut filtered = Vec::new();
    let mut unfiltered = Vec::new();
    let mut hits = 0usize;
    for (q, a) in &queries {
        let t = Instant::now();
        let h = store.search(q, Some(a), 5).unwrap();
        filtered.push(t.elapsed());
        hits += h.len();
        let t = Instant::now();
        store.search(q, None, 5).unwrap();
        unfiltered.push(t.elapsed());
    }
    // Baseline: a linear scan over the records in memory (load once), scoring
    // every record by shared terms, keeping the best 5 of the application.
    let t = Instant::now();
    let loaded = store.records().unwrap();
    let prepared: Vec<(HashSet<String>, &Record)> =
        loaded.iter().map(|r| (tokens(&r.text), r)).collect();
    let load_time = t.elapsed();
    let mut scan = Vec::new();
    for (q, a) in &queries {
        let t = Instant::now();
        let qt = tokens(q);
        let mut scored: Vec<(usize, &str)> = prepared
            .iter()
            .filter(|(_, r)| r.apps.iter().any(|x| x == a))
            .map(|(toks, r)| (toks.intersection(&qt).count(), r.id.as_str()))
            .filter(|(s, _)| *s > 0)
            .collect();
        scored.sort_by_key(|x| std::cmp::Reverse(x.0));
        scored.truncate(5);
        std::hint::black_box(&scored);
        scan.push(t.elapsed());
    }
    println!(
        "records: {n}; queries: {}; hits returned (filtered): {hits}",
        queries.len()
    );
    println!(
        "index {n} records (one commit): {:.0} ms; reopen: {:.1} ms",
        index_time.as_secs_f64() * 1e3,
        open_time.as_secs_f64() * 1e3
    );
    println!("tantivy top-5, app filter : {}", stats(filtered));
    println!("tantivy top-5, no filter  : {}", stats(unfiltered));
    println!(
        "linear scan top-5 (baseline, records in memory; load {:.0} ms): {}",
        load_time.as_secs_f64() * 1e3,
        stats(scan)
    );
}
