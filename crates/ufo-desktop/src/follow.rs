//! Which window of an application a person is working in.
//!
//! An application is more than its main window: Save As, Open and confirmation
//! dialogs open as new top-level windows, and while a modal one is open the
//! main window takes no input. The AppAgent observes and acts in the window
//! [`foreground`] picks, so the model sees the dialog and its keys reach it;
//! when the dialog closes it is back on the main window.

use ufo_core::WindowInfo;

/// Picks, among `windows` (the showing windows of one application), the one
/// a person would be working in, given the window the application was selected
/// by (`selected`):
///
/// 1. a modal dialog — the focused one, else the last listed (newest);
/// 2. else a focused dialog, else any dialog (the newest);
/// 3. else the application's focused window;
/// 4. else `selected` when it is still open, else the largest window.
///
/// Returns `None` when `windows` is empty.
pub fn foreground<'a>(windows: &'a [WindowInfo], selected: &WindowInfo) -> Option<&'a WindowInfo> {
    let newest_of = |pred: &dyn Fn(&WindowInfo) -> bool| {
        let matching: Vec<&WindowInfo> = windows.iter().filter(|w| pred(w)).collect();
        matching
            .iter()
            .rev()
            .find(|w| w.focused)
            .or_else(|| matching.last())
            .copied()
    };
    newest_of(&|w| w.modal)
        .or_else(|| newest_of(&|w| w.dialog))
        .or_else(|| windows.iter().find(|w| w.focused))
        .or_else(|| windows.iter().find(|w| w.handle == selected.handle))
        .or_else(|| {
            windows.iter().max_by_key(|w| {
                w.rect
                    .map_or(0, |r| i64::from(r.width) * i64::from(r.height))
            })
        })
}

/// A one-line description of `window` for a prompt: its title and, for a
/// dialog, that it is one (and modal).
pub fn describe(window: &WindowInfo) -> String {
    let kind = match (window.dialog, window.modal) {
        (_, true) => "modal dialog",
        (true, false) => "dialog",
        _ => "window",
    };
    format!("{kind} {:?} of {}", window.title, window.app_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::{ElementHandle, Rect};

    fn w(title: &str, dialog: bool, modal: bool, focused: bool) -> WindowInfo {
        WindowInfo {
            id: title.into(),
            app_name: "app".into(),
            pid: Some(1),
            title: title.into(),
            rect: Some(Rect::new(0, 0, 100, 100)),
            focused,
            handle: ElementHandle(format!(":1.1|/{title}")),
            native_id: None,
            dialog,
            modal,
        }
    }

    #[test]
    fn modal_dialog_wins_then_dialog_then_focus_then_selection() {
        let main = w("main", false, false, false);
        let other = w("other", false, false, true);
        let find = w("find", true, false, false);
        let save = w("save", true, true, false);
        let all = vec![main.clone(), other.clone(), find.clone(), save.clone()];
        assert_eq!(foreground(&all, &main).unwrap().title, "save");
        let no_modal = vec![main.clone(), other.clone(), find.clone()];
        assert_eq!(foreground(&no_modal, &main).unwrap().title, "find");
        let no_dialog = vec![main.clone(), other.clone()];
        assert_eq!(foreground(&no_dialog, &main).unwrap().title, "other");
        let plain = vec![w("a", false, false, false), main.clone()];
        assert_eq!(foreground(&plain, &main).unwrap().title, "main");
        assert!(foreground(&[], &main).is_none());
    }

    #[test]
    fn the_focused_modal_beats_a_newer_one() {
        let main = w("main", false, false, false);
        let a = w("a", true, true, true);
        let b = w("b", true, true, false);
        assert_eq!(foreground(&[main.clone(), a, b], &main).unwrap().title, "a");
    }

    #[test]
    fn descriptions_say_what_kind_of_window() {
        assert_eq!(
            describe(&w("Save As", true, true, true)),
            "modal dialog \"Save As\" of app"
        );
        assert_eq!(
            describe(&w("Doc", false, false, true)),
            "window \"Doc\" of app"
        );
    }
}
