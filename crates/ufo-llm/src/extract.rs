//! Finding the JSON object in a model's reply.
//!
//! Models wrap JSON in fences, surround it with prose, emit several objects, or
//! write Python-style dicts. [`extract_json`] is deterministic:
//!
//! 1. over [`MAX_REPLY_BYTES`] → [`LlmError::ReplyTooLarge`]; strip a BOM and
//!    zero-width characters, trim; empty → [`LlmError::EmptyReply`];
//!    the whole text if it parses;
//! 2. each ```` ``` ```` fenced block whose info string is empty or `json` (any
//!    case), wherever it starts: its body, or the first balanced object in it;
//! 3. a string- and escape-aware balanced scan from each `{` (and `[` when arrays
//!    are allowed), the first [`MAX_SCAN_STARTS`] of them: the first slice that
//!    parses (prose around it and braces inside strings do not matter; a
//!    following object sets `extra_data`);
//! 4. with [`ExtractOptions::repair`]: trailing commas removed, single-quoted
//!    strings and smart quotes turned into JSON strings, Python `True`/`False`/`None`
//!    mapped, raw newlines in strings escaped, and a truncated object closed
//!    (`truncated` set). A repaired result has `repaired` set: lower confidence.
//!
//! Otherwise: [`LlmError::TruncatedJson`] when an object was opened and never
//! closed, else [`LlmError::NoJson`].

use serde_json::Value;

use crate::error::LlmError;

/// Extraction switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Try lenient repairs when nothing parses as is.
    pub repair: bool,
    /// Accept a top-level array as well as an object.
    pub allow_array: bool,
}

impl ExtractOptions {
    /// Repair on, arrays off.
    pub fn lenient() -> Self {
        Self {
            repair: true,
            allow_array: false,
        }
    }
}

/// An extracted JSON value and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// The value.
    pub value: Value,
    /// Whether a lenient repair was needed.
    pub repaired: bool,
    /// Whether the JSON was cut off and had to be closed by the repair.
    pub truncated: bool,
    /// Whether another JSON object follows the one returned.
    pub extra_data: bool,
}

fn accepted(v: &Value, opts: ExtractOptions) -> bool {
    v.is_object() || (opts.allow_array && v.is_array())
}

fn found(value: Value, extra_data: bool) -> Extracted {
    Extracted {
        value,
        repaired: false,
        truncated: false,
        extra_data,
    }
}

/// Replies larger than this are not parsed ([`LlmError::ReplyTooLarge`]): an
/// agent reply is a few KB; 1 MiB is far beyond any real one and keeps the
/// scan's worst case well under a second.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;

/// The balanced scan tries at most this many opening brackets as the start of
/// the object, so its cost is linear in the reply's length (a reply of 160k
/// `{` once took 39 s).
pub const MAX_SCAN_STARTS: usize = 256;

/// Extracts the JSON object from `reply` (see the module docs).
pub fn extract_json(reply: &str, opts: ExtractOptions) -> Result<Extracted, LlmError> {
    if reply.len() > MAX_REPLY_BYTES {
        return Err(LlmError::ReplyTooLarge {
            bytes: reply.len(),
            limit: MAX_REPLY_BYTES,
        });
    }
    let cleaned: String = reply
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '\u{feff}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}'
            )
        })
        .collect();
    let text = cleaned.trim();
    if text.is_empty() {
        return Err(LlmError::EmptyReply);
    }
    let mut last_error = String::from("no `{` in the reply");
    match serde_json::from_str::<Value>(text) {
        Ok(v) if accepted(&v, opts) => return Ok(found(v, false)),
        Ok(_) => {}
        Err(e) => last_error = e.to_string(),
    }
    let blocks = fenced_blocks(text);
    for body in &blocks {
        if let Ok(v) = serde_json::from_str::<Value>(body.trim())
            && accepted(&v, opts)
        {
            return Ok(found(v, false));
        }
        if let Some(x) = balanced_scan(body, opts, &mut last_error).0 {
            return Ok(x);
        }
    }
    let (hit, unclosed) = balanced_scan(text, opts, &mut last_error);
    if let Some(x) = hit {
        return Ok(x);
    }
    if opts.repair {
        let candidates = blocks
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(text));
        for c in candidates {
            let Some(start) = c.find(|ch| ch == '{' || (opts.allow_array && ch == '[')) else {
                continue;
            };
            if let Some(x) = repaired(&c[start..], opts, &mut last_error) {
                return Ok(x);
            }
        }
    }
    if unclosed {
        return Err(LlmError::TruncatedJson {
            message: "an object is opened but never closed (output cut at max_tokens?)".into(),
        });
    }
    Err(LlmError::NoJson {
        message: last_error,
    })
}

/// Bodies of ```` ``` ```` blocks whose info string is empty or `json`.
fn fenced_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let (info, body_start) = match after.find('\n') {
            Some(nl) => (after[..nl].trim(), nl + 1),
            None => ("", 0),
        };
        let (info_ok, body_from) = if info.is_empty() || info.eq_ignore_ascii_case("json") {
            (true, body_start)
        } else if info.starts_with('{') || info.starts_with('[') {
            (true, 0)
        } else {
            (false, body_start)
        };
        let body = &after[body_from..];
        let Some(close) = body.find("```") else {
            if info_ok {
                out.push(body.to_owned());
            }
            break;
        };
        if info_ok {
            out.push(body[..close].to_owned());
        }
        rest = &body[close + 3..];
    }
    out
}

