//! OSWorld's metric functions ("checkers"), reimplemented in Rust.
//!
//! OSWorld calls a metric as `metric(result, expected, **options)`. Here
//! [`check`] takes the same three inputs: the `result` getter's output, the
//! `expected` getter's output (for a `rule` getter that is the rules JSON, as
//! [`Got::Json`]) and the evaluator's `options` object. Every checker returns
//! a score in `0.0..=1.0` (except `compare_images`, which returns the
//! structural similarity itself as OSWorld's does, negative for
//! anti-correlated images, `check_tabstops`, negative for tab stops
//! off by more than the text width, and `run_sqlite3`, the query's value
//! as it is; the task score clamps them); a [`Got::Missing`]
//! input scores `0.0`. Inputs whose
//! shape the checker cannot take (rules without `expected`, an unknown rule
//! type, a regex that does not compile) are a [`CheckError::Bad`], never a
//! panic.
//!
//! The checkers are grouped by what they read:
//! - `text`: strings and text files (exact, fuzzy, line based, small OS checks);
//! - `structured`: CSV records and JSON/YAML values checked against rules;
//! - `table`: spreadsheets (`compare_table`);
//! - `a11y`: accessibility trees as XML, queried with CSS-like selectors;
//! - `browser`: tab URLs (regexes, OSWorld's URL normalisation); `chrome`:
//!   cookies, history, experiments, font size, shortcuts;
//! - `settings`: JSON settings files, extension lists, GIMP's config;
//! - `docx`, `pptx` + `slides`: Word documents and PowerPoint decks, read
//!   as python-docx and python-pptx read them; `impress`: Impress's
//!   settings, transitions, orientation, backgrounds; `wordfmt`: Word formatting
//!   (fonts, tab stops, colours, footers, …);
//! - `images`: SSIM of two images, as Pillow and scikit-image compute it;
//! - `gimp` (on `pil`, images as Pillow holds them): GIMP's edits checked
//!   against the original (brightness, saturation, contrast, mirror, …);
//! - `vlc`: VLC's `vlcrc` settings, its web status, its window size;
//! - `odt`: OpenDocument text as odfpy loads it (`.odt` pairs of
//!   `compare_docx_files`, `check_highlighted_words`); `slideimage`: a
//!   picture stretched over its slide;
//! - `pdfpages`, `mp3meta`, `sqlite`, `html`: a PDF's page count, an MP3's
//!   ID3 tags, an SQLite query's value (a score that may exceed 1, as
//!   OSWorld's), two HTML pages' node lists;
//! - `pdftext`, `pdfimages` (on `mutool`, MuPDF's command-line tool): two
//!   PDFs' text as MuPDF extracts it, their images' perceptual hashes;
//!   `video` (on `ffmpeg`): two videos' frames by perceptual hash;
//!   `pysuite` (on `python3`): a task's own Python test file run
//!   unprivileged; `program` runs these programs, bounded.
//!
//! `tests/parity.rs` checks each of these against OSWorld's own functions
//! on generated inputs (docs/EVAL.md).

use std::path::Path;

use serde_json::{Map, Value};

mod a11y;
mod archive;
mod browser;
pub(crate) use browser::compare_urls;
pub(crate) use frame::last_row_strings;
mod cellstyle;
mod cellvalue;
mod charts;
mod chrome;
mod cities;
mod clock;
mod condfmt;
mod docx;
mod epub;
mod formula;
mod frame;
mod gimp;
mod html;
mod images;
mod impress;
mod lxmlhtml;
mod mail;
mod mp3meta;
mod mutool;
mod numfmt;
mod odt;
mod pdfimages;
mod pdfpages;
mod pdftext;
mod pil;
mod pivot;
mod pptx;
mod program;
mod pysuite;
mod selector;
pub(crate) use selector::NAMESPACES;
mod settings;
mod sheetprops;
mod similarity;
mod slideimage;
mod slides;
mod sqlite;
mod structured;
mod stylerule;
mod table;
mod text;
mod video;
mod vlc;
mod wordfmt;
mod wordlayout;
mod workbook;

