//! The single-format checkers: `check_pdf_pages`, `run_sqlite3`,
//! `compare_htmls`, `check_mp3_meta` (their parity with OSWorld is in
//! `tests/parity/formats.rs`).

use serde_json::json;

use super::{assert_bad, file, rules, score, text};

/// A PDF whose page tree holds `pages` pages under one node.
fn pdf(pages: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", i + 3)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        ),
    ];
    objects.extend((0..pages).map(|_| "<< /Type /Page /Parent 2 0 R >>".to_owned()));
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn check_pdf_pages_compares_the_page_count() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("two.pdf");
    std::fs::write(&p, pdf(2)).unwrap();
    let two = super::Got::File(p);
    let f = "check_pdf_pages";
    let rule =
        |relation: &str, r: serde_json::Value| rules(json!({"relation": relation, "ref_value": r}));
    assert_eq!(score(f, &two, Some(&rule("eq", json!(2))), json!({})), 1.0);
    assert_eq!(score(f, &two, Some(&rule("eq", json!(1))), json!({})), 0.0);
    assert_eq!(
        score(f, &two, Some(&rule("ge", json!(1.5))), json!({})),
        1.0
    );
    assert_eq!(
        score(f, &two, Some(&rule("ne", json!("2"))), json!({})),
        1.0
    );
    assert_bad(f, &two, Some(&rule("lt", json!("2"))), json!({}));
    assert_bad(f, &two, Some(&rule("between", json!(2))), json!({}));
    let not_pdf = file(dir.path(), "x.pdf", "hello");
    assert_bad(f, &not_pdf, Some(&rule("eq", json!(1))), json!({}));
    assert_eq!(
        score(
            f,
            &super::Got::Missing,
            Some(&rule("eq", json!(1))),
            json!({})
        ),
        0.0
    );
}

#[test]
fn run_sqlite3_scores_the_first_value() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE t (n INTEGER, s TEXT); INSERT INTO t VALUES (3, ' 2.5 ');")
            .unwrap();
    }
    let db = super::Got::File(db);
    let f = "run_sqlite3";
    let sql = |q: &str| rules(json!({"sql": q}));
    assert_eq!(score(f, &db, Some(&sql("SELECT n FROM t")), json!({})), 3.0);
    assert_eq!(score(f, &db, Some(&sql("SELECT s FROM t")), json!({})), 2.5);
    assert_eq!(score(f, &db, Some(&sql("SELECT NULL")), json!({})), 0.0);
    assert_eq!(score(f, &db, Some(&sql("SELECT '1_0'")), json!({})), 10.0);
    assert_bad(f, &db, Some(&sql("SELECT 'x'")), json!({}));
    assert_bad(f, &db, Some(&sql("SELECT n FROM t WHERE n > 5")), json!({}));
    assert_bad(f, &db, Some(&sql("SELECT 1; SELECT 2")), json!({}));
    // Query only: the file is not changed.
    assert_bad(f, &db, Some(&sql("DELETE FROM t RETURNING 1")), json!({}));
    assert_eq!(
        score(f, &db, Some(&sql("SELECT COUNT(*) FROM t")), json!({})),
        1.0
    );
    let absent = super::Got::File(dir.path().join("absent.db"));
    assert_eq!(score(f, &absent, Some(&sql("SELECT 1")), json!({})), 1.0);
    assert!(!dir.path().join("absent.db").exists());
}

#[test]
fn compare_htmls_walks_both_node_lists() {
    let dir = tempfile::tempdir().unwrap();
    let page = |name: &str, body: &str| {
        file(
            dir.path(),
            name,
            &format!("<html><body>\n<table><tr>{body}</tr></table>\n</body></html>\n"),
        )
    };
    let a = page("a.html", r#"<td class="x  y" sdnum="1033;">1</td>"#);
    let f = "compare_htmls";
    let same = page("b.html", r#"<td class="x y" sdnum="1033;">1</td>"#);
    assert_eq!(score(f, &same, Some(&a), json!({})), 1.0);
    let differs = page("c.html", r#"<td class="x y" sdnum="1033;">2</td>"#);
    assert_eq!(score(f, &differs, Some(&a), json!({})), 0.0);
    let sdnum = page("d.html", r#"<td class="x y" sdnum="1031;">1</td>"#);
    assert_eq!(score(f, &sdnum, Some(&a), json!({})), 0.0);
    assert_eq!(
        score(f, &sdnum, Some(&a), json!({"ignore_sdnum": true})),
        1.0
    );
    let blank = file(dir.path(), "e.html", "<html><body>\n\n\t</body></html>");
    let empty_body = page("f.html", "");
    assert_eq!(score(f, &blank, Some(&empty_body), json!({})), 1.0);
    assert_bad(f, &text("/nonexistent/x.html"), Some(&a), json!({}));
}

#[test]
fn check_mp3_meta_refuses_a_file_without_tags() {
    let dir = tempfile::tempdir().unwrap();
    let untagged = file(dir.path(), "a.mp3", "not really an mp3");
    let meta = rules(json!({"title": {"method": "eq", "ref": ""}}));
    assert_bad("check_mp3_meta", &untagged, Some(&meta), json!({}));
}
