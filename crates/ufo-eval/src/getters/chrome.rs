//! Chrome getters that read its profile's files (OSWorld `chrome.py`):
//! `Preferences` and `Local State` (JSON), `Bookmarks`, the `History` and
//! `Cookies` databases (SQLite, read from a copy, as OSWorld copies them
//! off the VM). The profile is `~/.config/google-chrome` (where tasks
//! launch the browser, [`crate::chrome`]), else `~/.config/chromium`.
//!
//! Each getter answers what OSWorld's does when the file is missing or not
//! what it expects, including its fallbacks (`"Google"` from several
//! getters whose `except` branch returns it).

use crate::checkers::Got;
use crate::command::truthy;
use crate::task::Places;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// Where the profile getters read (the task's home) and copy to.
pub(super) struct Profile<'a> {
    /// The task's places.
    pub places: &'a Places,
    /// The task's output folder.
    pub out: &'a std::path::Path,
}

/// The JSON file `file` of the profile, parsed; `Err` where OSWorld's
/// `json.loads` (or reading the file) raises.
fn json_file(cx: &Profile<'_>, file: &str) -> Result<Value, ()> {
    let path = crate::chrome::profile_file(cx.places, file).ok_or(())?;
    let text = std::fs::read(path).map_err(|_| ())?;
    serde_json::from_slice(&text).map_err(|_| ())
}

/// Python's `d.get(key)` on a JSON value: `Err` when `d` is not a dict
/// (`.get` raises).
fn get<'a>(d: &'a Value, key: &str) -> Result<Option<&'a Value>, ()> {
    d.as_object().map(|m| m.get(key)).ok_or(())
}

/// `d.get(key, {})`.
fn get_or_empty<'a>(d: &'a Value, key: &str, empty: &'a Value) -> Result<&'a Value, ()> {
    Ok(get(d, key)?.unwrap_or(empty))
}

/// A JSON value as the getter returns it: a string as text.
fn got(v: Value) -> Got {
    match v {
        Value::String(s) => Got::Text(s),
        Value::Null => Got::Missing,
        v => Got::Json(v),
    }
}

fn flag(b: bool) -> Got {
    Got::Text(if b { "true" } else { "false" }.into())
}