/// What a getter produced (OSWorld's `result` or `expected`).
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    /// Nothing: a missing file, a failed command. Any checker scores 0 on it.
    Missing,
    /// Text: a command's output, an accessibility tree as XML, a literal string.
    Text(String),
    /// A local file: a copy of the task's output, or a fixture.
    File(std::path::PathBuf),
    /// JSON: a `rule` getter's rules object, a directory listing.
    Json(serde_json::Value),
}

/// Why a checker could not score.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// No checker has this name (for a few OSWorld functions, the message
    /// says why: see [`why_unsupported`]).
    #[error("checker {0:?} is not supported{why}", why = because(.0))]
    Unsupported(String),
    /// The inputs are not what the checker takes (e.g. rules without `expected`).
    #[error("{func}: {message}")]
    Bad {
        /// The checker that refused its inputs.
        func: String,
        /// What was wrong with them.
        message: String,
        /// The error underneath (a regex's), when there is one.
        #[source]
        source: Option<ufo_core::BoxError>,
    },
    /// A program the checker runs ([`program_for`]) is not installed or
    /// could not be started: the task cannot be scored on this machine.
    #[error("{func}: {message}")]
    MissingTool {
        /// The checker that needs the program.
        func: String,
        /// What is missing, and what installs it.
        message: String,
    },
}

impl ufo_core::Diagnostic for CheckError {
    fn code(&self) -> &'static str {
        match self {
            CheckError::Unsupported(_) => "ufo::eval::unsupported_checker",
            CheckError::Bad { .. } => "ufo::eval::bad_checker_input",
            CheckError::MissingTool { .. } => "ufo::eval::missing_tool",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            CheckError::Unsupported(_) => "use one of the checkers this build supports (ufo_eval::checkers::SUPPORTED), or leave the task out; it is scored 0".into(),
            CheckError::Bad { .. } => "fix the task's evaluator (`expected`, `options`, the rules) so that the checker gets what it takes".into(),
            CheckError::MissingTool { func, .. } => match program_for(func) {
                Some((program, package)) => format!("install {program}: `apt-get install {package}` (scripts/bootstrap.sh installs it)"),
                None => "install the program the message names".into(),
            },
        })
    }
}

/// Why an OSWorld function has no checker here, when the reason is that
/// its score rests on a library whose output we cannot reproduce exactly
/// (an approximate score would be presented as OSWorld's); `None` for the
/// functions simply not written yet, and for unknown names.
pub fn why_unsupported(func: &str) -> Option<&'static str> {
    Some(match func {
        "compare_audios" => "it compares MFCC features (librosa) aligned by fastdtw",
        "compare_image_text" => "it reads text with an OCR model (easyocr)",
        _ => return None,
    })
}

/// The program a checker runs and the Debian package that has it
/// (`mutool`, `mupdf-tools` for the PDF checkers); `None` for a checker
/// that runs none.
pub fn program_for(func: &str) -> Option<(&'static str, &'static str)> {
    match func {
        "compare_pdfs" | "compare_pdf_images" => Some(("mutool", "mupdf-tools")),
        "compare_videos" => Some(("ffmpeg", "ffmpeg")),
        "check_python_file_by_test_suite" => Some(("python3", "python3")),
        _ => None,
    }
}

/// `": <reason>"` for [`CheckError::Unsupported`]'s message, or nothing.
fn because(func: &str) -> String {
    why_unsupported(func).map_or_else(String::new, |w| format!(": {w}"))
}

