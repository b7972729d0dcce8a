//! Browser checkers over tab URLs (OSWorld `chrome.py`): regex patterns in
//! the active tab's URL, the active tab's URL and the open tabs' URLs
//! compared the way OSWorld's `compare_urls` normalises them.
//!
//! `compare_urls` parses with Python's `urllib.parse.urlparse` (a missing
//! scheme becomes `http://`), keeps only the registrable domain and its
//! subdomains (tldextract with the ICANN section of the Public Suffix List:
//! the suffix itself is dropped, so `airbnb.com` and `airbnb.com.sg` are
//! equal, and a lone `www` subdomain is dropped), drops a path of just `/`,
//! and compares the reassembled strings.

use serde_json::Value;

use super::text::compile;
use super::{CheckError, Cx, Got, py_space, py_truthy};

/// The result as OSWorld's Python sees it: a file as its path.
fn result_value(cx: &Cx<'_>) -> Value {
    match cx.result {
        Got::Missing => Value::Null,
        Got::Text(t) => Value::String(t.clone()),
        Got::File(p) => Value::String(p.display().to_string()),
        Got::Json(v) => v.clone(),
    }
}

/// `is_expected_url_pattern_match`: the URL (a string, or an object's
/// `url`) matches every regex of `rules.expected` (Python `re.search`; a
/// string of patterns is taken one character at a time, as Python iterates
/// it). An empty result or another shape scores 0.
pub(super) fn is_expected_url_pattern_match(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let result = result_value(cx);
    if !py_truthy(&result) {
        return Ok(0.0);
    }
    let url = match &result {
        Value::String(s) => s.clone(),
        Value::Object(m) => match m.get("url") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(cx.bad(format!("the result's url is not a string: {other}")));
            }
            None => return Ok(0.0),
        },
        _ => return Ok(0.0),
    };
    let rules = cx.rules()?;
    let patterns: Vec<String> = match rules.get("expected") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|p| {
                p.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| cx.bad("rules.expected must hold regex strings"))
            })
            .collect::<Result<_, _>>()?,
        Some(Value::String(s)) => s.chars().map(String::from).collect(),
        Some(_) => return Err(cx.bad("rules.expected must be a list of regexes")),
        None => return Err(cx.bad("rules have no \"expected\" entry")),
    };
    for p in &patterns {
        if !compile(cx, p)?.is_match(&url) {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// The result and the rules of a check by URL: `None` (a score of 0) when
/// the result is empty or `rules.type` is not `url`, as OSWorld's tab
/// checks return 0 then.
fn url_rules<'c>(cx: &'c Cx<'_>) -> Result<Option<(Value, &'c Value)>, CheckError> {
    let result = result_value(cx);
    if !py_truthy(&result) {
        return Ok(None);
    }
    let rules = cx.rules()?;
    Ok((rule_str(cx, rules, "type")? == Some("url")).then_some((result, rules)))
}

/// `is_expected_active_tab`: with `rules.type` `url`, the active tab's URL
/// (a string, or an object's `url`) equals `rules.url` under
/// `compare_urls`. Another type scores 0; an empty result scores 0.
pub(super) fn is_expected_active_tab(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((result, rules)) = url_rules(cx)? else {
        return Ok(0.0);
    };
    let expected = rules
        .get("url")
        .ok_or_else(|| cx.bad("rules have no \"url\""))?;
    let actual = match &result {
        Value::Object(m) => m.get("url").unwrap_or(&Value::Null),
        other => other,
    };
    Ok(f64::from(u8::from(url_eq(cx, expected, actual)?)))
}

/// `is_expected_tabs`: with `rules.type` `url`, the open tabs (a list of
/// objects with `url`) and `rules.urls` have the same length and each
/// expected URL equals some open tab's under `compare_urls`.
pub(super) fn is_expected_tabs(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((result, rules)) = url_rules(cx)? else {
        return Ok(0.0);
    };
    let expected = rules
        .get("urls")
        .and_then(Value::as_array)
        .ok_or_else(|| cx.bad("rules.urls must be a list"))?;
    let tabs = result
        .as_array()
        .ok_or_else(|| cx.bad("the open tabs must be a list"))?;
    let actual = tabs
        .iter()
        .map(|t| {
            t.get("url")
                .ok_or_else(|| cx.bad("each open tab needs a \"url\""))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if expected.len() != actual.len() {
        return Ok(0.0);
    }
    for e in expected {
        let mut found = false;
        for a in &actual {
            if url_eq(cx, e, a)? {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `is_expected_bookmarks`: Chrome's bookmarks (`{"bookmark_bar":
/// {"children": [...]}}`) against `rules.type`: `bookmark_bar_folders_names`
/// (the bar's folder names equal `rules.names` as sets),
/// `bookmark_bar_websites_urls` (the bar's URLs equal `rules.urls` as
/// sets) or `liked_authors_websites_urls` (the URLs in the bar's folder
/// "Liked Authors" equal, as a set, one choice per entry of `rules.urls`,
/// an entry being a URL or a list of alternatives). Another type is
/// refused, as OSWorld's function raises on it.
pub(super) fn is_expected_bookmarks(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let result = result_value(cx);
    if !py_truthy(&result) {
        return Ok(0.0);
    }
    let rules = cx.rules()?;
    let children = || -> Result<Vec<&Value>, CheckError> {
        result
            .get("bookmark_bar")
            .and_then(|b| b.get("children"))
            .and_then(Value::as_array)
            .map(|c| c.iter().collect())
            .ok_or_else(|| cx.bad("bookmarks without bookmark_bar.children"))
    };
    let field = |b: &Value, k: &str| -> Result<Value, CheckError> {
        b.get(k)
            .cloned()
            .ok_or_else(|| cx.bad(format!("a bookmark without {k:?}")))
    };
    // Items of `kind` among `items`, by `key`, as Python's set of them.
    let of_kind = |items: &[&Value], kind: &str, key: &str| -> Result<Vec<Value>, CheckError> {
        let mut out = Vec::new();
        for b in items {
            if field(b, "type")? == Value::String(kind.to_owned()) {
                out.push(field(b, key)?);
            }
        }
        Ok(out)
    };
    let as_set = |v: &[Value]| {
        let mut s: Vec<String> = v.iter().map(Value::to_string).collect();
        s.sort();
        s.dedup();
        s
    };
    let wanted = |key: &str| -> Result<Vec<Value>, CheckError> {
        rules
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| cx.bad(format!("rules.{key} must be a list")))
    };
    match rules.get("type").and_then(Value::as_str) {
        Some("bookmark_bar_folders_names") => {
            let got = of_kind(&children()?, "folder", "name")?;
            Ok(f64::from(u8::from(as_set(&got) == as_set(&wanted("names")?))))
        }
        Some("bookmark_bar_websites_urls") => {
            let got = of_kind(&children()?, "url", "url")?;
            Ok(f64::from(u8::from(as_set(&got) == as_set(&wanted("urls")?))))
        }
        Some("liked_authors_websites_urls") => {
            let items = children()?;
            let mut folder = None;
            for b in &items {
                if field(b, "type")? == "folder" && b.get("name").and_then(Value::as_str) == Some("Liked Authors") {
                    folder = Some(*b);
                    break;
                }
            }
            let Some(folder) = folder else {
                return Ok(0.0);
            };
            let inner: Vec<&Value> = folder
                .get("children")
                .and_then(Value::as_array)
                .ok_or_else(|| cx.bad("the Liked Authors folder has no children list"))?
                .iter()
                .collect();
            let liked = as_set(&of_kind(&inner, "url", "url")?);
            let choices: Vec<Vec<Value>> = wanted("urls")?
                .into_iter()
                .map(|u| match u {
                    Value::Array(alts) => alts,
                    other => vec![other],
                })
                .collect();
            // Every combination of one choice per entry (Python's product).
            let mut combos: Vec<Vec<Value>> = vec![Vec::new()];
            for alts in &choices {
                combos = combos
                    .iter()
                    .flat_map(|c| {
                        alts.iter().map(move |a| {
                            let mut c = c.clone();
                            c.push(a.clone());
                            c
                        })
                    })
                    .collect();
            }
            Ok(f64::from(u8::from(combos.iter().any(|c| as_set(c) == liked))))
        }
        _ => Err(cx.bad("rules.type must be bookmark_bar_folders_names, bookmark_bar_websites_urls or liked_authors_websites_urls")),
    }
}

/// `is_expected_search_query`: the active tab's `url` matches the regex
/// `rules.expect.pattern` (Python `re.search`). An empty result scores 0.
pub(super) fn is_expected_search_query(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let result = result_value(cx);
    if !py_truthy(&result) {
        return Ok(0.0);
    }
    let rules = cx.rules()?;
    let pattern = rules
        .get("expect")
        .and_then(|e| e.get("pattern"))
        .and_then(Value::as_str)
        .ok_or_else(|| cx.bad("rules.expect.pattern must be a regex string"))?;
    let url = result
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| cx.bad("the active tab has no url string"))?;
    Ok(f64::from(u8::from(compile(cx, pattern)?.is_match(url))))
}

/// `is_expected_installed_extensions`: every name of `rules.expected` is
/// among the installed extensions (a list of names). An empty list scores 0.
pub(super) fn is_expected_installed_extensions(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let result = result_value(cx);
    if !py_truthy(&result) {
        return Ok(0.0);
    }
    let installed = result
        .as_array()
        .ok_or_else(|| cx.bad("the installed extensions must be a list"))?;
    let expected = cx
        .rule_expected()?
        .as_array()
        .ok_or_else(|| cx.bad("rules.expected must be a list"))?;
    let all = expected
        .iter()
        .all(|e| installed.iter().any(|i| super::py_eq(i, e)));
    Ok(f64::from(u8::from(all)))
}

/// `rules[key]` as a string (absent: an error; not a string: `None`).
fn rule_str<'a>(cx: &Cx<'_>, rules: &'a Value, key: &str) -> Result<Option<&'a str>, CheckError> {
    match rules.get(key) {
        Some(v) => Ok(v.as_str()),
        None => Err(cx.bad(format!("rules have no \"{key}\""))),
    }
}

/// OSWorld's `compare_urls` on two JSON values: `None` (null) equals only
/// `None`; other non-strings are refused (Python raises on them).
pub(super) fn url_eq(cx: &Cx<'_>, a: &Value, b: &Value) -> Result<bool, CheckError> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(a == b),
        (Value::String(x), Value::String(y)) => {
            let x = normalize_url(x).map_err(|m| cx.bad(m))?;
            let y = normalize_url(y).map_err(|m| cx.bad(m))?;
            Ok(x == y)
        }
        _ => Err(cx.bad("URLs must be strings")),
    }
}

/// OSWorld's `compare_urls` on two strings (a URL Python's `urlparse`
/// refuses equals nothing).
pub(crate) fn compare_urls(a: &str, b: &str) -> bool {
    matches!((normalize_url(a), normalize_url(b)), (Ok(x), Ok(y)) if x == y)
}

/// One URL in `compare_urls`' normal form.
fn normalize_url(url: &str) -> Result<String, String> {
    let has_scheme = url
        .split_once("://")
        .is_some_and(|(s, _)| is_scheme(s) && !s.is_empty());
    let url = if has_scheme {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    let p = urlparse(&url)?;
    let host = registrable_host(&lenient_host(&p.netloc.to_lowercase()));
    let path = if p.path == "/" { "" } else { p.path.as_str() };
    Ok(urlunparse(
        &p.scheme,
        &host,
        path,
        &p.params,
        &p.query,
        &p.fragment,
    ))
}

/// A scheme as OSWorld's regex takes it: a letter, then letters, digits, `+-.`.
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// Python's `urlparse` result.
pub(super) struct Parsed {
    scheme: String,
    pub(super) netloc: String,
    pub(super) path: String,
    params: String,
    query: String,
    fragment: String,
}

/// Python 3.11's `urllib.parse.urlparse(url)` (no default scheme, fragments
/// allowed).
pub(super) fn urlparse(url: &str) -> Result<Parsed, String> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut rest = url.as_str();
    let mut scheme = String::new();
    if let Some(i) = rest.find(':')
        && i > 0
        && rest.as_bytes()[0].is_ascii_alphabetic()
        && rest[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        scheme = rest[..i].to_ascii_lowercase();
        rest = &rest[i + 1..];
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = &after[..end];
        rest = &after[end..];
        if netloc.contains('[') != netloc.contains(']') {
            return Err("Invalid IPv6 URL".to_owned());
        }
    }
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    const USES_PARAMS: &[&str] = &[
        "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip",
        "sips", "mms", "sftp", "tel",
    ];
    let (path, params) = if USES_PARAMS.contains(&scheme.as_str()) && path.contains(';') {
        let from = path.rfind('/').unwrap_or(0);
        match path[from..].find(';') {
            Some(i) => (&path[..from + i], &path[from + i + 1..]),
            None if path.contains('/') => (path, ""),
            None => path.split_once(';').unwrap_or((path, "")),
        }
    } else {
        (path, "")
    };
    Ok(Parsed {
        scheme,
        netloc: netloc.to_owned(),
        path: path.to_owned(),
        params: params.to_owned(),
        query: query.to_owned(),
        fragment: fragment.to_owned(),
    })
}

/// Python 3.11's `urlunparse`.
fn urlunparse(
    scheme: &str,
    netloc: &str,
    path: &str,
    params: &str,
    query: &str,
    fragment: &str,
) -> String {
    const USES_NETLOC: &[&str] = &[
        "", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https",
        "shttp", "snews", "prospero", "rtsp", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs",
        "git", "git+ssh", "ws", "wss",
    ];
    let mut url = if params.is_empty() {
        path.to_owned()
    } else {
        format!("{path};{params}")
    };
    if !netloc.is_empty()
        || (!scheme.is_empty() && USES_NETLOC.contains(&scheme) && !url.starts_with("//"))
    {
        if !url.is_empty() && !url.starts_with('/') {
            url.insert(0, '/');
        }
        url = format!("//{netloc}{url}");
    }
    if !scheme.is_empty() {
        url = format!("{scheme}:{url}");
    }
    if !query.is_empty() {
        url = format!("{url}?{query}");
    }
    if !fragment.is_empty() {
        url = format!("{url}#{fragment}");
    }
    url
}

/// tldextract's host of an authority: after any user info, without the
/// port, trimmed, without trailing root-label dots; a bracketed IPv6
/// address as it is.
fn lenient_host(authority: &str) -> String {
    let after = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if after.starts_with('[')
        && let Some(end) = after.find(']')
    {
        return after[..=end].to_owned();
    }
    let host = after.split(':').next().unwrap_or("");
    host.trim_matches(py_space)
        .trim_end_matches(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        .to_owned()
}

/// OSWorld's netloc: `subdomain.domain` (a lone `www` subdomain dropped),
/// the public suffix left out; IP addresses as they are.
fn registrable_host(host: &str) -> String {
    let host = host.replace(['\u{3002}', '\u{ff0e}', '\u{ff61}'], ".");
    if host.len() >= 4 && host.starts_with('[') && host.ends_with(']') {
        return host;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let suffix_at = (0..labels.len()).find(|&i| is_icann_suffix(&labels[i..].join(".")));
    let Some(at) = suffix_at else {
        if labels.len() == 4 && looks_like_ipv4(&host) {
            return host;
        }
        let (domain, sub) = labels.split_last().map_or(("", &[][..]), |(d, s)| (*d, s));
        return join_host(&sub.join("."), domain);
    };
    if at == 0 {
        return String::new();
    }
    join_host(&labels[..at - 1].join("."), labels[at - 1])
}

/// `subdomain.domain`, or `domain` when the subdomain is empty or `www`.
fn join_host(subdomain: &str, domain: &str) -> String {
    if subdomain.is_empty() || subdomain == "www" {
        domain.to_owned()
    } else {
        format!("{subdomain}.{domain}")
    }
}

/// Whether `name` is, as a whole, a suffix of the ICANN section of the
/// Public Suffix List.
fn is_icann_suffix(name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    psl::suffix(name.as_bytes())
        .is_some_and(|s| s.as_bytes() == name.as_bytes() && s.typ() == Some(psl::Type::Icann))
}

/// tldextract's IPv4 test: four dot-separated decimal numbers 0..=255
/// without leading zeros.
fn looks_like_ipv4(host: &str) -> bool {
    host.split('.').all(|part| {
        !part.is_empty()
            && part.len() <= 3
            && (part == "0" || !part.starts_with('0'))
            && part.bytes().all(|b| b.is_ascii_digit())
            && part.parse::<u16>().is_ok_and(|n| n <= 255)
    })
}

#[cfg(test)]
mod tests {
    use super::normalize_url;

    #[test]
    fn urls_normalise_like_osworld() {
        let n = |u: &str| normalize_url(u).unwrap();
        assert_eq!(n("https://www.airbnb.com.sg/"), "https://airbnb");
        assert_eq!(n("airbnb.com"), "http://airbnb");
        assert_eq!(
            n("http://a.b.example.co.uk/x;p?q=1#f"),
            "http://a.b.example/x;p?q=1#f"
        );
        assert_eq!(n("http://foo.github.io"), "http://foo.github");
        assert_eq!(n("http://user@LocalHost:8080/"), "http://localhost");
        assert_eq!(n("http://10.0.0.1:80/a"), "http://10.0.0.1/a");
        assert!(normalize_url("http://[::1/").is_err());
    }
}
