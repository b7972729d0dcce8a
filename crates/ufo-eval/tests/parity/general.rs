//! The text and value checkers most tasks use (`general.py`,
//! `vscode.py`): exact strings, include/exclude lists, line regexes, JSON
//! objects and documents against rules, whole text files.

use std::path::Path;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

fn write(dir: &Path, name: &str, content: &str) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    Got::File(p)
}

const TEXTS: &[&str] = &[
    "true",
    "true\n",
    "True",
    "",
    " true",
    "catch the desired command\n",
    "failed to complete this task\n",
    "catch the desired command; failed to complete this task",
    "Ünïcödé ß",
];

#[test]
fn exact_match() {
    let mut cases = Vec::new();
    for t in TEXTS {
        for e in [
            json!("true"),
            json!("True"),
            json!(""),
            json!("Ünïcödé ß"),
            json!(["true"]),
        ] {
            cases.push(Case::new(
                format!("{t:?} == {e}"),
                Got::Text((*t).into()),
                Got::Json(json!({"expected": e})),
            ));
        }
    }
    for (r, e) in [
        (json!(5), json!(5)),
        (json!(5), json!(5.0)),
        (json!([1, 2]), json!([1, 2])),
        (json!({"a": 1}), json!({"a": 1})),
    ] {
        cases.push(Case::new(
            format!("{r} == {e}"),
            Got::Json(r),
            Got::Json(json!({"expected": e})),
        ));
    }
    cases.push(Case::new(
        "no expected",
        Got::Text("x".into()),
        Got::Json(json!({})),
    ));
    compare("general", "exact_match", &cases);
}