/// The checkers this build supports.
pub const SUPPORTED: &[&str] = &[
    "check_accessibility_tree",
    "check_auto_saving_time",
    "check_brightness_decrease_and_structure_sim",
    "check_config_status",
    "check_contrast_increase_and_structure_sim",
    "check_csv",
    "check_direct_json_object",
    "check_enabled_experiments",
    "check_file_exists_and_structure_sim",
    "check_font_size",
    "check_global_key_play_pause",
    "check_gnome_favorite_apps",
    "check_green_background",
    "check_highlighted_words",
    "check_history_deleted",
    "check_image_file_size",
    "check_image_mirror",
    "check_image_size",
    "check_image_stretch_and_center",
    "check_include_exclude",
    "check_italic_font_size_14",
    "check_json",
    "check_json_keybindings",
    "check_json_settings",
    "check_left_panel",
    "check_line_number",
    "check_list",
    "check_moved_jpgs",
    "check_mp3_meta",
    "check_one_instance_when_started_from_file",
    "check_page_number_colors",
    "check_palette_and_structure_sim",
    "check_pdf_pages",
    "check_presenter_console_disable",
    "check_python_file_by_test_suite",
    "check_qt_bgcone",
    "check_qt_max_volume",
    "check_qt_minimal_view",
    "check_qt_slider_colours",
    "check_saturation_increase_and_structure_sim",
    "check_slide_orientation_Portrait",
    "check_structure_sim",
    "check_structure_sim_resized",
    "check_tabstops",
    "check_text_enlarged",
    "check_textbox_on_leftside",
    "check_thunderbird_filter",
    "check_thunderbird_folder",
    "check_thunderbird_prefs",
    "check_transition",
    "check_triangle_position",
    "compare_answer",
    "compare_archive",
    "compare_conference_city_in_order",
    "compare_config",
    "compare_contains_image",
    "compare_csv",
    "compare_docx_files",
    "compare_docx_files_and_ignore_new_lines",
    "compare_docx_images",
    "compare_docx_lines",
    "compare_docx_tables",
    "compare_epub",
    "compare_font_names",
    "compare_htmls",
    "compare_image_list",
    "compare_images",
    "compare_line_spacing",
    "compare_pdf_images",
    "compare_pdfs",
    "compare_pptx_files",
    "compare_python_pure_text",
    "compare_references",
    "compare_result_files",
    "compare_subscript_contains",
    "compare_table",
    "compare_terminal_and_txt",
    "compare_text_file",
    "compare_time_in_speedtest_results",
    "compare_videos",
    "compare_zip_files",
    "contains_page_break",
    "diff_text_file",
    "evaluate_colored_words_in_tables",
    "evaluate_presentation_fill_to_rgb_distance",
    "evaluate_strike_through_last_paragraph",
    "exact_match",
    "file_contains",
    "find_default_font",
    "fuzzy_match",
    "fuzzy_place_math",
    "has_page_numbers_in_footers",
    "is_added_to_steam_cart",
    "is_cookie_deleted",
    "is_expected_active_tab",
    "is_expected_bookmarks",
    "is_expected_installed_extensions",
    "is_expected_search_query",
    "is_expected_tabs",
    "is_expected_url_pattern_match",
    "is_extension_installed",
    "is_first_line_centered",
    "is_in_list",
    "is_in_vm_clickboard",
    "is_shortcut_on_desktop",
    "is_utc_0",
    "is_vlc_fullscreen",
    "is_vlc_playing",
    "is_vlc_recordings_folder",
    "literal_match",
    "run_sqlite3",
];

