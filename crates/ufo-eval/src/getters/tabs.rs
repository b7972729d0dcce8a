//! Chrome getters that ask the running browser over its DevTools protocol
//! ([`crate::cdp`]) where OSWorld drives it with Playwright: the open
//! tabs, the active tab (whose URL OSWorld reads from the address bar in
//! the accessibility tree, [`super::a11y::address_bar_url`]), a page's
//! content, a page as PDF, text from a website.
//!
//! Playwright's calls and what stands in for them: `page.title()`,
//! `page.url`, `page.content()` → `document.title`, `location.href`, the
//! doctype and `outerHTML`; `wait_for_load_state` → `document.readyState`
//! is `complete` (a page that does not get there in 30 s is what a
//! Playwright timeout gives); `page.goto` to a page that cannot load (an
//! error page) raises, as Playwright's does; `new_page` + `goto` →
//! `/json/new?URL` (the tab stays open, as OSWorld's does); `click` → a
//! mouse press and release at the element's centre after scrolling it into
//! view; `page.pdf` → `Page.printToPDF` with Playwright's defaults (Letter,
//! no margins, no backgrounds).

use super::a11y::{address_bar_url, capture};
use super::files::need;
use super::{GetContext, GetError};
use crate::cdp::{Cdp, Page, Tab};
use crate::checkers::Got;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// How long a page may take to load (Playwright's default timeout).
const LOAD: Duration = Duration::from_secs(30);

/// The browser, found at once.
async fn connect(cx: &GetContext<'_>) -> Option<Cdp> {
    Cdp::find(&crate::chrome::profiles(cx.places), Duration::from_secs(2))
        .await
        .ok()
}

