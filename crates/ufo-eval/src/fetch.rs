//! Files a task downloads (`download` setup steps, `cloud_file` getters):
//! over http(s) into a content cache, or, for offline runs and tests, from
//! a mirror folder.
//!
//! - **Cache**: `<cache>/<sha256 of the URL>`; a URL fetched once is not
//!   fetched again (OSWorld keeps the same kind of cache, keyed by a UUID of
//!   the URL). A download lands in a temporary file first and is renamed
//!   into place, so parallel tasks never read half a file.
//! - **Mirror** (`--mirror DIR`): `https://host/a/b.xlsx` is
//!   `DIR/host/a/b.xlsx`; a query stays part of the last name, as `wget -x`
//!   saves it (`https://drive.google.com/uc?id=X&export=download` is
//!   `DIR/drive.google.com/uc?id=X&export=download`, a `/` in the query
//!   written `%2F`); a port other than the scheme's is kept (`host:8080`).
//!   With a mirror, nothing is fetched from the network.
//!
//! A file that cannot be had is [`FetchError`]: the task's status is then
//! `unavailable`, naming the URL, never a score of 0 as if it had run.

use sha2::Digest;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where downloads come from and are kept.
#[derive(Debug, Clone)]
pub struct Fetcher {
    cache: PathBuf,
    mirror: Option<PathBuf>,
    client: reqwest::Client,
}

/// Why a URL's file could not be had.
#[derive(Debug, thiserror::Error)]
#[error("{url} is unavailable: {reason}")]
pub struct FetchError {
    /// The URL.
    pub url: String,
    /// Why: not in the mirror, an HTTP status, a network error.
    pub reason: String,
    /// The error underneath, when there is one.
    #[source]
    pub source: Option<ufo_core::BoxError>,
}

impl ufo_core::Diagnostic for FetchError {
    fn code(&self) -> &'static str {
        "ufo::eval::unavailable"
    }
    fn help(&self) -> Option<String> {
        Some("check the URL in a browser; for offline runs put the file in the mirror (`--mirror DIR`: https://host/a/b.xlsx is DIR/host/a/b.xlsx)".into())
    }
}

impl Fetcher {
    /// Downloads kept in `cache`, or served from `mirror` only.
    pub fn new(cache: PathBuf, mirror: Option<PathBuf>) -> Self {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(600))
            .user_agent(concat!("ufo-eval/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Self {
            cache,
            mirror,
            client,
        }
    }

    /// The cache folder used when none is given: `$XDG_CACHE_HOME/ufo/downloads`
    /// (else `~/.cache/ufo/downloads`, else a folder in the temporary dir).
    pub fn default_cache() -> PathBuf {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir);
        base.join("ufo").join("downloads")
    }

    /// Whether `s` is a URL this fetcher gets (http or https).
    pub fn is_remote(s: &str) -> bool {
        s.starts_with("http://") || s.starts_with("https://")
    }

    /// The local file holding `url`'s content: the mirror's file, else the
    /// cached download (fetched now if it is not cached yet).
    pub async fn fetch(&self, url: &str) -> Result<PathBuf, FetchError> {
        let err = |reason: String, source: Option<ufo_core::BoxError>| FetchError {
            url: url.to_owned(),
            reason,
            source,
        };
        let parsed = url::Url::parse(url).map_err(|e| err("not a URL".into(), Some(e.into())))?;
        if let Some(mirror) = &self.mirror {
            let path = mirror_path(mirror, &parsed)
                .ok_or_else(|| err("it has no host to look up in the mirror".into(), None))?;
            return match path.is_file() {
                true => Ok(path),
                false => Err(err(format!("not in the mirror ({})", path.display()), None)),
            };
        }
        let cached = self.cache.join(hash(url));
        if cached.is_file() {
            return Ok(cached);
        }
        std::fs::create_dir_all(&self.cache).map_err(|e| {
            err(
                format!("cannot create the cache {}", self.cache.display()),
                Some(e.into()),
            )
        })?;
        let mut resp = self
            .client
            .get(parsed)
            .send()
            .await
            .map_err(|e| err("the request failed".into(), Some(e.into())))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(err(format!("the server answered {status}"), None));
        }
        let write = |e: std::io::Error| err("cannot write to the cache".into(), Some(e.into()));
        let mut part = tempfile::NamedTempFile::new_in(&self.cache).map_err(write)?;
        // Streamed to the file: a video is not held in memory.
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| err("the download broke off".into(), Some(e.into())))?
        {
            std::io::Write::write_all(&mut part, &chunk).map_err(write)?;
        }
        part.persist(&cached).map_err(|e| write(e.error))?;
        Ok(cached)
    }
}

/// The cache's name for `url`: its SHA-256, in hex.
fn hash(url: &str) -> String {
    sha2::Sha256::digest(url.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where the mirror `dir` keeps `url` (see the module docs).
pub fn mirror_path(dir: &Path, url: &url::Url) -> Option<PathBuf> {
    let host = url.host_str()?;
    let host = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    };
    let mut path = dir.join(host);
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| {
            s.filter(|s| !s.is_empty() && *s != "." && *s != "..")
                .collect()
        })
        .unwrap_or_default();
    let (last, parents) = match segments.split_last() {
        Some((l, p)) => (l.to_string(), p.to_vec()),
        None => ("index.html".to_owned(), Vec::new()),
    };
    for s in parents {
        path.push(s);
    }
    let name = match url.query() {
        Some(q) => format!("{last}?{}", q.replace('/', "%2F")),
        None => last,
    };
    path.push(name);
    Some(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn mirror_paths_follow_wget() {
        let m = Path::new("/m");
        let p = |u: &str| mirror_path(m, &url::Url::parse(u).unwrap()).unwrap();
        assert_eq!(p("https://host/a/b.xlsx"), Path::new("/m/host/a/b.xlsx"));
        assert_eq!(
            p("https://drive.google.com/uc?id=X&export=download"),
            Path::new("/m/drive.google.com/uc?id=X&export=download")
        );
        assert_eq!(p("http://h:8080/x?a=b/c"), Path::new("/m/h:8080/x?a=b%2Fc"));
        assert_eq!(p("https://h/"), Path::new("/m/h/index.html"));
        // `..` never leaves the mirror.
        assert_eq!(p("https://h/a/%2e%2e/../b"), Path::new("/m/h/b"));
        assert_eq!(hash("x").len(), 64);
    }
}
