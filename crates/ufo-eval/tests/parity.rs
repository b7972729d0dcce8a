//! Differential tests against OSWorld's own metric functions: for each
//! checker, a generated corpus of input pairs (equal, near-equal, differing
//! in each property the function checks, malformed) is scored by ours and
//! by OSWorld's Python (`desktop-env` from PyPI, in a venv this test makes
//! under the target directory on its first run), and the scores must agree
//! within 1e-6. See docs/EVAL.md for the table of functions and cases.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "parity/archives.rs"]
mod archives;
#[path = "parity/browser.rs"]
mod browser;
#[path = "parity/cellprops.rs"]
mod cellprops;
#[path = "parity/charts.rs"]
mod charts;
#[path = "parity/chrome.rs"]
mod chrome;
#[path = "parity/docx.rs"]
mod docx;
#[path = "parity/epub.rs"]
mod epub;
#[path = "parity/formats.rs"]
mod formats;
#[path = "parity/general.rs"]
mod general;
#[path = "parity/gimp.rs"]
mod gimp;
#[path = "parity/harness.rs"]
mod harness;
#[path = "parity/images.rs"]
mod images;
#[path = "parity/impress.rs"]
mod impress;
#[path = "parity/odt.rs"]
mod odt;
#[path = "parity/pdfs.rs"]
mod pdfs;
#[path = "parity/pivot.rs"]
mod pivot;
#[path = "parity/pysuite.rs"]
mod pysuite;
#[path = "parity/rowsvalid.rs"]
mod rowsvalid;
#[path = "parity/settings.rs"]
mod settings;
#[path = "parity/slides.rs"]
mod slides;
#[path = "parity/styles.rs"]
mod styles;
#[path = "parity/table.rs"]
mod table;
#[path = "parity/videos.rs"]
mod videos;
#[path = "parity/vlc.rs"]
mod vlc;
#[path = "parity/wordfmt.rs"]
mod wordfmt;
#[path = "parity/wordlayout.rs"]
mod wordlayout;