/// Scans balanced `{…}` (and `[…]`) slices; returns the first that parses and
/// whether some opening was never closed.
fn balanced_scan(
    text: &str,
    opts: ExtractOptions,
    last_error: &mut String,
) -> (Option<Extracted>, bool) {
    let bytes = text.as_bytes();
    let mut unclosed = false;
    let mut i = 0;
    let mut starts = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'{' || (opts.allow_array && b == b'[') {
            starts += 1;
            if starts > MAX_SCAN_STARTS {
                *last_error = format!(
                    "no parseable object among the first {MAX_SCAN_STARTS} opening brackets"
                );
                break;
            }
            match matching_close(bytes, i) {
                Some(end) => {
                    let slice = &text[i..=end];
                    match serde_json::from_str::<Value>(slice) {
                        Ok(v) if accepted(&v, opts) => {
                            let after = &text[end + 1..];
                            let extra = after.contains('{');
                            return (Some(found(v, extra)), unclosed);
                        }
                        Ok(_) => {}
                        Err(e) => {
                            *last_error = e.to_string();
                            // A broken object is repaired before any object
                            // inside it is taken: `{"Function": …, "Args":
                            // {…},}` is the reply, not its arguments.
                            if opts.repair
                                && let Some(x) = repaired(slice, opts, last_error)
                            {
                                return (Some(x), unclosed);
                            }
                        }
                    }
                }
                None => unclosed = true,
            }
        }
        i += 1;
    }
    (None, unclosed)
}

/// `text` (from its first bracket) after [`repair`], when it then parses.
fn repaired(text: &str, opts: ExtractOptions, last_error: &mut String) -> Option<Extracted> {
    let (fixed, truncated) = repair(text);
    match serde_json::from_str::<Value>(&fixed) {
        Ok(v) if accepted(&v, opts) => {
            tracing::debug!(target: "ufo_llm", truncated, "JSON reply repaired");
            Some(Extracted {
                value: v,
                repaired: true,
                truncated,
                extra_data: false,
            })
        }
        Ok(_) => None,
        Err(e) => {
            *last_error = format!("{e} (after repair)");
            None
        }
    }
}

/// The index of the bracket closing the one at `start`, string- and escape-aware.
fn matching_close(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Lenient rewrite of JSON-ish text starting at its first bracket; stops after the
/// bracket that closes it. Returns the text and whether it had to be closed.
fn repair(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len() + 8);
    let mut stack: Vec<char> = Vec::new();
    // The character that ends the current string, if inside one.
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(end) = in_str {
            if escaped {
                escaped = false;
                if c == '\'' {
                    out.pop();
                }
                out.push(c);
            } else if c == '\\' {
                escaped = true;
                out.push(c);
            } else if c == end || (end == '\u{201d}' && c == '"') {
                out.push('"');
                in_str = None;
            } else if c == '"' {
                out.push_str("\\\"");
            } else if c == '\n' {
                out.push_str("\\n");
            } else if c == '\r' {
                out.push_str("\\r");
            } else if c == '\t' {
                out.push_str("\\t");
            } else {
                out.push(c);
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                in_str = Some(c);
                out.push('"');
            }
            '\u{201c}' | '\u{201d}' => {
                in_str = Some('\u{201d}');
                out.push('"');
            }
            '{' => {
                stack.push('}');
                out.push(c);
            }
            '[' => {
                stack.push(']');
                out.push(c);
            }
            '}' | ']' => {
                trim_trailing_comma(&mut out);
                stack.pop();
                out.push(c);
                if stack.is_empty() {
                    return (out, false);
                }
            }
            c if c.is_ascii_alphabetic() => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        word.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    w => w,
                });
            }
            _ => out.push(c),
        }
    }
    // Truncated: close what is open.
    if in_str.is_some() {
        if escaped {
            out.pop();
        }
        out.push('"');
    }
    let t = out.trim_end().len();
    out.truncate(t);
    if out.ends_with(':') {
        out.push_str(" null");
    }
    trim_trailing_comma(&mut out);
    while let Some(close) = stack.pop() {
        out.push(close);
    }
    (out, true)
}

fn trim_trailing_comma(out: &mut String) {
    let t = out.trim_end().len();
    if out[..t].ends_with(',') {
        out.truncate(t - 1);
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Any text, and text made of the characters the scanner cares about:
        // a coded error or a value, never a panic.
        #[test]
        fn extraction_never_panics(text in "\\PC{0,300}") {
            let _ = extract_json(&text, ExtractOptions::lenient());
            let _ = extract_json(&text, ExtractOptions { repair: false, allow_array: true });
        }

        #[test]
        fn bracket_soup_never_panics(text in "[{}\\[\\]\"'a:,\\\\ \n`]{0,400}") {
            let _ = extract_json(&text, ExtractOptions::lenient());
            let _ = extract_json(&format!("```json\n{text}"), ExtractOptions::lenient());
        }
    }
}
