//! Getters: what a checker compares (OSWorld's `result` and `expected`),
//! all 47 types OSWorld's tasks use. A getter OSWorld's code answers with
//! `None` (a missing file, a command that cannot run, a page that does not
//! load) gives [`Got::Missing`], which scores 0; its fallbacks (`[]`,
//! `"Google"`, ...) are kept. One that cannot be done here is
//! [`GetError`]: `unsupported` (with the reason), `needs_account`, and
//! `unavailable` for a file that cannot be had or for `cookie_data` after
//! the setup could not reach its pages (what the visits would have left is
//! not there: an untouched task would score as if the cookies were
//! deleted).
//!
//! | type | parameters | gives |
//! |---|---|---|
//! | `vm_file` | `path`, `dest`, `multi`, `gives`, `time_suffix`, `time_format` | a copy of the file in the task's output folder; with `multi`, each file copied, and the one `gives` names returned, or a list of them (paths, `null` for a missing one) when it names several (`getters/files.rs`) |
//! | `cloud_file` | `path`, `dest`, `multi`, `gives` | the file at the URL (through the cache or the mirror, [`crate::fetch`]; one that cannot be had makes the task `unavailable`), or a fixture (`$SUITE/...`); several as for `vm_file` |
//! | `vm_command_line`, `vm_command_error` | `command`, `shell` | the command's standard output (error), whatever its exit code; nothing when it cannot run or takes over 120 s (as OSWorld) |
//! | `rule` | `rules` | the rules object |
//! | `rule_relativeTime` | `rules` (`relativeTime`, `expected`) | the rules with today's dates written in (`getters/relative.rs`) |
//! | `time_diff_range` | `diff_range_in_minutes` | that value |
//! | `local_file` | `path` (`$SUITE/...`) | a fixture of the suite |
//! | `cache_file` | `path` | a file in the task's cache folder (`execute`'s `stdout`) |
//! | `list_directory` | `path` | `{type, name, children}` of the folder, recursively |
//! | `accessibility_tree` | | every application's windows as OSWorld's XML (`getters/a11y.rs`) |
//! | `vm_terminal_output` | | the focused terminal's text in GNOME Terminal's active window (`getters/a11y.rs`) |
//! | `vlc_config`, `gimp_config_file` | `dest` (`file_name`) | `~/.config/vlc/vlcrc`, `~/.config/GIMP/2.10/<file_name>` copied out |
//! | `vscode_config` | `vscode_extension_command`, `path`, `dest` | the command run in VS Code's palette when its window is open, then `path` copied out (`getters/apps.rs`) |
//! | `vlc_playing_info` | `dest` | VLC's `status.xml` from `localhost` on the port of the task's `vlcrc` (8080 when it names none; see [`crate::vm_home`]) |
//! | `default_video_player` | | the desktop file `xdg-mime` names most for video types |
//! | `vm_screen_size`, `vm_window_size` | (`app_class_name`) | `{width, height}` of the screen, of the first window of that `WM_CLASS` |
//! | `vm_wallpaper` | `dest` | the file GNOME's `picture-uri` names |
//! | `audio_in_slide`, `background_image_in_slide` | `ppt_file_path`, `slide_index`, `dest` | the slide's audio / background picture, from the package or the file it links (`getters/slides.rs`) |
//! | `shortcuts_on_desktop` | | `{name: text}` of the `.desktop` files in `~/Desktop` |
//! | `bookmarks`, `history`, `cookie_data`, `default_search_engine`, `enabled_experiments`, `profile_name`, `chrome_language`, `chrome_font_size`, `enable_do_not_track`, `enable_enhanced_safety_browsing`, `new_startup_page`, `find_unpacked_extension_path`, `find_installed_extension_name`, `data_delete_automacally` | (`dest`) | Chrome's profile files, as OSWorld reads them (`getters/chrome.rs`) |
//! | `open_tabs_info`, `active_tab_info`, `page_info`, `pdf_from_url` | (`url`, `path`, `dest`) | the running browser over its DevTools protocol (`getters/tabs.rs`) |
//! | `active_url_from_accessTree`, `active_tab_url_parse`, `url_dashPart` | `goto_prefix`, `parse_keys`, `replace`, `partIndex`, `needDeleteId`, `returnType`, `key` | the address bar's URL in the accessibility tree, and parts of it (`getters/tabs.rs`) |
//! | `active_tab_html_parse`, `info_from_website` | `category`, `class_*Object`, `xpathObject`, `inputObject`; `url`, `infos`, `backups` | elements of a page (`getters/pages.rs`) |
//! | `googledrive_file` | | the task is `needs_account` |
//! | `content_from_vm_file` | `path`, `file_type` (`xlsx`), `file_content` (`last_row`) | the first sheet's last row as pandas' `astype(str)` writes it (a sheet with dates is `unsupported`) |
//! | `gotoRecreationPage_and_get_html_content` | | `unsupported` ([`why_unsupported`]) |