/// Scores `result` against `expected` (absent for checkers that take rules only
/// via `expected`=Json rules, see below) with OSWorld metric `func` and the
/// evaluator's `options`; the score is in 0.0..=1.0. `Got::Missing` as result
/// scores 0.0 (not an error).
///
/// For OSWorld's `rule` getters, `expected` is the rules JSON (`Got::Json`).
/// A `Got::Missing` or absent `expected` where the checker needs one scores
/// 0.0 as well (a getter failed); an `expected` fixture file that exists in
/// name but cannot be read or parsed is a [`CheckError::Bad`].
pub fn check(
    func: &str,
    result: &Got,
    expected: Option<&Got>,
    options: &Map<String, Value>,
) -> Result<f64, CheckError> {
    if !SUPPORTED.contains(&func) {
        return Err(CheckError::Unsupported(func.to_owned()));
    }
    let cx = Cx {
        func,
        result,
        expected,
        options,
    };
    if matches!(result, Got::Missing) || matches!(expected, Some(Got::Missing)) {
        return Ok(0.0);
    }
    let passed = match func {
        "exact_match" => text::exact_match(&cx),
        "check_include_exclude" => text::check_include_exclude(&cx),
        "is_in_list" => text::is_in_list(&cx),
        "fuzzy_match" => return text::fuzzy_match(&cx),
        "literal_match" => text::literal_match(&cx),
        "diff_text_file" => return text::diff_text_file(&cx),
        "compare_text_file" => text::compare_text_file(&cx),
        "compare_csv" => text::compare_csv(&cx),
        "compare_answer" => text::compare_answer(&cx),
        "compare_config" => text::compare_config(&cx),
        "compare_python_pure_text" => text::compare_python_pure_text(&cx),
        "compare_terminal_and_txt" => text::compare_terminal_and_txt(&cx),
        "file_contains" => text::file_contains(&cx),
        "check_line_number" => text::check_line_number(&cx),
        "check_list" => text::check_list(&cx),
        "is_utc_0" => text::is_utc_0(&cx),
        "check_text_enlarged" => text::check_text_enlarged(&cx),
        "check_gnome_favorite_apps" => text::check_gnome_favorite_apps(&cx),
        "is_in_vm_clickboard" => text::is_in_vm_clickboard(&cx),
        "check_moved_jpgs" => structured::check_moved_jpgs(&cx),
        "check_csv" => structured::check_csv(&cx),
        "check_json" => structured::check_json(&cx),
        "check_direct_json_object" => return structured::check_direct_json_object(&cx),
        "compare_table" => table::compare_table(&cx),
        "check_accessibility_tree" => return a11y::check_accessibility_tree(&cx),
        "is_expected_url_pattern_match" => return browser::is_expected_url_pattern_match(&cx),
        "is_expected_active_tab" => return browser::is_expected_active_tab(&cx),
        "is_expected_tabs" => return browser::is_expected_tabs(&cx),
        "is_expected_bookmarks" => return browser::is_expected_bookmarks(&cx),
        "is_expected_search_query" => return browser::is_expected_search_query(&cx),
        "is_expected_installed_extensions" => {
            return browser::is_expected_installed_extensions(&cx);
        }
        "check_json_settings" => return settings::check_json_settings(&cx),
        "check_json_keybindings" => return settings::check_json_keybindings(&cx),
        "is_extension_installed" => return settings::is_extension_installed(&cx),
        "check_config_status" => return settings::check_config_status(&cx),
        "check_thunderbird_prefs" => return settings::check_thunderbird_prefs(&cx),
        "check_thunderbird_filter" => return mail::check_thunderbird_filter(&cx),
        "check_thunderbird_folder" => return mail::check_thunderbird_folder(&cx),
        "compare_docx_files" => return docx::compare_docx_files(&cx),
        "compare_docx_tables" => return docx::compare_docx_tables(&cx),
        "compare_line_spacing" => return docx::compare_line_spacing(&cx),
        "compare_pptx_files" => return slides::compare_pptx_files(&cx),
        "compare_images" => return images::compare_images(&cx),
        "check_structure_sim" => return images::check_structure_sim(&cx),
        "check_image_size" => return images::check_image_size(&cx),
        other => {
            return apps(other, &cx)
                .unwrap_or_else(|| Err(CheckError::Unsupported(other.to_owned())));
        }
    }?;
    Ok(if passed { 1.0 } else { 0.0 })
}

