//! Chrome's DevTools protocol, as OSWorld's setup and getters use the
//! browser (they drive it with Playwright over CDP): the HTTP endpoints
//! (`/json/list`, `/json/new`, `/json/close`, `/json/activate`) over
//! `reqwest`, and a page's WebSocket (`Runtime.evaluate`, `Page.printToPDF`)
//! over `tokio-tungstenite`.
//!
//! ## Where the browser listens
//! OSWorld's tasks start `google-chrome --remote-debugging-port=1337` and
//! forward 9222 to it with `socat`. Tasks here run side by side on one
//! network, so the harness starts the browser with
//! `--remote-debugging-port=0` ([`crate::chrome::browser_command`]): it picks a
//! free port and writes it to `DevToolsActivePort` in its profile folder,
//! which [`Cdp::find`] reads (then 9222 and 1337, for a browser started
//! otherwise).

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Why the browser could not be reached or did not answer.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CdpError(pub String);

impl ufo_core::Diagnostic for CdpError {
    fn code(&self) -> &'static str {
        "ufo::eval::chrome"
    }
    fn help(&self) -> Option<String> {
        Some("start the browser with `--remote-debugging-port` in a `launch` step before this step (OSWorld's tasks do: `google-chrome --remote-debugging-port=1337`); `chromium` (Debian) stands in for `google-chrome`".into())
    }
}

type Result<T> = std::result::Result<T, CdpError>;

fn err(what: impl std::fmt::Display) -> CdpError {
    CdpError(what.to_string())
}

/// One tab (CDP target of type `page`), as `/json/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    /// The target's id.
    pub id: String,
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its WebSocket debugger URL.
    pub ws: String,
}

impl Tab {
    fn parse(v: &Value) -> Option<Tab> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        (s("type")? == "page").then_some(())?;
        Some(Tab {
            id: s("id")?,
            url: s("url").unwrap_or_default(),
            title: s("title").unwrap_or_default(),
            ws: s("webSocketDebuggerUrl").unwrap_or_default(),
        })
    }
}

/// A browser's DevTools HTTP endpoint.
#[derive(Debug, Clone)]
pub struct Cdp {
    base: String,
    http: reqwest::Client,
}

/// The port in a profile's `DevToolsActivePort` (its first line).
pub fn active_port(profile: &Path) -> Option<u16> {
    let text = std::fs::read_to_string(profile.join("DevToolsActivePort")).ok()?;
    text.lines().next()?.trim().parse().ok()
}