/// The browser; when none answers, started as OSWorld's getters start it
/// (`google-chrome --remote-debugging-port=1337`, then 5 s) and tried again.
async fn connect_or_launch(cx: &GetContext<'_>) -> Option<Cdp> {
    if let Some(c) = connect(cx).await {
        return Some(c);
    }
    let cmd = crate::command::Cmd::Words(vec![
        "google-chrome".into(),
        "--remote-debugging-port=1337".into(),
    ]);
    let (crate::command::Cmd::Words(words), note) = crate::chrome::browser_command(&cmd, cx.places)
    else {
        return None;
    };
    if let Some(n) = note {
        tracing::warn!("a getter starts the browser: {n}");
    }
    let _ = cx.desktop.launch(&words, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    Cdp::find(&crate::chrome::profiles(cx.places), Duration::from_secs(10))
        .await
        .ok()
}

/// The tabs in Playwright's order (the oldest first).
async fn tabs_oldest_first(cdp: &Cdp) -> Vec<Tab> {
    let mut tabs = cdp.tabs().await.unwrap_or_default();
    tabs.reverse();
    tabs
}

/// A new tab showing `url`, loaded; `None` where Playwright's `goto`
/// raises (the page cannot load, or does not within 30 s).
pub(super) async fn goto(cdp: &Cdp, url: &str) -> Option<Page> {
    let tab = cdp.new_tab(url).await.ok()?;
    let mut page = Page::open(&tab).await.ok()?;
    if !page.wait_navigated(url, LOAD).await {
        return None;
    }
    let href = page.eval("location.href").await.ok()?;
    (!href
        .as_str()
        .unwrap_or_default()
        .starts_with("chrome-error://"))
    .then_some(page)
}

/// `open_tabs_info`: `[{title, url}]` of every tab, each waited for;
/// one that does not load is `Error encountered` (Playwright's timeout
/// is not Python's `TimeoutError`, so OSWorld's generic branch names it).
pub(super) async fn open_tabs_info(cx: &GetContext<'_>) -> Got {
    let Some(cdp) = connect_or_launch(cx).await else {
        return Got::Json(json!([]));
    };
    let mut out = Vec::new();
    for tab in tabs_oldest_first(&cdp).await {
        let title = match Page::open(&tab).await {
            Ok(mut p) => match p.wait_load(LOAD).await {
                true => p.eval("document.title").await.ok(),
                false => None,
            },
            Err(_) => None,
        };
        let title = title.unwrap_or_else(|| json!("Error encountered"));
        out.push(json!({"title": title, "url": tab.url}));
    }
    Got::Json(Value::Array(out))
}

/// The active tab's URL from the address bar (`goto_prefix` before it).
async fn active_url(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Option<String> {
    address_bar_url(&capture(cx.backend).await, spec)
}

/// `active_tab_info`: the active tab's URL opened in a new tab, and its
/// `{title, url, content}`.
pub(super) async fn active_tab_info(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Got {
    let Some(url) = active_url(cx, spec).await else {
        return Got::Missing;
    };
    let Some(cdp) = connect(cx).await else {
        return Got::Missing;
    };
    info_of(&cdp, &url).await
}

/// `{title, url, content}` of `url` opened in a new tab.
async fn info_of(cdp: &Cdp, url: &str) -> Got {
    match goto(cdp, url).await {
        Some(mut page) => page.info().await.map_or(Got::Missing, Got::Json),
        None => Got::Missing,
    }
}

/// `page_info`: `url` opened in a new tab, and its `{title, url, content}`.
pub(super) async fn page_info(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let url = need(spec, "url")?;
    let Some(cdp) = connect_or_launch(cx).await else {
        return Ok(Got::Missing);
    };
    Ok(info_of(&cdp, url).await)
}

/// `pdf_from_url`: the page at `path` printed to `dest`.
pub(super) async fn pdf_from_url(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    use base64::Engine as _;
    let (url, dest) = (need(spec, "path")?, need(spec, "dest")?);
    let dest = cx
        .out
        .join(super::files::dest_name(Some(dest.to_owned()), "".as_ref()));
    let Some(cdp) = connect_or_launch(cx).await else {
        return Ok(Got::Missing);
    };
    let Some(mut page) = goto(&cdp, url).await else {
        return Ok(Got::Missing);
    };
    let params = json!({"paperWidth": 8.5, "paperHeight": 11, "marginTop": 0, "marginBottom": 0,
        "marginLeft": 0, "marginRight": 0, "printBackground": false, "preferCSSPageSize": false});
    let Ok(r) = page.call("Page.printToPDF", params).await else {
        return Ok(Got::Missing);
    };
    let data = r.get("data").and_then(Value::as_str).unwrap_or_default();
    let _ = std::fs::create_dir_all(cx.out);
    Ok(
        match base64::engine::general_purpose::STANDARD.decode(data) {
            Ok(bytes) => match std::fs::write(&dest, bytes) {
                Ok(()) => Got::File(dest),
                Err(_) => Got::Missing,
            },
            Err(_) => Got::Missing,
        },
    )
}

/// Python's `urllib.parse.unquote` (`%XX` decoded as UTF-8, invalid bytes
/// replaced; `+` kept).
pub(super) fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `active_tab_url_parse`: `parse_keys` of the active URL's query (each
/// key's first non-empty value, `''` when absent), renamed by `replace`.
pub(super) async fn url_parse(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let keys = spec
        .get("parse_keys")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            GetError::Unsupported("active_tab_url_parse needs `parse_keys` (a list)".into())
        })?;
    let Some(url) = active_url(cx, spec).await else {
        return Ok(Got::Missing);
    };
    Ok(parse_query(&url, keys, spec.get("replace")).map_or(Got::Missing, Got::Json))
}

/// The query parameters `keys` of `url` as OSWorld's `parse_qs` gives
/// them; `None` where OSWorld raises (a `replace` key not parsed).
pub(super) fn parse_query(url: &str, keys: &[Value], replace: Option<&Value>) -> Option<Value> {
    let no_fragment = url.split('#').next().unwrap_or_default();
    let query = no_fragment
        .split_once('?')
        .map(|(_, q)| q)
        .unwrap_or_default();
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut out = Map::new();
    for k in keys {
        let k = k.as_str()?;
        let v = pairs
            .iter()
            .find(|(pk, _)| pk == k)
            .map_or("", |(_, v)| v.as_str());
        out.insert(k.to_owned(), Value::String(v.to_owned()));
    }
    if let Some(Value::Object(r)) = replace {
        for (old, new) in r {
            let v = out.remove(old)?;
            out.insert(new.as_str()?.to_owned(), v);
        }
    }
    Some(Value::Object(out))
}

/// `url_dashPart`: the `partIndex`-th `/`-separated part of the active
/// URL (Python indexing), cut at `?` with `needDeleteId`, as a string or
/// `{key: part}` (`returnType`).
pub(super) async fn url_dash_part(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let index = spec
        .get("partIndex")
        .and_then(Value::as_i64)
        .ok_or_else(|| GetError::Unsupported("url_dashPart needs `partIndex` (a number)".into()))?;
    let Some(url) = active_url(cx, spec).await else {
        return Ok(Got::Missing);
    };
    Ok(dash_part(&url, index, spec))
}

/// [`url_dash_part`] on a URL.
pub(super) fn dash_part(url: &str, index: i64, spec: &Map<String, Value>) -> Got {
    let parts: Vec<&str> = url.split('/').collect();
    let i = if index < 0 {
        parts.len() as i64 + index
    } else {
        index
    };
    let Some(part) = usize::try_from(i).ok().and_then(|i| parts.get(i)) else {
        return Got::Missing;
    };
    let mut part = (*part).to_owned();
    if crate::command::truthy(spec.get("needDeleteId")) {
        part = part.split('?').next().unwrap_or_default().to_owned();
    }
    match spec.get("returnType").and_then(Value::as_str) {
        Some("string") => Got::Text(part),
        Some("json") => match spec.get("key").and_then(Value::as_str) {
            Some(k) => Got::Json(json!({ k: part })),
            None => Got::Missing,
        },
        _ => Got::Missing,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn active_urls_are_parsed_as_osworld_does() {
        assert_eq!(unquote("a%20b%2Fc+d%zz%E2%82%AC"), "a b/c+d%zz€");
        let keys = vec![json!("q"), json!("tbm"), json!("none")];
        let got = parse_query(
            "https://x.com/s?q=rust+lang&tbm=&tbm=isch#frag",
            &keys,
            None,
        )
        .unwrap();
        assert_eq!(got, json!({"q": "rust lang", "tbm": "isch", "none": ""}));
        let got = parse_query(
            "https://x.com/?q=a",
            &[json!("q")],
            Some(&json!({"q": "query"})),
        )
        .unwrap();
        assert_eq!(got, json!({"query": "a"}));
        assert_eq!(
            parse_query("https://x.com/", &[json!("q")], Some(&json!({"z": "y"}))),
            None
        );
        let spec = |v: Value| v.as_object().unwrap().clone();
        let url = "https://www.example.com/products/shoes-123?id=9";
        assert_eq!(
            dash_part(
                url,
                -1,
                &spec(json!({"needDeleteId": true, "returnType": "string"}))
            ),
            Got::Text("shoes-123".into())
        );
        assert_eq!(
            dash_part(url, 3, &spec(json!({"returnType": "json", "key": "k"}))),
            Got::Json(json!({"k": "products"}))
        );
        assert_eq!(
            dash_part(url, 9, &spec(json!({"returnType": "string"}))),
            Got::Missing
        );
    }
}