/// The checkers of single applications' files and settings (GIMP, VLC,
/// Word formatting, Impress, Chrome); `None` for another name.
fn apps(func: &str, cx: &Cx<'_>) -> Option<Result<f64, CheckError>> {
    Some(match func {
        "check_qt_bgcone" => vlc::check_qt_bgcone(cx),
        "check_qt_max_volume" => vlc::check_qt_max_volume(cx),
        "check_qt_minimal_view" => vlc::check_qt_minimal_view(cx),
        "check_qt_slider_colours" => vlc::check_qt_slider_colours(cx),
        "check_global_key_play_pause" => vlc::check_global_key_play_pause(cx),
        "check_one_instance_when_started_from_file" => {
            vlc::check_one_instance_when_started_from_file(cx)
        }
        "is_vlc_recordings_folder" => vlc::is_vlc_recordings_folder(cx),
        "is_vlc_fullscreen" => vlc::is_vlc_fullscreen(cx),
        "is_vlc_playing" => vlc::is_vlc_playing(cx),
        "check_brightness_decrease_and_structure_sim" => {
            gimp::check_brightness_decrease_and_structure_sim(cx)
        }
        "compare_image_list" => gimp::compare_image_list(cx),
        "check_saturation_increase_and_structure_sim" => {
            gimp::check_saturation_increase_and_structure_sim(cx)
        }
        "check_file_exists_and_structure_sim" => gimp::check_file_exists_and_structure_sim(cx),
        "check_triangle_position" => gimp::check_triangle_position(cx),
        "check_structure_sim_resized" => gimp::check_structure_sim_resized(cx),
        "check_palette_and_structure_sim" => gimp::check_palette_and_structure_sim(cx),
        "check_textbox_on_leftside" => gimp::check_textbox_on_leftside(cx),
        "check_contrast_increase_and_structure_sim" => {
            gimp::check_contrast_increase_and_structure_sim(cx)
        }
        "check_image_mirror" => gimp::check_image_mirror(cx),
        "check_green_background" => gimp::check_green_background(cx),
        "check_image_file_size" => gimp::check_image_file_size(cx),
        "compare_font_names" => wordfmt::compare_font_names(cx),
        "compare_subscript_contains" => wordfmt::compare_subscript_contains(cx),
        "has_page_numbers_in_footers" => wordfmt::has_page_numbers_in_footers(cx),
        "is_first_line_centered" => wordfmt::is_first_line_centered(cx),
        "contains_page_break" => wordfmt::contains_page_break(cx),
        "compare_contains_image" => wordfmt::compare_contains_image(cx),
        "evaluate_strike_through_last_paragraph" => {
            wordfmt::evaluate_strike_through_last_paragraph(cx)
        }
        "check_italic_font_size_14" => wordfmt::check_italic_font_size_14(cx),
        "compare_docx_lines" => wordfmt::compare_docx_lines(cx),
        "compare_docx_files_and_ignore_new_lines" => {
            wordfmt::compare_docx_files_and_ignore_new_lines(cx)
        }
        "compare_references" => wordfmt::compare_references(cx),
        "find_default_font" => wordfmt::find_default_font(cx),
        "evaluate_colored_words_in_tables" => wordlayout::evaluate_colored_words_in_tables(cx),
        "check_tabstops" => wordlayout::check_tabstops(cx),
        "check_presenter_console_disable" => impress::check_presenter_console_disable(cx),
        "check_auto_saving_time" => impress::check_auto_saving_time(cx),
        "check_left_panel" => impress::check_left_panel(cx),
        "check_transition" => impress::check_transition(cx),
        "check_page_number_colors" => impress::check_page_number_colors(cx),
        "check_slide_orientation_Portrait" => impress::check_slide_orientation_portrait(cx),
        "evaluate_presentation_fill_to_rgb_distance" => {
            impress::evaluate_presentation_fill_to_rgb_distance(cx)
        }
        "is_cookie_deleted" => chrome::is_cookie_deleted(cx),
        "check_history_deleted" => chrome::check_history_deleted(cx),
        "check_enabled_experiments" => chrome::check_enabled_experiments(cx),
        "check_font_size" => chrome::check_font_size(cx),
        "is_shortcut_on_desktop" => chrome::is_shortcut_on_desktop(cx),
        "is_added_to_steam_cart" => chrome::is_added_to_steam_cart(cx),
        "fuzzy_place_math" => wordfmt::fuzzy_place_math(cx),
        "compare_docx_images" => wordfmt::compare_docx_images(cx),
        "compare_result_files" => text::compare_result_files(cx),
        "compare_zip_files" => archive::compare_zip_files(cx),
        "compare_epub" => epub::compare_epub(cx),
        "compare_archive" => archive::compare_archive(cx),
        "compare_time_in_speedtest_results" => clock::compare_time_in_speedtest_results(cx),
        "compare_conference_city_in_order" => cities::compare_conference_city_in_order(cx),
        "check_pdf_pages" => pdfpages::check_pdf_pages(cx),
        "compare_pdfs" => pdftext::compare_pdfs(cx),
        "compare_pdf_images" => pdfimages::compare_pdf_images(cx),
        "check_mp3_meta" => mp3meta::check_mp3_meta(cx),
        "compare_videos" => video::compare_videos(cx),
        "check_python_file_by_test_suite" => pysuite::check_python_file_by_test_suite(cx),
        "run_sqlite3" => sqlite::run_sqlite3(cx),
        "compare_htmls" => html::compare_htmls(cx),
        "check_image_stretch_and_center" => slideimage::check_image_stretch_and_center(cx),
        "check_highlighted_words" => docx::check_highlighted_words(cx),
        _ => return None,
    })
}

