//! `set_edit_text`: replacing a control's text and reading it back as the
//! control shows it (a password field's masks, a terminal's padded lines),
//! typing it where the toolkit will not set it, without typing twice.

use super::ToolContext;
use super::params;
use super::window::{POLL, control, raise, settle};
use crate::backend::Backend;
use crate::error::{DesktopError, Result};
use crate::keyparse::{literal_text, parse_keys};
use crate::names::names_match;
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
    if takes_no_text(&c) {
        return Err(no_text_here(ctx, &c));
    }
    let text = a.text.clone();
    let kind = TextKind::of(&c);
    // A terminal's text is its whole screen: "clearing" it means nothing a
    // person would do (Ctrl+A, Delete are shell keys there).
    let clear = a.clear_current_text && kind != TextKind::Terminal;
    let h = &c.handle;
    let mark = b.event_mark();
    // A spin button holds a number its entry's text is not yet, a slider
    // one it shows no text for: the value is set and read back as a number.
    if matches!(c.control_type, ControlType::Spinner | ControlType::Slider)
        && c.capabilities.value
        && let Some(n) = number(&text)
    {
        return set_number(b, ctx, &c, &text, n, mark).await;
    }
    if c.control_type == ControlType::Slider {
        // Keys typed "into" a slider move it, or go nowhere.
        return Err(DesktopError::BadArguments {
            tool: "set_edit_text".into(),
            detail: format!(
                "slider {} ({:?}) takes a number (its value{}), not {text:?}; nothing was typed",
                c.id,
                c.name,
                if c.capabilities.value {
                    ""
                } else {
                    ", which it does not let be set: drag it or use the arrow keys"
                },
            ),
        });
    }
    // A password field is write-only: typed once, never again.
    if kind == TextKind::Masked {
        return set_password(b, ctx, &c, &text, clear, mark).await;
    }
    let before = b.read_text(h).await.ok();
    let set_at = Instant::now();
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
            type_into(b, ctx, &c, &text, clear).await?;
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
        return Ok(json!({
            "text": text, "method": method, "verified": false, "effect": "unverifiable",
            "why": "the control exposes no text to read back",
        }));
    }
    let (mut verified, mut got) = read_until(b, h, ctx.settings.verify_timeout, &ok).await?;
    if !verified && method == "editable_text" && got == before.clone().unwrap_or_default() {
        // The toolkit accepted the call and changed nothing (Firefox's web
        // form fields): type it as a person would.
        method = "typed";
        type_into(b, ctx, &c, &text, clear).await?;
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
    // The application may still be acting on the new text: the next key
    // waits until it is quiet, or it is lost.
    settle(b, ctx, mark).await;
    dialog_quiet(ctx, set_at).await;
    let shown = match kind {
        TextKind::Masked => "●".repeat(got.chars().count()),
        _ => got,
    };
    Ok(json!({
        "text": shown, "method": method, "verified": true, "effect": "confirmed",
        "confirmed": "the control reads back the text",
    }))
}

/// How long after a dialog's field was set `set_edit_text` returns at the
/// earliest (see [`dialog_quiet`]).
const DIALOG_TEXT_QUIET: Duration = Duration::from_millis(300);

/// In a dialog, waits until [`DIALOG_TEXT_QUIET`] after `set_at`, when the
/// text was set. A dialog may act on new text later than its events
/// settle, and silently: a GTK 3 file chooser updates its selection 150 ms
/// after its name changes (`LOCATION_CHANGED_TIMEOUT`), and an {ENTER}
/// before that is lost (mousepad's Save dialog: an {ENTER} 0.1 s after the
/// name was set saved nothing, one 0.15 s or later saved, on a desktop
/// without animations, whose steps settle sooner).
async fn dialog_quiet(ctx: &ToolContext, set_at: Instant) {
    if ctx.window.as_ref().is_some_and(|w| w.dialog) {
        sleep(DIALOG_TEXT_QUIET.saturating_sub(set_at.elapsed())).await;
    }
}

/// A control that holds no text a person could type (a label, a button, a
/// menu item, a tab): typing "into" it would go wherever the keyboard is
/// (a Save dialog's name field took the text meant for its label "Name:",
/// while the tool reported that nothing changed).
fn takes_no_text(c: &Control) -> bool {
    !c.capabilities.editable_text
        && matches!(
            c.control_type,
            ControlType::Text
                | ControlType::Button
                | ControlType::MenuItem
                | ControlType::TabItem
                | ControlType::CheckBox
                | ControlType::RadioButton
                | ControlType::HeaderItem
                | ControlType::Hyperlink
                | ControlType::Image
                | ControlType::ScrollBar
        )
}