#[test]
fn check_include_exclude() {
    let rules = [
        json!({"include": ["catch the desired command"], "exclude": ["failed to complete this task"]}),
        json!({"include": ["true"]}),
        json!({"exclude": ["true"]}),
        json!({"include": [], "exclude": []}),
        json!({"include": ["True", "ß"]}),
    ];
    let mut cases = Vec::new();
    for t in TEXTS {
        for r in &rules {
            cases.push(Case::new(
                format!("{t:?} {r}"),
                Got::Text((*t).into()),
                Got::Json(r.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "missing",
        Got::Missing,
        Got::Json(rules[0].clone()),
    ));
    compare("general", "check_include_exclude", &cases);
}

#[test]
fn check_list() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        "alpha.txt\nbeta.txt\ngamma.md\n",
        "alpha.txt\n",
        "ALPHA.TXT\r\nbeta.txt\r\n",
        "",
        "alpha.txt beta.txt",
    ];
    let rules = [
        json!({"expect": ["^alpha\\.txt$", "beta"]}),
        json!({"expect": ["alpha"], "unexpect": ["gamma"]}),
        json!({"unexpect": ["\\.md$"]}),
        json!({"expect": ["(?i)alpha"]}),
        json!({}),
        json!({"expect": ["("]}),
        // Look-ahead and a back-reference (Thunderbird's folder task).
        json!({"expect": ["\\balpha\\.(?!md)"], "unexpect": ["gamma(?=\\.md)"]}),
        json!({"expect": ["(a)lph\\1"]}),
        json!({"unexpect": ["(?<=beta)\\.txt"]}),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("list{i}.txt"), f);
        for r in &rules {
            cases.push(Case::new(
                format!("{f:?} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("general", "check_list", &cases);
}

#[test]
fn check_direct_json_object() {
    let results = [
        "{'name': 'Ann', 'age': 30}",
        "{\"name\": \"Ann\", \"age\": 30.0}",
        "  {'name': 'Ann', 'age': 31}\n",
        "{'name': 'Ann Lee', 'tags': ['a', 'b']}",
        "{'name': 'Ann'}",
        "not json",
        "[1, 2]",
        "null",
        "{'tags': ['b', 'a'], 'name': 'Ann'}",
    ];
    let rules = [
        json!({"expected": {"name": "Ann", "age": 30}}),
        json!({"expected": {"name": "Ann"}}),
        json!({"expected": {"name": "Ann", "tags": ["a", "b"]}}),
        json!({"expected": {"name": "Ann"}, "expect_in_result": true}),
        json!({"expected": {"tags": ["b", "z"]}, "expect_in_result": true}),
        json!({"expected": {}}),
        json!({"expected": {"name": "__EVALUATION_FAILED__"}}),
        json!({"expected": {"tags": ["b", "a"], "ignore_list_order": true}}),
        json!({"expected": {"name": ["Bob", "Ann"]}, "expect_in_result": true}),
        json!({"expected": {"age": 30}, "expect_in_result": true}),
        json!({"expected": "x"}),
    ];
    let mut cases = Vec::new();
    for t in results {
        for r in &rules {
            cases.push(Case::new(
                format!("{t:?} {r}"),
                Got::Text(t.into()),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("general", "check_direct_json_object", &cases);
}

#[test]
fn check_json() {
    let dir = tempfile::tempdir().unwrap();
    let docs = [
        (
            "a.json",
            "{\"editor\": {\"fontSize\": 14, \"theme\": \"dark\"}, \"files\": [\"x.py\", \"y.py\"]}",
        ),
        ("b.json", "{\"editor\": {\"fontSize\": 16}, \"files\": []}"),
        (
            "c.yaml",
            "editor:\n  fontSize: 14\n  theme: dark\nfiles:\n  - x.py\n",
        ),
        ("d.json", "not json"),
    ];
    let rules = [
        json!({"expect": [{"key": ["editor", "fontSize"], "method": "eq", "ref": 14}]}),
        json!({"expect": [{"key": ["editor", "fontSize"], "method": "ge", "ref": 15}]}),
        json!({"expect": [{"key": ["editor", "theme"], "method": "re", "ref": "^da"}]}),
        json!({"expect": [{"key": ["files", 0], "method": "eq", "ref": "x.py"}]}),
        json!({"unexpect": [{"key": ["editor", "theme"], "method": "eq", "ref": "light"}]}),
        json!({"expect": [{"key": ["missing"], "method": "eq", "ref": null}]}),
    ];
    let mut cases = Vec::new();
    for (name, content) in docs {
        let file = write(dir.path(), name, content);
        for r in &rules {
            for yaml in [false, true] {
                cases.push(
                    Case::new(
                        format!("{name} {r} yaml={yaml}"),
                        file.clone(),
                        Got::Json(r.clone()),
                    )
                    .with(json!({"is_yaml": yaml})),
                );
            }
        }
    }
    compare("general", "check_json", &cases);
}

#[test]
fn compare_text_file() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write(dir.path(), "gold.txt", "Hello  World\nsecond line\n");
    let texts = [
        "Hello  World\nsecond line\n",
        "Hello World\nsecond line",
        "hello  world\nSECOND line\n",
        "\tHello World second\n line ",
        "Hello  World\nsecond line\n\n",
        "",
    ];
    let options = [
        json!({}),
        json!({"ignore_blanks": true}),
        json!({"ignore_case": true}),
        json!({"ignore_blanks": true, "ignore_case": true}),
    ];
    let mut cases = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let file = write(dir.path(), &format!("t{i}.txt"), t);
        for o in &options {
            cases.push(Case::new(format!("{t:?} {o}"), file.clone(), gold.clone()).with(o.clone()));
        }
    }
    compare("vscode", "compare_text_file", &cases);
}

#[test]
fn compare_csv() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write(dir.path(), "gold.csv", "Name,Age\nAnn,30\nBob,41\n");
    let gold2 = write(dir.path(), "gold2.csv", "Name,Age\nann,30\nbob,41\n");
    let texts = [
        "Name,Age\nAnn,30\nBob,41\n",
        "Name,Age\r\nAnn,30\r\nBob,41",
        "name,age\nann,30\nbob,41\n",
        " Name,Age \nAnn,30\nBob,41\n\n",
        "Name,Age\nAnn,31\nBob,41\n",
        "",
    ];
    let options = [
        json!({}),
        json!({"strict": false}),
        json!({"ignore_case": true}),
    ];
    let mut cases = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let file = write(dir.path(), &format!("c{i}.csv"), t);
        for o in &options {
            cases.push(Case::new(format!("{t:?} {o}"), file.clone(), gold.clone()).with(o.clone()));
        }
        let Got::File(g1) = &gold else { unreachable!() };
        let Got::File(g2) = &gold2 else {
            unreachable!()
        };
        cases.push(Case::new(
            format!("{t:?} against two"),
            file.clone(),
            Got::Json(json!([g2.display().to_string(), g1.display().to_string()])),
        ));
    }
    compare("table", "compare_csv", &cases);
}

#[test]
fn compare_config_and_is_in_list_and_literal_match() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for (i, t) in ["editor.fontSize=14\n", "editor.fontSize=14", ""]
        .iter()
        .enumerate()
    {
        let file = write(dir.path(), &format!("cfg{i}"), t);
        for e in ["editor.fontSize=14\n", "editor.fontSize=14"] {
            cases.push(Case::new(
                format!("{t:?} == {e:?}"),
                file.clone(),
                Got::Json(json!({"expected": e})),
            ));
        }
    }
    compare("vscode", "compare_config", &cases);

    let mut cases = Vec::new();
    for r in ["apple banana", "banana", "", "Apple"] {
        for e in [json!("apple"), json!("banana"), json!("")] {
            cases.push(Case::new(
                format!("{e} in {r:?}"),
                Got::Text(r.into()),
                Got::Json(json!({"expected": e})),
            ));
        }
    }
    cases.push(Case::new(
        "in a list",
        Got::Json(json!(["apple", "pear"])),
        Got::Json(json!({"expected": "apple"})),
    ));
    compare("general", "is_in_list", &cases);

    let mut cases = Vec::new();
    for (r, e) in [
        (json!("Hello"), json!("Hello")),
        (json!("Hello"), json!("hello")),
        (json!(5), json!("5")),
        (json!(["a", "B"]), json!(["a", "b"])),
        (json!(["a"]), json!(["a", "b"])),
    ] {
        for o in [
            json!({}),
            json!({"ignore_case": true}),
            json!({"type": "list"}),
            json!({"type": "list", "ignore_case": true}),
        ] {
            cases.push(
                Case::new(
                    format!("{r} vs {e} {o}"),
                    Got::Json(r.clone()),
                    Got::Json(e.clone()),
                )
                .with(o),
            );
        }
    }
    compare("general", "literal_match", &cases);
}

#[test]
fn diff_text_file_and_check_csv() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write(dir.path(), "gold.js", "a\nb\nc\nd\n");
    let mut cases = Vec::new();
    for (i, t) in [
        "a\nb\nc\nd\n",
        "a\r\nb\nc\nd",
        "a\nb\nx\nd\n",
        "q\n",
        "",
        "d\nc\nb\na\n",
        "a\nb\nc\nd\ne\nf\n",
    ]
    .iter()
    .enumerate()
    {
        let file = write(dir.path(), &format!("r{i}.js"), t);
        cases.push(Case::new(format!("{t:?}"), file, gold.clone()));
    }
    compare("general", "diff_text_file", &cases);

    let csvs = [
        "name,city\nAnn,Paris\nBob,Rome\n",
        "city,name\nRome,Bob\n",
        "name,city\nAnn,Paris\nCy,Oslo\n",
        "name\nAnn\n",
        "",
    ];
    let rules = [
        json!({"expect": [{"name": "Ann", "city": "Paris"}]}),
        json!({"expect": [{"name": "Bob"}], "unexpect": [{"city": "Oslo"}]}),
        json!({"unexpect": [{"name": "Cy"}]}),
        json!({"expect": [{"city": "Rome", "name": "Bob"}, {"name": "Ann"}]}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (i, c) in csvs.iter().enumerate() {
        let file = write(dir.path(), &format!("t{i}.csv"), c);
        for r in &rules {
            cases.push(Case::new(
                format!("{c:?} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("general", "check_csv", &cases);
}

#[test]
fn compare_result_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let texts = [
        "42",
        "42.00003",
        "42.001",
        " 42\n",
        "The answer is 42.",
        "4_2",
        "1e3",
        "1000",
        "nan",
        "inf",
        "forty-two",
        "",
        "line\r\nbreak",
        "line\nbreak",
    ];
    let files: Vec<Got> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| write(d, &format!("r{i}.txt"), t))
        .collect();
    let mut cases = Vec::new();
    for (i, a) in files.iter().enumerate() {
        for (j, b) in files.iter().enumerate() {
            cases.push(Case::new(
                format!("{:?} vs {:?}", texts[i], texts[j]),
                a.clone(),
                b.clone(),
            ));
        }
    }
    let latin1 = d.join("latin1.txt");
    std::fs::write(&latin1, b"caf\xe9").unwrap();
    cases.push(Case::new("not UTF-8", Got::File(latin1), files[0].clone()));
    cases.push(Case::new(
        "missing",
        Got::File(d.join("absent.txt")),
        files[0].clone(),
    ));
    compare("vscode", "compare_result_files", &cases);
}

#[test]
fn compare_zip_files() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let zip = |name: &str, members: &[(&str, &[u8])]| {
        let p = d.join(name);
        let mut z = zip::ZipWriter::new(std::fs::File::create(&p).unwrap());
        for (n, c) in members {
            if n.ends_with('/') {
                z.add_directory(*n, zip::write::SimpleFileOptions::default())
                    .unwrap();
            } else {
                z.start_file(*n, zip::write::SimpleFileOptions::default())
                    .unwrap();
                z.write_all(c).unwrap();
            }
        }
        z.finish().unwrap();
        Got::File(p)
    };
    // A PDF PyPDF2 reads (a blank page it writes), and one it cannot.
    let blank = d.join("blank.pdf");
    ufo_testkit::deps::run(
        std::process::Command::new(crate::harness::python()).arg("-c").arg(format!(
            "from PyPDF2 import PdfWriter\nw = PdfWriter()\nw.add_blank_page(72, 72)\nw.write({:?})",
            blank.display().to_string()
        )),
        "writing a PDF with PyPDF2",
    );
    let pdf_bytes = std::fs::read(&blank).unwrap();
    let pdf: &[u8] = &pdf_bytes;
    let broken_pdf: &[u8] = b"%PDF-1.4\n%%EOF\n";
    let archives = [
        (
            "a b",
            zip("ab.zip", &[("a.txt", b"one"), ("b/c.py", b"print(1)\n")]),
        ),
        (
            "b a",
            zip("ba.zip", &[("b/c.py", b"print(1)\n"), ("a.txt", b"one")]),
        ),
        (
            "a b changed",
            zip("ab2.zip", &[("a.txt", b"one"), ("b/c.py", b"print(2)\n")]),
        ),
        ("a only", zip("a.zip", &[("a.txt", b"one")])),
        (
            "a b with a folder",
            zip(
                "abd.zip",
                &[("a.txt", b"one"), ("b/", b""), ("b/c.py", b"print(1)\n")],
            ),
        ),
        ("empty", zip("empty.zip", &[])),
        (
            "a b and a PDF",
            zip(
                "abp.zip",
                &[("a.txt", b"one"), ("b/c.py", b"print(1)\n"), ("d.pdf", pdf)],
            ),
        ),
        (
            "a b changed and a PDF",
            zip(
                "abp2.zip",
                &[("a.txt", b"two"), ("b/c.py", b"print(1)\n"), ("d.pdf", pdf)],
            ),
        ),
        (
            "a b and a broken PDF",
            zip(
                "abq.zip",
                &[
                    ("a.txt", b"one"),
                    ("b/c.py", b"print(1)\n"),
                    ("d.pdf", broken_pdf),
                ],
            ),
        ),
        (
            "a b and another broken PDF",
            zip(
                "abr.zip",
                &[
                    ("a.txt", b"one"),
                    ("b/c.py", b"print(1)\n"),
                    ("d.pdf", b"%PDF-1.4 other"),
                ],
            ),
        ),
        ("not a zip", write(d, "x.zip", "not a zip")),
        ("missing", Got::File(d.join("absent.zip"))),
    ];
    let mut cases = Vec::new();
    for (a, x) in &archives {
        for (b, y) in &archives {
            let c = Case::new(format!("{a} vs {b}"), x.clone(), y.clone());
            // PyPDF2 raises on a PDF it cannot read; equal bytes count
            // as equal here.
            cases.push(if a == b && a.contains("broken PDF") {
                c.known(
                    "identical PDFs PyPDF2 cannot read are equal here; OSWorld raises",
                    0.0,
                )
            } else {
                c
            });
        }
    }
    cases.push(Case::new("no result", Got::Missing, archives[0].1.clone()));
    compare("vscode", "compare_zip_files", &cases);
}

/// A speed test's CSV export whose second row was taken `offset` minutes
/// from now (UTC, the clock both sides read here), or `row` as it is.
fn speedtest_csv(dir: &Path, name: &str, row: Result<i64, &str>) -> Got {
    let now = time::OffsetDateTime::now_utc();
    let second = match row {
        Ok(offset) => {
            let at =
                (i64::from(now.hour()) * 60 + i64::from(now.minute()) + offset).rem_euclid(1440);
            format!("1,2024-05-06 {:02}:{:02},95.2,12.1\n", at / 60, at % 60)
        }
        Err(raw) => raw.to_owned(),
    };
    write(dir, name, &format!("ID,Date,Download,Upload\n{second}"))
}

#[test]
fn compare_time_in_speedtest_results() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Offsets kept 5 minutes or more from every limit below: the two
    // sides read the clock seconds apart.
    let files: Vec<(String, Got)> = [0, 10, -35, 45, 75, -100, 180]
        .iter()
        .map(|o| {
            (
                format!("{o:+} min"),
                speedtest_csv(d, &format!("t{o}.csv"), Ok(*o)),
            )
        })
        .chain(
            [
                ("no time", "1,2024-05-06,95.2\n"),
                ("time last on the line", "1,2024-05-06 10:30\n"),
                ("one field", "no commas here\n"),
                ("25 o'clock", "1,2024-05-06 25:10,1\n"),
            ]
            .iter()
            .enumerate()
            .map(|(i, (what, row))| {
                (
                    what.to_string(),
                    speedtest_csv(d, &format!("b{i}.csv"), Err(row)),
                )
            }),
        )
        .chain([
            ("header only".to_owned(), write(d, "h.csv", "ID,Date\n")),
            ("empty file".to_owned(), write(d, "e.csv", "")),
        ])
        .collect();
    let limits = [
        json!("60"),
        json!(60),
        json!(" 30 "),
        json!(30.9),
        json!("6_0"),
        json!("60.5"),
        json!("abc"),
        json!(null),
        json!(200),
    ];
    let mut cases = Vec::new();
    for (what, f) in &files {
        for l in &limits {
            cases.push(Case::new(
                format!("{what} within {l}"),
                f.clone(),
                Got::Json(l.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "missing file",
        Got::Missing,
        Got::Json(json!("60")),
    ));
    cases.push(Case::new(
        "no such file",
        Got::File(d.join("absent.csv")),
        Got::Json(json!("60")),
    ));
    compare("general", "compare_time_in_speedtest_results", &cases);
}