mod a11y;
mod apps;
mod chrome;
mod files;
mod pages;
mod relative;
mod slides;
mod tabs;

use crate::checkers::Got;
use crate::command::{COMMAND_TIMEOUT, command, run};
use crate::fetch::Fetcher;
use crate::task::Places;
use serde_json::{Map, Value};
use std::path::Path;
use ufo_desktop::Backend;
use ufo_desktop_atspi::HeadlessDesktop;

/// Everything a getter may read.
pub struct GetContext<'a> {
    /// The task's desktop.
    pub desktop: &'a HeadlessDesktop,
    /// A backend connected to it.
    pub backend: &'a dyn Backend,
    /// `$WORK` and `$SUITE`.
    pub places: &'a Places,
    /// Where copies of result files go.
    pub out: &'a Path,
    /// Downloads (`cloud_file`).
    pub fetcher: &'a Fetcher,
    /// The task's cache folder (`cache_file`, `execute`'s `stdout` files).
    pub cache: &'a Path,
    /// Pages the setup opened that the browser could not reach
    /// ([`crate::run::TaskResult::unreached`]).
    pub unreached: &'a [String],
}

/// Why a getter gave nothing a checker could be trusted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetError {
    /// A getter type (or form) this build lacks, or a getter the task file
    /// does not give what it needs: the task is `unsupported`.
    Unsupported(String),
    /// A file to download could not be had: the task is `unavailable`.
    Unavailable(String),
    /// The getter reads an account's files (Google Drive): `needs_account`.
    NeedsAccount(String),
}

/// Why OSWorld's getter `kind` is not done here, when it is one of those.
pub fn why_unsupported(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "content_from_vm_file" => {
            "content_from_vm_file types a spreadsheet's last row as pandas' DataFrame.astype(str) does; not reproduced"
        }
        "gotoRecreationPage_and_get_html_content" => {
            "gotoRecreationPage_and_get_html_content scripts clicks and a popup on the live recreation.gov site"
        }
        "extensions_installed_from_shop"
        | "chrome_saved_address"
        | "number_of_search_results"
        | "replay" => "this OSWorld getter is used by no task and not implemented",
        _ => return None,
    })
}

/// Getters that read what visiting a site leaves in the browser's profile:
/// without the visits (pages the setup could not reach) they read a state
/// the task never meant to start from (no cookie to delete scores as
/// deleted).
const SITE_STATE: &[&str] = &["cookie_data"];

/// Why getter `kind` cannot be trusted after the setup failed to reach
/// `unreached`; `None` when it can.
fn needs_visits(kind: &str, unreached: &[String]) -> Option<String> {
    (SITE_STATE.contains(&kind) && !unreached.is_empty()).then(|| {
        format!(
            "the getter {kind} reads what the setup's pages leave in the browser, and it could not reach {} (no network?)",
            unreached.join(", ")
        )
    })
}