/// The preference getters: `Ok` the answer, `Err` what OSWorld's
/// `except` branch returns.
fn preference(cx: &Profile<'_>, kind: &str) -> Result<Got, ()> {
    let empty = json!({});
    let prefs = || json_file(cx, "Default/Preferences");
    match kind {
        "default_search_engine" => {
            let p = prefs()?;
            let data = get_or_empty(&p, "default_search_provider_data", &empty)?;
            let url = get_or_empty(data, "template_url_data", &empty)?;
            Ok(got(get(url, "short_name")?
                .cloned()
                .unwrap_or_else(|| json!("Google"))))
        }
        "enabled_experiments" => {
            let s = json_file(cx, "Local State")?;
            let b = get_or_empty(&s, "browser", &empty)?;
            Ok(Got::Json(
                get(b, "enabled_labs_experiments")?
                    .cloned()
                    .unwrap_or(json!([])),
            ))
        }
        "chrome_language" => {
            let s = json_file(cx, "Local State")?;
            let intl = get_or_empty(&s, "intl", &empty)?;
            Ok(got(get(intl, "app_locale")?
                .cloned()
                .unwrap_or(json!("en-US"))))
        }
        "profile_name" => {
            let p = prefs()?;
            Ok(got(get(get_or_empty(&p, "profile", &empty)?, "name")?
                .cloned()
                .unwrap_or(Value::Null)))
        }
        "chrome_font_size" => {
            let p = prefs()?;
            let webkit = get_or_empty(&p, "webkit", &empty)?;
            let default = json!({"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13});
            Ok(got(get(webkit, "webprefs")?.cloned().unwrap_or(default)))
        }
        "enable_do_not_track" => Ok(flag(truthy(get(&prefs()?, "enable_do_not_track")?))),
        "enable_enhanced_safety_browsing" => {
            let p = prefs()?;
            Ok(flag(truthy(get(
                get_or_empty(&p, "safebrowsing", &empty)?,
                "enhanced",
            )?)))
        }
        "new_startup_page" => {
            let p = prefs()?;
            match get(&p, "session")? {
                None => Ok(flag(true)),
                Some(s) => Ok(flag(get(s, "restore_on_startup")? == Some(&json!(5)))),
            }
        }
        "find_unpacked_extension_path" | "find_installed_extension_name" => {
            let p = prefs()?;
            let settings =
                get_or_empty(get_or_empty(&p, "extensions", &empty)?, "settings", &empty)?;
            let all = settings.as_object().ok_or(())?;
            let pick = |e: &Value| match kind {
                "find_unpacked_extension_path" => get(e, "path").ok().flatten().cloned(),
                _ => get(e, "manifest")
                    .ok()
                    .flatten()
                    .and_then(|m| get(m, "name").ok().flatten().cloned()),
            };
            // A missing key raises (`all_extensions[id]["path"]`).
            let list: Option<Vec<Value>> = all.values().map(pick).collect();
            Ok(Got::Json(Value::Array(list.ok_or(())?)))
        }
        "data_delete_automacally" => {
            let p = prefs()?;
            let profile = p.get("profile").ok_or(())?;
            Ok(flag(
                get(profile, "default_content_setting_values")?.is_some_and(|v| !v.is_null()),
            ))
        }
        _ => Err(()),
    }
}

/// What OSWorld's getter returns when reading fails.
fn fallback(kind: &str) -> Got {
    match kind {
        "enabled_experiments" => Got::Json(json!([])),
        "chrome_language" => Got::Text("en-US".into()),
        "profile_name" => Got::Missing,
        "chrome_font_size" => {
            Got::Json(json!({"default_fixed_font_size": 13, "default_font_size": 16}))
        }
        "enable_do_not_track" => Got::Text("false".into()),
        _ => Got::Text("Google".into()),
    }
}

/// The rows of `sql` in a copy of the profile's database `file` (the first
/// of `file`s found), each a list of its columns; nothing when the file
/// is missing or the query fails (OSWorld logs and returns `None`).
fn rows(cx: &Profile<'_>, files: &[&str], dest: &str, sql: &str) -> Got {
    let Some(src) = files
        .iter()
        .find_map(|f| crate::chrome::profile_file(cx.places, f))
    else {
        return Got::Missing;
    };
    let _ = std::fs::create_dir_all(cx.out);
    let copy: PathBuf = cx
        .out
        .join(super::files::dest_name(Some(dest.to_owned()), &src));
    if std::fs::copy(&src, &copy).is_err() {
        return Got::Missing;
    }
    match query(&copy, sql) {
        Ok(rows) => Got::Json(Value::Array(rows)),
        Err(_) => Got::Missing,
    }
}

fn query(db: &std::path::Path, sql: &str) -> rusqlite::Result<Vec<Value>> {
    use rusqlite::types::ValueRef;
    let conn = rusqlite::Connection::open(db)?;
    let mut stmt = conn.prepare(sql)?;
    let n = stmt.column_count();
    let mut out = Vec::new();
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let row: Vec<Value> = (0..n)
            .map(|i| match r.get_ref(i) {
                Ok(ValueRef::Integer(v)) => json!(v),
                Ok(ValueRef::Real(v)) => json!(v),
                Ok(ValueRef::Text(t)) => json!(String::from_utf8_lossy(t)),
                // Python's `bytes`: here as a list of byte values.
                Ok(ValueRef::Blob(b)) => json!(b),
                Ok(ValueRef::Null) | Err(_) => Value::Null,
            })
            .collect();
        out.push(Value::Array(row));
    }
    Ok(out)
}

/// The profile getters; `None` for a type this module does not have.
pub(super) fn profile_getter(cx: &Profile<'_>, spec: &Map<String, Value>) -> Option<Got> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let dest = spec.get("dest").and_then(Value::as_str);
    Some(match kind {
        "cookie_data" => rows(
            cx,
            &["Default/Cookies", "Default/Network/Cookies"],
            dest.unwrap_or("Cookies"),
            "SELECT * FROM cookies",
        ),
        "history" => rows(
            cx,
            &["Default/History"],
            dest.unwrap_or("History"),
            "SELECT url, title, last_visit_time FROM urls",
        ),
        "bookmarks" => match crate::chrome::profile_file(cx.places, "Default/Bookmarks")
            .and_then(|p| std::fs::read(p).ok())
        {
            None => Got::Json(json!([])),
            Some(b) if b.is_empty() => Got::Json(json!([])),
            Some(b) => match serde_json::from_slice::<Value>(&b) {
                Ok(v) => match get(&v, "roots") {
                    Ok(r) => Got::Json(r.cloned().unwrap_or(json!({}))),
                    Err(()) => Got::Missing,
                },
                Err(_) => Got::Missing,
            },
        },
        "default_search_engine"
        | "enabled_experiments"
        | "chrome_language"
        | "profile_name"
        | "chrome_font_size"
        | "enable_do_not_track"
        | "enable_enhanced_safety_browsing"
        | "new_startup_page"
        | "find_unpacked_extension_path"
        | "find_installed_extension_name"
        | "data_delete_automacally" => preference(cx, kind).unwrap_or_else(|()| fallback(kind)),
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A task's places and output folder inside `dir`.
    fn places_in(dir: &std::path::Path) -> (Places, std::path::PathBuf) {
        let places = Places {
            work: dir.join("w"),
            suite: dir.into(),
            home: None,
        };
        (places, dir.join("out"))
    }

    fn spec(kind: &str) -> Map<String, Value> {
        json!({"type": kind, "dest": "x"})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn preferences_are_read_with_osworlds_fallbacks() {
        let dir = tempfile::tempdir().unwrap();
        let (places, out) = places_in(dir.path());
        let cx = Profile {
            places: &places,
            out: &out,
        };
        let get = |k: &str| profile_getter(&cx, &spec(k)).unwrap();
        // No profile at all: OSWorld's except branches.
        assert_eq!(get("default_search_engine"), Got::Text("Google".into()));
        assert_eq!(get("enabled_experiments"), Got::Json(json!([])));
        assert_eq!(get("enable_do_not_track"), Got::Text("false".into()));
        assert_eq!(get("bookmarks"), Got::Json(json!([])));
        assert_eq!(get("history"), Got::Missing);
        assert!(profile_getter(&cx, &spec("vm_file")).is_none());
        // Chromium's own profile is read when Chrome's is absent.
        let prof = places.work.join(".config/chromium/Default");
        std::fs::create_dir_all(&prof).unwrap();
        std::fs::write(prof.join("Preferences"), json!({
            "default_search_provider_data": {"template_url_data": {"short_name": "Bing"}},
            "profile": {"name": "Thomas", "default_content_setting_values": {}},
            "enable_do_not_track": true,
            "session": {"restore_on_startup": 4},
            "webkit": {"webprefs": {"default_font_size": 20}},
            "extensions": {"settings": {"abc": {"path": "/home/user/ext", "manifest": {"name": "Ext"}}}}
        }).to_string()).unwrap();
        assert_eq!(get("default_search_engine"), Got::Text("Bing".into()));
        assert_eq!(get("profile_name"), Got::Text("Thomas".into()));
        assert_eq!(get("enable_do_not_track"), Got::Text("true".into()));
        assert_eq!(
            get("enable_enhanced_safety_browsing"),
            Got::Text("false".into())
        );
        assert_eq!(get("new_startup_page"), Got::Text("false".into()));
        assert_eq!(get("data_delete_automacally"), Got::Text("true".into()));
        assert_eq!(
            get("chrome_font_size"),
            Got::Json(json!({"default_font_size": 20}))
        );
        assert_eq!(
            get("find_unpacked_extension_path"),
            Got::Json(json!(["/home/user/ext"]))
        );
        assert_eq!(
            get("find_installed_extension_name"),
            Got::Json(json!(["Ext"]))
        );
        // Chrome's profile wins over Chromium's; a broken file falls back.
        let chrome = places.work.join(".config/google-chrome/Default");
        std::fs::create_dir_all(&chrome).unwrap();
        std::fs::write(chrome.join("Preferences"), "{not json").unwrap();
        assert_eq!(get("default_search_engine"), Got::Text("Google".into()));
        assert_eq!(get("new_startup_page"), Got::Text("Google".into()));
        std::fs::write(
            chrome.join("Bookmarks"),
            r#"{"roots": {"bookmark_bar": {"children": []}}}"#,
        )
        .unwrap();
        assert_eq!(
            get("bookmarks"),
            Got::Json(json!({"bookmark_bar": {"children": []}}))
        );
    }

    #[test]
    fn databases_are_read_from_a_copy_as_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (places, out) = places_in(dir.path());
        let cx = Profile {
            places: &places,
            out: &out,
        };
        let prof = places.work.join(".config/google-chrome/Default/Network");
        std::fs::create_dir_all(&prof).unwrap();
        let c = rusqlite::Connection::open(prof.join("Cookies")).unwrap();
        c.execute_batch(
            "CREATE TABLE cookies(creation_utc INTEGER, host_key TEXT, name TEXT, value BLOB);
            INSERT INTO cookies VALUES (1, '.example.com', 'a', x'0102');",
        )
        .unwrap();
        drop(c);
        assert_eq!(
            profile_getter(&cx, &spec("cookie_data")).unwrap(),
            Got::Json(json!([[1, ".example.com", "a", [1, 2]]]))
        );
        assert!(out.join("x").is_file());
    }
}