impl Cdp {
    /// The browser at `127.0.0.1:port`.
    pub fn at(port: u16) -> Result<Cdp> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| err(format!("cannot make an HTTP client: {e}")))?;
        Ok(Cdp {
            base: format!("http://127.0.0.1:{port}"),
            http,
        })
    }

    /// The browser of one of `profiles` (its `DevToolsActivePort`), else
    /// one on 9222 or 1337; tried until `wait` has passed (OSWorld retries
    /// for about a minute).
    pub async fn find(profiles: &[PathBuf], wait: Duration) -> Result<Cdp> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let mut ports: Vec<u16> = profiles.iter().filter_map(|p| active_port(p)).collect();
            ports.extend([9222, 1337]);
            for port in ports {
                let cdp = Cdp::at(port)?;
                if cdp.version().await.is_ok() {
                    return Ok(cdp);
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(err(format!(
                    "no browser answers on its DevTools port (looked for DevToolsActivePort in {}, then 127.0.0.1:9222 and :1337)",
                    profiles
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn request(&self, method: reqwest::Method, path: &str) -> Result<Value> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .http
            .request(method, &url)
            .send()
            .await
            .map_err(|e| err(format!("{url}: {e}")))?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| err(format!("{url}: {e}")))?;
        if !status.is_success() {
            return Err(err(format!("{url}: {status}: {}", text.trim())));
        }
        Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// `/json/version`.
    pub async fn version(&self) -> Result<Value> {
        self.request(reqwest::Method::GET, "/json/version").await
    }

    /// The tabs, in `/json/list`'s order (the most recently opened or
    /// activated first).
    pub async fn tabs(&self) -> Result<Vec<Tab>> {
        let list = self.request(reqwest::Method::GET, "/json/list").await?;
        Ok(list
            .as_array()
            .map(|a| a.iter().filter_map(Tab::parse).collect())
            .unwrap_or_default())
    }

    /// Opens `url` in a new tab (`PUT /json/new?URL`, the URL escaped:
    /// the browser unescapes it, and would cut it at a bare `&` or `#`).
    pub async fn new_tab(&self, url: &str) -> Result<Tab> {
        let v = self
            .request(reqwest::Method::PUT, &format!("/json/new?{}", escape(url)))
            .await?;
        Tab::parse(&v).ok_or_else(|| err(format!("/json/new answered {v}")))
    }

    /// Closes a tab.
    pub async fn close(&self, id: &str) -> Result<()> {
        self.request(reqwest::Method::GET, &format!("/json/close/{id}"))
            .await
            .map(|_| ())
    }

    /// Brings a tab to the front.
    pub async fn activate(&self, id: &str) -> Result<()> {
        self.request(reqwest::Method::GET, &format!("/json/activate/{id}"))
            .await
            .map(|_| ())
    }
}

/// `s` with every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`)
/// as `%XX`.
fn escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A tab's DevTools session over its WebSocket.
pub struct Page {
    socket: Socket,
    next: u64,
}

/// Playwright's `page.content()`: the doctype and the document element's
/// markup.
pub const CONTENT_JS: &str = "(() => { let r = ''; if (document.doctype) r = new XMLSerializer().serializeToString(document.doctype); if (document.documentElement) r += document.documentElement.outerHTML; return r; })()";

impl Page {
    /// Connects to `tab`.
    pub async fn open(tab: &Tab) -> Result<Page> {
        if tab.ws.is_empty() {
            return Err(err(format!(
                "tab {} has no debugger URL (another client holds it)",
                tab.url
            )));
        }
        let (socket, _) = tokio::time::timeout(
            Duration::from_secs(10),
            tokio_tungstenite::connect_async(tab.ws.as_str()),
        )
        .await
        .map_err(|_| err(format!("{}: no answer within 10 s", tab.ws)))?
        .map_err(|e| err(format!("{}: {e}", tab.ws)))?;
        Ok(Page { socket, next: 1 })
    }

    /// Calls `method` and returns its `result` (a protocol error is an error).
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next;
        self.next += 1;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket
            .send(Message::Text(msg.into()))
            .await
            .map_err(|e| err(format!("{method}: {e}")))?;
        let read = async {
            while let Some(msg) = self.socket.next().await {
                let msg = msg.map_err(|e| err(format!("{method}: {e}")))?;
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                if v.get("id").and_then(Value::as_u64) != Some(id) {
                    continue;
                }
                if let Some(e) = v.get("error") {
                    return Err(err(format!("{method}: {e}")));
                }
                return Ok(v.get("result").cloned().unwrap_or(Value::Null));
            }
            Err(err(format!("{method}: the tab closed its connection")))
        };
        tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .map_err(|_| err(format!("{method}: no answer within 60 s")))?
    }

    /// The value of a JavaScript expression (promises awaited); a thrown
    /// exception is an error.
    pub async fn eval(&mut self, expression: &str) -> Result<Value> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        if let Some(e) = r.get("exceptionDetails") {
            let text = e
                .pointer("/exception/description")
                .or_else(|| e.get("text"))
                .cloned()
                .unwrap_or(Value::Null);
            return Err(err(format!("the page threw: {text}")));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// Waits until the document has loaded (`readyState` is `complete`), at
    /// most `timeout`: whether it did.
    pub async fn wait_load(&mut self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Ok(Value::String(s)) = self.eval("document.readyState").await
                && s == "complete"
            {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Waits until a new tab opened for `url` has left its first
    /// `about:blank` (the navigation committed, or failed to an error page)
    /// and loaded, at most `timeout` (Playwright's `goto`): whether it did.
    pub async fn wait_navigated(&mut self, url: &str, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let state = self.eval("[location.href, document.readyState]").await;
            if let Ok(Value::Array(s)) = state
                && s.get(1).and_then(Value::as_str) == Some("complete")
                && (s.first().and_then(Value::as_str) != Some("about:blank")
                    || url == "about:blank")
            {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The page's address as it shows it (`location.href`); `None` when it
    /// does not answer.
    pub async fn href(&mut self) -> Option<String> {
        match self.eval("location.href").await {
            Ok(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// `{title, url, content}` of the page (Playwright's `title()`, `url`,
    /// `content()`).
    pub async fn info(&mut self) -> Result<Value> {
        let v = self
            .eval(&format!(
                "({{title: document.title, url: location.href, content: {CONTENT_JS}}})"
            ))
            .await?;
        Ok(json!({"title": v["title"], "url": v["url"], "content": v["content"]}))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tabs_are_pages_and_the_port_file_is_read() {
        let list = json!([
            {"type": "page", "id": "A", "url": "http://a/", "title": "A", "webSocketDebuggerUrl": "ws://x/A"},
            {"type": "service_worker", "id": "B", "url": "http://b/"},
            {"type": "page", "url": "no id"}
        ]);
        let tabs: Vec<Tab> = list
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Tab::parse)
            .collect();
        assert_eq!(tabs.len(), 1);
        assert_eq!(
            (tabs[0].id.as_str(), tabs[0].ws.as_str()),
            ("A", "ws://x/A")
        );
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(active_port(dir.path()), None);
        std::fs::write(
            dir.path().join("DevToolsActivePort"),
            "40123\n/devtools/browser/x\n",
        )
        .unwrap();
        assert_eq!(active_port(dir.path()), Some(40123));
        std::fs::write(dir.path().join("DevToolsActivePort"), "junk").unwrap();
        assert_eq!(
            escape("http://h/c?q=a+b&l=é#f"),
            "http%3A%2F%2Fh%2Fc%3Fq%3Da%2Bb%26l%3D%C3%A9%23f"
        );
        assert_eq!(active_port(dir.path()), None);
    }
}