/// Runs the getter `spec`. A missing file or a command that cannot run is
/// [`Got::Missing`] (it scores 0, as OSWorld's `None`); see [`GetError`]
/// for what is not.
pub async fn get(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    if let Some(why) = needs_visits(kind, cx.unreached) {
        return Err(GetError::Unavailable(why));
    }
    let profile = chrome::Profile {
        places: cx.places,
        out: cx.out,
    };
    if let Some(got) = chrome::profile_getter(&profile, spec) {
        return Ok(got);
    }
    Ok(match kind {
        "vm_file" => files::vm_file(cx, spec)?,
        "cloud_file" => files::cloud_file(cx, spec).await?,
        "local_file" | "cache_file" | "list_directory" => local(cx, kind, spec)?,
        "vm_command_line" | "vm_command_error" => command_output(cx, kind, spec).await?,
        "rule" => Got::Json(spec.get("rules").cloned().unwrap_or(Value::Null)),
        "rule_relativeTime" => {
            let rules = spec.get("rules").unwrap_or(&Value::Null);
            match relative::relative_rules(rules, relative::today()) {
                Ok(Some(r)) => Got::Json(r),
                Ok(None) => Got::Missing,
                Err(m) => return Err(GetError::Unsupported(m)),
            }
        }
        "time_diff_range" => apps::time_diff_range(spec),
        "accessibility_tree" => {
            let mut apps = a11y::capture(cx.backend).await;
            a11y::with_attributes(cx.backend, &mut apps).await;
            Got::Text(a11y::xml(&apps))
        }
        "vm_terminal_output" => {
            a11y::terminal_output(&a11y::capture(cx.backend).await).map_or(Got::Missing, Got::Text)
        }
        "active_url_from_accessTree" => {
            let apps = a11y::capture(cx.backend).await;
            a11y::address_bar_url(&apps, spec).map_or(Got::Missing, Got::Text)
        }
        "vlc_config" | "gimp_config_file" => files::config_file(cx, spec)?,
        "shortcuts_on_desktop" => files::shortcuts(cx),
        "audio_in_slide" | "background_image_in_slide" => slides::in_slide(cx, spec)?,
        "vscode_config" => apps::vscode_config(cx, spec).await?,
        "vlc_playing_info" => apps::vlc_status(cx, spec).await?,
        "default_video_player" => apps::default_video_player(cx).await,
        "vm_screen_size" => apps::screen_size(cx).await,
        "vm_window_size" => apps::window_size(cx, spec).await?,
        "vm_wallpaper" => apps::wallpaper(cx, spec).await?,
        "open_tabs_info" => tabs::open_tabs_info(cx).await,
        "active_tab_info" => tabs::active_tab_info(cx, spec).await,
        "page_info" => tabs::page_info(cx, spec).await?,
        "pdf_from_url" => tabs::pdf_from_url(cx, spec).await?,
        "active_tab_url_parse" => tabs::url_parse(cx, spec).await?,
        "url_dashPart" => tabs::url_dash_part(cx, spec).await?,
        "active_tab_html_parse" => pages::html_parse(cx, spec).await?,
        "info_from_website" => pages::info_from_website(cx, spec).await?,
        "content_from_vm_file" => files::content(cx, spec)?,
        "googledrive_file" => {
            return Err(GetError::NeedsAccount(
                "the getter googledrive_file reads a Google Drive account".into(),
            ));
        }
        other => {
            return Err(GetError::Unsupported(match why_unsupported(other) {
                Some(why) => format!("getter {other:?} is not supported: {why}"),
                None => format!("getter {other:?} is not supported"),
            }));
        }
    })
}

/// `local_file`, `cache_file`, `list_directory`.
fn local(cx: &GetContext<'_>, kind: &str, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let path = files::need(spec, "path")?;
    Ok(match kind {
        "local_file" => match cx.places.path(path) {
            p if p.is_file() => Got::File(p),
            _ => Got::Missing,
        },
        "cache_file" => match cx.cache.join(path) {
            f if f.is_file() => Got::File(f),
            _ => Got::Missing,
        },
        _ => match cx.places.path(path) {
            p if p.is_dir() => Got::Json(files::listing(&p, 0)),
            _ => Got::Missing,
        },
    })
}

/// `vm_command_line`, `vm_command_error`: the output of a command that
/// ran, whatever its exit code; nothing when it could not run or timed out.
async fn command_output(
    cx: &GetContext<'_>,
    kind: &str,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let cmd =
        command(spec, cx.places).map_err(|e| GetError::Unsupported(format!("{kind}: {e}")))?;
    Ok(
        match run(cx.desktop, cx.places, &cmd, COMMAND_TIMEOUT).await {
            Ok(out) if kind == "vm_command_line" => Got::Text(out.stdout),
            Ok(out) => Got::Text(out.stderr),
            Err(_) => Got::Missing,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::needs_visits;

    /// Cookies are trusted only when every page of the setup was reached;
    /// other getters whatever the pages did.
    #[test]
    fn cookies_need_the_pages_the_setup_opened() {
        let gone = ["https://www.example.com".to_owned()];
        let why = needs_visits("cookie_data", &gone).unwrap();
        assert!(why.contains("https://www.example.com"), "{why}");
        assert_eq!(needs_visits("cookie_data", &[]), None);
        assert_eq!(needs_visits("open_tabs_info", &gone), None);
        assert_eq!(needs_visits("history", &gone), None);
    }
}
