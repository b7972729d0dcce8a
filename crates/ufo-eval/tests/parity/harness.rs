//! The differential harness: OSWorld's metric functions from PyPI
//! (`desktop-env`, installed without its dependencies, beside only the
//! libraries the compared modules import) score the same generated cases
//! as ours, through `driver.py`; every score must agree within 1e-6.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use ufo_eval::checkers::{CheckError, Got, check};
use ufo_testkit::deps::{install_once, run};

/// OSWorld's evaluators, installed with `--no-deps` (their full list pulls
/// torch, playwright and cloud SDKs).
const DESKTOP_ENV: &str = "desktop-env==1.0.2";

/// What the compared metric modules import (chrome, vscode, gimp, vlc,
/// docs, slides, utils), pinned (numpy below 2, as `desktop-env` asks); a
/// missing one fails the install. The audio and OCR libraries (librosa,
/// pyacoustid, fastdtw, easyocr with torch) are left out: only metrics we
/// do not compare use them, and `driver.py` puts refusing stand-ins in
/// their place for the imports.
const LIBRARIES: &[&str] = &[
    "numpy==1.26.4",
    "scipy==1.15.3",
    "Pillow==11.0.0",
    "pandas==2.2.3",
    "rapidfuzz==3.14.3",
    "beautifulsoup4==4.13.4",
    "PyMuPDF==1.26.6",
    "borb==2.1.25",
    "ImageHash==4.3.2",
    "formulas==1.3.0",
    "lxml==6.0.2",
    "cssselect==1.3.0",
    "xmltodict==0.14.2",
    "openpyxl==3.1.5",
    "tldextract==5.3.0",
    "python-pptx==1.0.2",
    "python-docx==1.2.0",
    "scikit-image==0.25.2",
    "opencv-python-headless==4.10.0.84",
    "pypdf==5.6.0",
    "PyPDF2==3.0.1",
    "odfpy==1.4.1",
    "PyYAML==6.0.2",
    "pdfplumber==0.11.7",
    "mutagen==1.47.0",
    "chardet==5.2.0",
    // Not imported by a metric: a second PDF producer for the parity
    // cases of compare_pdfs and compare_pdf_images (make_pdfs.py).
    "reportlab==4.2.5",
];

/// Where agreement ends.
const TOLERANCE: f64 = 1e-6;

/// The venv's python, made once per machine under the target directory.
pub(crate) fn python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ufo-eval-deps");
        let dir = root.join("py-osworld-desktop-env-1.0.2-b");
        let py = dir.join("bin/python");
        install_once(&dir, &py.clone(), |tmp| {
            run(
                Command::new("/usr/bin/python3")
                    .args(["-m", "venv"])
                    .arg(tmp),
                "python3 -m venv (apt-get install python3-venv, or run scripts/bootstrap.sh)",
            );
            let pip = |args: &[&str], what: &str| {
                run(
                    Command::new(tmp.join("bin/python"))
                        .args(["-m", "pip", "install", "--quiet"])
                        .arg("--disable-pip-version-check")
                        .args(args),
                    what,
                );
            };
            pip(LIBRARIES, "pip install (the metric modules' libraries)");
            pip(
                &["--no-deps", DESKTOP_ENV],
                "pip install --no-deps desktop-env",
            );
        });
        py
    })
}

/// One input pair and the evaluator's options.
pub(crate) struct Case {
    /// What the case varies, for failure messages.
    pub(crate) name: String,
    /// OSWorld's `result`.
    pub(crate) result: Got,
    /// OSWorld's `expected` (absent: the metric takes only `result`).
    pub(crate) expected: Option<Got>,
    /// The evaluator's `options`.
    pub(crate) options: Value,
    /// A documented difference from OSWorld's score (why, and the largest
    /// difference allowed), listed in docs/EVAL.md: such a case is
    /// counted apart, never as equal.
    pub(crate) known: Option<(&'static str, f64)>,
}

impl Case {
    /// A case with `expected` and no options.
    pub(crate) fn new(name: impl Into<String>, result: Got, expected: Got) -> Self {
        Case {
            name: name.into(),
            result,
            expected: Some(expected),
            options: json!({}),
            known: None,
        }
    }

    /// The same case with `options`.
    pub(crate) fn with(mut self, options: Value) -> Self {
        self.options = options;
        self
    }

