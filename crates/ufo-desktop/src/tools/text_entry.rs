//! `set_edit_text`: replacing a control's text and reading it back as the
//! control shows it (a password field's masks, a terminal's padded lines),
//! typing it where the toolkit will not set it, without typing twice.

use super::ToolContext;
use super::params;
use super::run::{POLL, control, raise, settle};
use crate::backend::Backend;
use crate::error::{DesktopError, Result};
use crate::keyparse::{literal_text, parse_keys};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::{Instant, sleep};
use ufo_core::{Control, ControlType, ElementHandle, States};

pub(super) async fn set_edit_text(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::SetEditText,
) -> Result<Value> {
    let c = control(ctx, a.id, a.name.as_deref())?;
    let text = a.text.clone();
    let kind = TextKind::of(&c);
    // A terminal's text is its whole screen: "clearing" it means nothing a
    // person would do (Ctrl+A, Delete are shell keys there).
    let clear = a.clear_current_text && kind != TextKind::Terminal;
    let h = &c.handle;
    let mark = b.event_mark();
    let before = b.read_text(h).await.ok();
    let direct = if clear {
        b.set_text(h, &text).await
    } else {
        b.insert_text(h, None, &text).await
    };
    let mut method = "editable_text";
    match direct {
        // A person who filled a field has the keyboard there: the next
        // {ENTER} must reach it (Calc's Name Box), not the grid.
        // (Focusing a field that has it already would select its text in
        // GTK: a Save dialog's name field then ignored the next {ENTER}.)
        Ok(()) if c.control_type == ControlType::Edit && !c.states.contains(States::FOCUSED) => {
            if let Err(e) = b.focus_element(h).await {
                tracing::debug!(error = %e, "could not focus the field that was set");
            }
        }
        Ok(()) => {}
        // No EditableText interface: type it, as UFO's type_keys does.
        Err(DesktopError::Unsupported { .. }) => {
            method = "typed";
            type_into(b, ctx, h, &text, clear).await?;
        }
        Err(e) => return Err(e),
    }
    let expected = match (&before, clear) {
        (_, true) => Some(text.clone()),
        (Some(b0), false) => Some(format!("{b0}{text}")),
        (None, false) => None,
    };
    let ok = |got: &str| reads_as_set(kind, got, &text, expected.as_deref());
    if !c.capabilities.text && !c.capabilities.editable_text {
        // Nothing to read back from (read_text would return the name).
        return Ok(json!({ "text": text, "method": method, "verified": false }));
    }
    let (mut verified, mut got) = read_until(b, h, ctx.settings.verify_timeout, &ok).await?;
    if !verified && method == "editable_text" && got == before.clone().unwrap_or_default() {
        // The toolkit accepted the call and changed nothing (Firefox's web
        // form fields): type it as a person would.
        method = "typed";
        type_into(b, ctx, h, &text, clear).await?;
        (verified, got) = read_until(b, h, ctx.settings.verify_timeout, &ok).await?;
    }
    if !verified {
        let changed = Some(&got) != before.as_ref();
        return Err(DesktopError::VerificationFailed(format!(
            "control {} ({:?}) reads {:?} after {} {:?}{}",
            c.id,
            c.name,
            shorten(&got),
            if clear { "setting" } else { "appending" },
            shorten(&text),
            if changed {
                "; the text WAS entered (the control changed): do not enter it again, observe and correct what differs"
            } else {
                "; the control did not change"
            },
        )));
    }
    // The application may still be acting on the new text (a GTK 3 Save
    // dialog switches its file list to a typed folder): the next key waits
    // until it is quiet, or it is lost (mousepad: the first {ENTER} after
    // setting the Name field was dropped 3 times of 3).
    settle(b, ctx, mark).await;
    let shown = match kind {
        TextKind::Masked => "●".repeat(got.chars().count()),
        _ => got,
    };
    Ok(json!({ "text": shown, "method": method, "verified": true }))
}

/// What a text control shows of what is typed into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextKind {
    /// Shows what it holds.
    Plain,
    /// A password field: reads back one mask character per character.
    Masked,
    /// A terminal: its text is the screen (prompt, output, padding lines).
    Terminal,
}

impl TextKind {
    fn of(c: &Control) -> Self {
        match c.role.as_str() {
            "password text" => TextKind::Masked,
            "terminal" => TextKind::Terminal,
            _ => TextKind::Plain,
        }
    }
}