/// One call's inputs, shared by the checker implementations.
struct Cx<'a> {
    func: &'a str,
    result: &'a Got,
    expected: Option<&'a Got>,
    options: &'a Map<String, Value>,
}

impl Cx<'_> {
    /// A [`CheckError::Bad`] for this checker.
    fn bad(&self, message: impl Into<String>) -> CheckError {
        CheckError::Bad {
            func: self.func.to_owned(),
            message: message.into(),
            source: None,
        }
    }

    /// A [`CheckError::Bad`] for this checker, caused by `source`.
    fn bad_because(
        &self,
        message: impl Into<String>,
        source: impl Into<ufo_core::BoxError>,
    ) -> CheckError {
        CheckError::Bad {
            func: self.func.to_owned(),
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// The file the result names: a file the getter produced, or a path
    /// given as text. `None` for JSON or a missing result (OSWorld's
    /// file-reading metrics score those 0).
    fn result_path(&self) -> Option<std::path::PathBuf> {
        match self.result {
            Got::File(p) => Some(p.clone()),
            Got::Text(t) => Some(t.into()),
            Got::Json(_) | Got::Missing => None,
        }
    }

    /// The rules object a `rule` getter produced (`expected` as JSON).
    fn rules(&self) -> Result<&Value, CheckError> {
        match self.expected {
            Some(Got::Json(v)) => Ok(v),
            Some(Got::Text(t)) => {
                Err(self.bad(format!("expected rules as JSON, got text {:?}", clip(t))))
            }
            Some(Got::File(p)) => {
                Err(self.bad(format!("expected rules as JSON, got file {}", p.display())))
            }
            Some(Got::Missing) | None => Err(self.bad("rules (expected) are missing")),
        }
    }

    /// `rules["expected"]`.
    fn rule_expected(&self) -> Result<&Value, CheckError> {
        let rules = self.rules()?;
        rules
            .get("expected")
            .ok_or_else(|| self.bad("rules have no \"expected\" entry"))
    }

    /// A list of strings under `key` in the rules (absent: empty).
    fn rule_strings(&self, key: &str) -> Result<Vec<String>, CheckError> {
        let rules = self.rules()?;
        if !rules.is_object() {
            return Err(self.bad("rules must be a JSON object"));
        }
        match rules.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(v) => string_list(v)
                .ok_or_else(|| self.bad(format!("rules.{key} must be a list of strings"))),
        }
    }

    /// The result's content as text, or `None` when it cannot be had
    /// (unreadable file, which scores 0).
    fn result_text(&self) -> Option<String> {
        got_text(self.result)
    }

    /// The result as a JSON value: text becomes a string, a file its text.
    fn result_value(&self) -> Option<Value> {
        got_value(self.result)
    }

    /// The expected fixture's content as text; an unreadable fixture is an error.
    fn expected_text(&self) -> Result<String, CheckError> {
        match self.expected {
            Some(Got::Text(t)) => Ok(t.clone()),
            Some(Got::File(p)) => read_text(p)
                .ok_or_else(|| self.bad(format!("expected file {} cannot be read", p.display()))),
            Some(Got::Json(Value::String(s))) => Ok(s.clone()),
            Some(Got::Json(_)) => Err(self.bad("expected must be a file or text, not JSON")),
            Some(Got::Missing) | None => Err(self.bad("expected is missing")),
        }
    }

    /// A boolean option (absent or null: `default`).
    fn opt_bool(&self, key: &str, default: bool) -> Result<bool, CheckError> {
        match self.options.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.bad(format!("option {key} must be a boolean, got {other}"))),
        }
    }
}

