//! Getters that read a web page's elements over the DevTools protocol:
//! `active_tab_html_parse` (elements of the tab showing the active URL)
//! and `info_from_website` (elements of a page opened for it, with its
//! `backups` when that fails, as OSWorld).

use super::tabs::unquote;
use super::{GetContext, GetError};
use crate::cdp::{Cdp, Page};
use crate::checkers::{Got, py_space};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Python's `str.strip()`.
fn strip(s: &str) -> String {
    s.trim_matches(py_space).to_owned()
}

/// A JavaScript string literal of `s`.
fn js(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// The `textContent` of every element `css` selects (Playwright's
/// `query_selector_all` + `text_content`), stripped.
async fn texts(page: &mut Page, css: &str) -> Result<Vec<String>, String> {
    let expr = format!(
        "Array.from(document.querySelectorAll({})).map(e => e.textContent)",
        js(css)
    );
    let v = page.eval(&expr).await.map_err(|e| e.to_string())?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .map(|t| strip(t.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default())
}

/// The first node `xpath` selects: its `textContent` (or an input's
/// `value`), stripped; `None` when it selects nothing.
async fn by_xpath(page: &mut Page, xpath: &str, input: bool) -> Result<Option<String>, String> {
    let read = if input { "n.value" } else { "n.textContent" };
    let expr = format!(
        "(() => {{ const n = document.evaluate({}, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; return n === null ? null : String({read} ?? ''); }})()",
        js(xpath)
    );
    let v = page.eval(&expr).await.map_err(|e| e.to_string())?;
    Ok(v.as_str().map(strip))
}

/// `active_tab_html_parse`: for the tab whose URL (unquoted) is the active
/// URL's, the texts `category` (`class`, `xpath`, `input`) asks for, by
/// the keys the task names; `{}` when no tab shows it. `label` (Playwright's
/// `text=` selector, used by no task) is unsupported.
pub(super) async fn html_parse(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let category = super::files::need(spec, "category")?;
    if category == "label" {
        return Err(GetError::Unsupported(
            "active_tab_html_parse with category `label` (Playwright's text selector) is not supported".into(),
        ));
    }
    let Some(url) = super::a11y::address_bar_url(&super::a11y::capture(cx.backend).await, spec)
    else {
        return Ok(Got::Missing);
    };
    let Some(cdp) = Cdp::find(&crate::chrome::profiles(cx.places), Duration::from_secs(2))
        .await
        .ok()
    else {
        return Ok(Got::Missing);
    };
    let mut tabs = cdp.tabs().await.unwrap_or_default();
    tabs.reverse();
    let mut target = None;
    for t in tabs {
        let Ok(mut page) = Page::open(&t).await else {
            continue;
        };
        page.wait_load(Duration::from_secs(30)).await;
        if unquote(&t.url) == unquote(&url) {
            target = Some(page);
            break;
        }
    }
    let Some(mut page) = target else {
        return Ok(Got::Json(json!({})));
    };
    Ok(parse(&mut page, category, spec)
        .await
        .map_or(Got::Missing, |m| Got::Json(Value::Object(m))))
}

fn object<'a>(
    spec: &'a Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = (&'a String, &'a Value)> {
    spec.get(key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// The texts of one category; an error where Playwright raises.
async fn parse(
    page: &mut Page,
    category: &str,
    spec: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    match category {
        "class" => {
            for (class, orders) in object(spec, "class_multiObject") {
                let t = texts(page, &format!(".{class}")).await?;
                for (order, key) in orders.as_object().into_iter().flatten() {
                    let i: usize = order
                        .trim()
                        .parse()
                        .map_err(|_| format!("{order:?} is not an index"))?;
                    if let (Some(text), Some(key)) = (t.get(i), key.as_str()) {
                        out.insert(key.to_owned(), json!(text));
                    }
                }
            }
            for (class, key) in object(spec, "class_singleObject") {
                let t = texts(page, &format!(".{class}")).await?;
                if let (Some(text), Some(key)) = (t.first(), key.as_str()) {
                    out.insert(key.to_owned(), json!(text));
                }
            }
        }
        "xpath" | "input" => {
            let key = if category == "xpath" {
                "xpathObject"
            } else {
                "inputObject"
            };
            for (xpath, key) in object(spec, key) {
                if let (Some(text), Some(key)) = (
                    by_xpath(page, xpath, category == "input").await?,
                    key.as_str(),
                ) {
                    out.insert(key.to_owned(), json!(text));
                }
            }
        }
        _ => {}
    }
    Ok(out)
}

/// Waits (at most 10 s) until `css` selects an element; whether it did.
async fn attached(page: &mut Page, css: &str) -> bool {
    let expr = format!("document.querySelector({}) !== null", js(css));
    for _ in 0..50 {
        if page.eval(&expr).await.ok() == Some(Value::Bool(true)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

/// A mouse click at the centre of the element `css` selects.
async fn click(page: &mut Page, css: &str) -> Result<(), String> {
    let expr = format!(
        "(() => {{ const e = document.querySelector({}); e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
        js(css)
    );
    let at = page.eval(&expr).await.map_err(|e| e.to_string())?;
    let (x, y) = (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0));
    for kind in ["mousePressed", "mouseReleased"] {
        let p = json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1});
        page.call("Input.dispatchMouseEvent", p)
            .await
            .map_err(|e| e.to_string())?;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    page.wait_load(Duration::from_secs(30)).await;
    Ok(())
}

/// One `infos` entry of `info_from_website`.
async fn one_info(page: &mut Page, info: &Map<String, Value>) -> Result<Value, String> {
    let action = info
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("inner_text");
    let selectors: Vec<String> = match info.get("selector") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return Err("`selector` is missing".into()),
    };
    let (last, before) = selectors.split_last().ok_or("`selector` is empty")?;
    if action.starts_with("click_and_") {
        for s in before {
            if !attached(page, s).await {
                return Err(format!("{s} is not on the page"));
            }
            click(page, s).await?;
        }
    }
    if !attached(page, last).await {
        return Err(format!("{last} is not on the page"));
    }
    let read = match action {
        "inner_text" | "click_and_inner_text" => "e.innerText".to_owned(),
        "attribute" | "click_and_attribute" => {
            let a = info
                .get("attribute")
                .and_then(Value::as_str)
                .ok_or("`attribute` is missing")?;
            format!("e.getAttribute({})", js(a))
        }
        other => return Err(format!("the action {other} is not supported")),
    };
    let expr = format!(
        "(() => {{ const e = document.querySelector({}); return {read}; }})()",
        js(last)
    );
    page.eval(&expr).await.map_err(|e| e.to_string())
}

/// `info_from_website`: `url` opened in a new tab and each of `infos`
/// read from it (the page reopened when a click left it); any failure
/// gives `backups` (nothing without them).
pub(super) async fn info_from_website(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let url = super::files::need(spec, "url")?;
    let backups = || spec.get("backups").cloned().map_or(Got::Missing, Got::Json);
    let Some(cdp) = Cdp::find(&crate::chrome::profiles(cx.places), Duration::from_secs(2))
        .await
        .ok()
    else {
        return Ok(backups());
    };
    let Some(mut page) = super::tabs::goto(&cdp, url).await else {
        return Ok(backups());
    };
    let mut out = Vec::new();
    for info in spec
        .get("infos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(info) = info.as_object() else {
            return Ok(backups());
        };
        if page
            .eval("location.href")
            .await
            .ok()
            .as_ref()
            .and_then(Value::as_str)
            != Some(url)
        {
            let _ = page.call("Page.navigate", json!({"url": url})).await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            page.wait_load(Duration::from_secs(30)).await;
        }
        match one_info(&mut page, info).await {
            Ok(v) => out.push(v),
            Err(e) => {
                tracing::info!("info_from_website: {e}; its backups are used");
                return Ok(backups());
            }
        }
    }
    Ok(Got::Json(Value::Array(out)))
}