/// Characters toolkits draw in place of a password's.
const MASKS: &[char] = &['●', '•', '*', '∗', '·', '⚫', '⏺'];

/// True when a control of `kind` reading `got` holds `text` as it was set
/// (`expected`: the whole text wanted, when known).
fn reads_as_set(kind: TextKind, got: &str, text: &str, expected: Option<&str>) -> bool {
    let got = normalise(got);
    let text = normalise(text);
    match kind {
        TextKind::Masked => {
            let want = expected.map_or(text.chars().count(), |e| normalise(e).chars().count());
            let masked = !got.is_empty()
                && got.chars().all(|ch| MASKS.contains(&ch))
                && got.chars().count() == want;
            masked || expected.is_some_and(|e| got == normalise(e))
        }
        // A terminal echoes what is typed on its current line; padding and
        // blank lines come and go.
        TextKind::Terminal => squeeze(&got).contains(squeeze(&text).trim()),
        TextKind::Plain => match expected {
            Some(e) => same_text(&got, &normalise(e)),
            None => got
                .trim_end_matches('\n')
                .ends_with(text.trim_end_matches('\n')),
        },
    }
}

/// Line ends as `\n`, no-break spaces as spaces.
fn normalise(s: &str) -> String {
    s.replace("\r\n", "\n").replace(['\u{a0}', '\u{202f}'], " ")
}

/// Lines without trailing blanks, blank lines dropped.
fn squeeze(s: &str) -> String {
    s.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Focuses the control and types `text`, replacing (`clear`) or appending.
async fn type_into(
    b: &dyn Backend,
    ctx: &ToolContext,
    h: &ElementHandle,
    text: &str,
    clear: bool,
) -> Result<()> {
    raise(b, ctx).await;
    b.focus_element(h).await?;
    let mut events = parse_keys(if clear { "^a{DELETE}" } else { "^{END}" })?;
    events.extend(literal_text(text));
    b.send_keys(&events).await
}

/// Equal, or equal but for trailing newlines (text views often keep one).
fn same_text(got: &str, want: &str) -> bool {
    got == want || got.trim_end_matches('\n') == want.trim_end_matches('\n')
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 80 {
        let mut t: String = s.chars().take(80).collect();
        t.push('…');
        t
    } else {
        s.to_owned()
    }
}

/// Reads the element's text until `ok` accepts it or `timeout` passes; returns
/// whether it was accepted and the last text read.
async fn read_until(
    b: &dyn Backend,
    h: &ElementHandle,
    timeout: Duration,
    ok: &impl Fn(&str) -> bool,
) -> Result<(bool, String)> {
    let start = Instant::now();
    loop {
        let got = b.read_text(h).await?;
        if ok(&got) {
            return Ok((true, got));
        }
        if start.elapsed() >= timeout {
            return Ok((false, got));
        }
        sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_comparison_and_shortening() {
        assert!(same_text("abc\n", "abc"));
        assert!(same_text("abc", "abc\n"));
        assert!(!same_text("abd", "abc"));
        assert_eq!(shorten(&"x".repeat(100)).chars().count(), 81);
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn text_reads_back_as_each_kind_shows_it() {
        use TextKind::*;
        // A password field shows one mask per character.
        assert!(reads_as_set(Masked, "●●●●●●", "secret", Some("secret")));
        assert!(reads_as_set(Masked, "******", "secret", Some("secret")));
        assert!(!reads_as_set(Masked, "●●●●●", "secret", Some("secret")));
        assert!(!reads_as_set(Masked, "", "secret", Some("secret")));
        // A terminal pads lines and adds blank ones.
        let screen = "user@host:~$ echo hi   \n\n\n";
        assert!(reads_as_set(Terminal, screen, "echo hi", None));
        assert!(!reads_as_set(Terminal, screen, "echo ho", None));
        // Plain text: exact but for trailing newlines, CRLF and no-break spaces.
        assert!(reads_as_set(
            Plain,
            "a\u{a0}b\r\nc\n",
            "a b\nc",
            Some("a b\nc")
        ));
        assert!(!reads_as_set(Plain, "a bc", "a b\nc", Some("a b\nc")));
        assert!(reads_as_set(Plain, "xyz", "yz", None));
    }
}