    /// The same case, with a documented difference of at most `bound`.
    pub(crate) fn known(mut self, why: &'static str, bound: f64) -> Self {
        self.known = Some((why, bound));
        self
    }
}

/// A getter's output as OSWorld's Python receives it: a file as its path,
/// JSON as itself, a missing output as `None`.
fn to_python(got: &Got) -> Value {
    match got {
        Got::Missing => Value::Null,
        Got::Text(t) => Value::String(t.clone()),
        Got::File(p) => Value::String(p.display().to_string()),
        Got::Json(v) => v.clone(),
    }
}

/// Ours: a score, or `None` when the checker refused its input (a run
/// records that as a checker error scoring 0).
fn ours(func: &str, case: &Case) -> Option<f64> {
    let options: Map<String, Value> = case.options.as_object().cloned().unwrap_or_default();
    match check(func, &case.result, case.expected.as_ref(), &options) {
        Ok(s) => Some(s),
        Err(CheckError::Bad { .. }) => None,
        Err(e @ (CheckError::Unsupported(_) | CheckError::MissingTool { .. })) => {
            panic!("{func}: {e}")
        }
    }
}

/// Scores `cases` with OSWorld's `module.func` and ours and asserts they
/// agree: equal scores within 1e-6; where OSWorld's function raises (its
/// run then records no score), ours scores 0 or refuses the input. Returns
/// the number of cases compared.
pub(crate) fn compare(module: &str, func: &str, cases: &[Case]) -> usize {
    assert!(!cases.is_empty(), "{func}: no cases");
    let dir = tempfile::tempdir().unwrap();
    let input: Vec<Value> = cases
        .iter()
        .map(|c| {
            let mut v = json!({
                "module": module,
                "func": func,
                "result": to_python(&c.result),
                "options": c.options,
            });
            if let Some(e) = &c.expected {
                v["expected"] = to_python(e);
            }
            v
        })
        .collect();
    let cases_path = dir.path().join("cases.json");
    let scores_path = dir.path().join("scores.json");
    std::fs::write(&cases_path, serde_json::to_vec(&input).unwrap()).unwrap();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity/driver.py");
    run(
        // In the cases' folder: some metrics write scratch files (`temp.pdf`)
        // into the working directory.
        Command::new(python())
            .current_dir(dir.path())
            .arg(&driver)
            .arg(&cases_path)
            .arg(&scores_path),
        "OSWorld's metrics (tests/parity/driver.py)",
    );
    let theirs: Vec<Value> = serde_json::from_slice(&std::fs::read(&scores_path).unwrap()).unwrap();
    assert_eq!(theirs.len(), cases.len());
    let mut differ = Vec::new();
    let mut known = 0;
    let (mut ones, mut zeros, mut raised) = (0, 0, 0);
    for (case, t) in cases.iter().zip(&theirs) {
        match t.get("score").and_then(Value::as_f64) {
            Some(1.0) => ones += 1,
            Some(0.0) => zeros += 1,
            Some(_) => {}
            None => raised += 1,
        }
        let mine = ours(func, case);
        let bound = match case.known {
            Some((_, bound)) => {
                known += 1;
                bound
            }
            None => TOLERANCE,
        };
        let agree = match (t.get("score").and_then(Value::as_f64), mine) {
            (Some(t), Some(m)) => (t - m).abs() <= bound,
            // A known difference may be a refusal where OSWorld's scores.
            (Some(_), None) => case.known.is_some(),
            // A known difference may be a score where OSWorld's raises.
            (None, m) => case.known.is_some() || m.is_none_or(|m| m == 0.0),
        };
        if !agree {
            differ.push(format!("  {}: OSWorld {t}, ours {mine:?}", case.name));
        }
    }
    eprintln!(
        "parity {func}: {} cases, {} equal, {known} known differences (OSWorld: {ones} scored 1, {zeros} scored 0, {} in between, {raised} raised)",
        cases.len(),
        cases.len() - differ.len() - known,
        cases.len() - ones - zeros - raised,
    );
    assert!(
        differ.is_empty(),
        "{func}: {} of {} cases differ from OSWorld's:\n{}",
        differ.len(),
        cases.len(),
        differ.join("\n")
    );
    cases.len()
}