/// The error for setting text on `c`, which takes none: names the field a
/// label of that name labels, when the list has one.
fn no_text_here(ctx: &ToolContext, c: &Control) -> DesktopError {
    let field = ctx.controls.iter().find(|o| {
        o.id != c.id
            && matches!(
                o.control_type,
                ControlType::Edit
                    | ControlType::ComboBox
                    | ControlType::Spinner
                    | ControlType::Document
            )
            && !o.name.trim().is_empty()
            && names_match(&c.name, &o.name)
    });
    let instead = match field {
        Some(f) => format!(
            "; set the field it labels instead: id {} ({} {:?})",
            f.id,
            f.control_type.as_str(),
            f.name
        ),
        None => "; pick the field to type into (an Edit, ComboBox or Document)".into(),
    };
    DesktopError::BadArguments {
        tool: "set_edit_text".into(),
        detail: format!(
            "control {} ({} {:?}) takes no text, and nothing was typed{instead}",
            c.id,
            c.control_type.as_str(),
            c.name
        ),
    }
}

/// `text` as a number, when it is one (`640`, `-2.5`, `1,5` with a decimal
/// comma, `1e3`); `None` for anything else, which is then set as text.
fn number(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = if t.matches(',').count() == 1 && !t.contains('.') {
        t.replace(',', ".")
    } else {
        t.to_owned()
    };
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Whether `got` is `want` as a toolkit stores it (a float, maybe rounded
/// to the spin button's digits).
fn same_number(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs().max(1.0)
}

/// A spin button or a slider: its value set through the Value interface
/// (what the application holds, committed), read back as a number. Where
/// the toolkit refuses the value, a spin button's text is typed and
/// committed with Tab, as a person does (GTK keeps typed text uncommitted
/// until the entry is activated or loses focus: GIMP made 1920×1080 of a
/// typed 640×480); a slider, which takes no text, says so.
async fn set_number(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    c: &Control,
    text: &str,
    n: f64,
    mark: Option<u64>,
) -> Result<Value> {
    let h = &c.handle;
    let holds = |got: &f64| same_number(*got, n);
    let mut method = "value";
    match b.set_value(h, n).await {
        Ok(()) => {}
        Err(DesktopError::Unsupported { .. }) => method = "typed",
        Err(e) => return Err(e),
    }
    let mut got = match method {
        "value" => read_value_until(b, h, ctx.settings.verify_timeout, &holds).await?,
        _ => None,
    };
    let kind = match c.control_type {
        ControlType::Slider => "slider",
        _ => "spin button",
    };
    if c.control_type == ControlType::Slider && got.is_none_or(|g| !holds(&g)) {
        return Err(DesktopError::VerificationFailed(format!(
            "slider {} ({:?}) {} after {} was set through the accessibility API: drag it, or focus it and use the arrow keys",
            c.id,
            c.name,
            got.map_or("says no value".to_owned(), |g| format!(
                "holds {}",
                format_number(g)
            )),
            format_number(n),
        )));
    }
    if got.is_none_or(|g| !holds(&g)) {
        method = "typed";
        type_into(b, ctx, c, text, true).await?;
        b.send_keys(&parse_keys("{TAB}")?).await?;
        got = read_value_until(b, h, ctx.settings.verify_timeout, &holds).await?;
    }
    match got {
        Some(g) if holds(&g) => {
            settle(b, ctx, mark).await;
            Ok(json!({
                "text": text, "value": g, "method": method, "verified": true,
                "effect": "confirmed",
                "confirmed": format!("the {kind} holds {}", format_number(g)),
            }))
        }
        Some(g) => Err(DesktopError::VerificationFailed(format!(
            "{kind} {} ({:?}) holds {} after setting {}: the value is outside its range or steps; observe its limits",
            c.id,
            c.name,
            format_number(g),
            format_number(n),
        ))),
        None => Err(DesktopError::VerificationFailed(format!(
            "{kind} {} ({:?}) does not say which value it holds after {text:?} was entered; observe it before going on",
            c.id, c.name
        ))),
    }
}

/// A number as a person writes it (`640`, `2.5`).
fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Reads the element's numeric value until `ok` accepts it or `timeout`
/// passes; the last value read (`None`: it has none to read).
async fn read_value_until(
    b: &dyn Backend,
    h: &ElementHandle,
    timeout: Duration,
    ok: &impl Fn(&f64) -> bool,
) -> Result<Option<f64>> {
    let start = Instant::now();
    loop {
        let got = match b.read_value(h).await {
            Ok(v) => v,
            Err(DesktopError::Unsupported { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if ok(&got) || start.elapsed() >= timeout {
            return Ok(Some(got));
        }
        sleep(POLL).await;
    }
}

/// A password field: write-only, so the text goes in exactly once — typed
/// into the field once it is confirmed to have the keyboard (a toolkit's
/// insert call may take the text without showing it, and a second entry
/// would double the password: KeePassXC opened only with it doubled).
/// Read back where the field exposes its length (one mask per character);
/// where it exposes nothing, the result says it could not be confirmed.
async fn set_password(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    c: &Control,
    text: &str,
    clear: bool,
    mark: Option<u64>,
) -> Result<Value> {
    let h = &c.handle;
    type_into(b, ctx, c, text, clear).await?;
    let want = text.chars().count();
    let ok = |got: &str| reads_as_set(TextKind::Masked, got, text, clear.then_some(text));
    let (verified, got) = read_until(b, h, ctx.settings.verify_timeout, &ok).await?;
    settle(b, ctx, mark).await;
    let masks = "●".repeat(want);
    Ok(match verified {
        true => json!({
            "text": masks, "method": "typed", "verified": true, "effect": "confirmed",
            "confirmed": format!("the field holds {want} characters"),
        }),
        false => json!({
            "text": masks, "method": "typed", "verified": false, "effect": "unverifiable",
            "why": format!(
                "a password field does not show what it holds (it reads {} characters); the text was typed once and must not be entered again",
                got.chars().count()
            ),
        }),
    })
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

/// Focuses the control and types `text`, replacing (`clear`) or appending —
/// once the control is seen to have the keyboard: typing goes wherever the
/// focus is (Kate's open find bar took text meant for the document).
async fn type_into(
    b: &dyn Backend,
    ctx: &ToolContext,
    c: &Control,
    text: &str,
    clear: bool,
) -> Result<()> {
    raise(b, ctx).await;
    take_focus(b, c).await?;
    let mut events = parse_keys(if clear { "^a{DELETE}" } else { "^{END}" })?;
    events.extend(literal_text(text));
    b.send_keys(&events).await
}

/// Whether `h` holds the keyboard focus, read again for a while until it
/// does: `None` when its toolkit does not tell. A control that says it
/// cannot take the focus (a wrapper whose inner field does) is trusted to
/// pass it on.
async fn has_focus(b: &dyn Backend, h: &ElementHandle) -> Result<Option<bool>> {
    let start = Instant::now();
    loop {
        let n = b.refresh_node(h, 0).await?;
        if !n.states.contains(States::FOCUSABLE) {
            return Ok(Some(true));
        }
        // Only what says "focused" is asked further (Qt's views).
        let held = match n.states.contains(States::FOCUSED) {
            true => b.has_keyboard_focus(h).await?,
            false => Some(false),
        };
        match held {
            Some(false) if start.elapsed() < FOCUS_WAIT => {}
            held => return Ok(held),
        }
        sleep(Duration::from_millis(40)).await;
    }
}

/// How long a control is given to report the focus it was given.
const FOCUS_WAIT: Duration = Duration::from_millis(400);

/// What is known of the keyboard focus a control was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Focus {
    /// It holds the focus (read back).
    Held,
    /// Its toolkit does not tell who holds the focus.
    Untold,
}

/// Gives `c` the keyboard focus and confirms it: asked through the
/// accessibility API, then by a click at its centre as a person would;
/// a control that can take the focus and still has not is an error, and
/// nothing is typed.
pub(super) async fn take_focus(b: &dyn Backend, c: &Control) -> Result<Focus> {
    let h = &c.handle;
    if let Err(e) = b.focus_element(h).await {
        tracing::debug!(error = %e, "focusing through the accessibility API failed");
    }
    match has_focus(b, h).await? {
        Some(true) => return Ok(Focus::Held),
        None => return Ok(Focus::Untold),
        Some(false) => {}
    }
    let now = b.refresh_node(h, 0).await?.rect.unwrap_or(c.rect);
    if now.width > 0 && now.height > 0 {
        b.click_at(now.center(), crate::backend::MouseButton::Left, false)
            .await?;
        match has_focus(b, h).await? {
            Some(true) => return Ok(Focus::Held),
            None => return Ok(Focus::Untold),
            Some(false) => {}
        }
    }
    Err(DesktopError::VerificationFailed(format!(
        "control {} ({:?}) would not take the keyboard focus (another control keeps it); nothing was typed — close what holds the focus (a find bar, a popup) or pick another control",
        c.id, c.name
    )))
}

/// Equal, or equal but for trailing newlines (text views often keep one).
fn same_text(got: &str, want: &str) -> bool {
    got == want || got.trim_end_matches('\n') == want.trim_end_matches('\n')
}

fn shorten(s: &str) -> String {
    ufo_core::text::clip(s, 80)
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
    fn numbers_are_read_as_a_person_writes_them() {
        assert_eq!(number("640"), Some(640.0));
        assert_eq!(number(" -2.5 "), Some(-2.5));
        assert_eq!(number("1,5"), Some(1.5));
        assert_eq!(number("1e3"), Some(1000.0));
        assert_eq!(number("50 px"), None);
        assert_eq!(number("1,000.5"), None);
        assert_eq!(number("NaN"), None);
        assert!(same_number(640.0000001, 640.0));
        assert!(!same_number(1920.0, 640.0));
        assert_eq!(format_number(640.0), "640");
        assert_eq!(format_number(2.5), "2.5");
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