/// Reads a file as text (lossy UTF-8); `None` when it cannot be read.
fn read_text(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A getter's output as text: a file's content, a JSON string's value, other
/// JSON as its serialisation.
fn got_text(got: &Got) -> Option<String> {
    match got {
        Got::Missing => None,
        Got::Text(t) => Some(t.clone()),
        Got::File(p) => read_text(p),
        Got::Json(Value::String(s)) => Some(s.clone()),
        Got::Json(v) => Some(v.to_string()),
    }
}

/// A getter's output as a JSON value (text and file content as strings).
fn got_value(got: &Got) -> Option<Value> {
    match got {
        Got::Missing => None,
        Got::Text(t) => Some(Value::String(t.clone())),
        Got::File(p) => read_text(p).map(Value::String),
        Got::Json(v) => Some(v.clone()),
    }
}

/// A JSON list of strings.
fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_owned))
        .collect()
}

/// The first characters of a long string, for messages.
fn clip(s: &str) -> String {
    ufo_core::text::clip(s, 60)
}

/// Python's `str.isspace` for one character (Unicode White_Space and the
/// ASCII separators U+001C..U+001F).
pub(crate) fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's truth of a JSON value: null, false, 0, "" and empty containers
/// are false.
fn py_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// Equality as Python's `==` sees JSON values: numbers compare by value
/// (`1 == 1.0`, `True == 1`), containers element-wise.
fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Number(_)) | (Value::Number(_), Value::Bool(x)) => {
            let n = if matches!(a, Value::Bool(_)) { b } else { a };
            n.as_f64() == Some(f64::from(u8::from(*x)))
        }
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Python's `needle in haystack` for a string needle: substring of a string,
/// member of a list.
fn py_contains(haystack: &Value, needle: &Value) -> bool {
    match (haystack, needle) {
        (Value::String(h), Value::String(n)) => h.contains(n.as_str()),
        (Value::Array(items), n) => items.iter().any(|x| py_eq(x, n)),
        (Value::Object(map), Value::String(n)) => map.contains_key(n),
        _ => false,
    }
}

/// Python's `str()` of a JSON value, near enough: strings as themselves,
/// `True`/`False`/`None`, floats with a decimal point, containers as JSON.
fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Null => "None".to_owned(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => py_float_repr(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// Python's `repr(float)`: shortest round-trip digits, `.0` on integral
/// values, scientific notation below 1e-4 and from 1e16 (`1e+16`, `1.5e-05`).
fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let a = f.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        let s = format!("{f:?}");
        if s.contains('e') {
            // Debug may still pick exponent form near the edges.
            return format!("{f}");
        }
        return s;
    }
    let s = format!("{f:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// OSWorld's "same items" test for name lists: equal lengths, then equal as
/// sets (both lists are sorted and deduplicated in place).
fn same_names(got: &mut Vec<String>, want: &mut Vec<String>) -> bool {
    if got.len() != want.len() {
        return false;
    }
    got.sort();
    got.dedup();
    want.sort();
    want.dedup();
    got == want
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
