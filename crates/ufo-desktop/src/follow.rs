//! Which window of an application a person is working in.
//!
//! An application is more than its main window: Save As, Open and confirmation
//! dialogs open as new top-level windows, and while a modal one is open the
//! main window takes no input. The AppAgent observes and acts in the window
//! [`foreground`] picks, so the model sees the dialog and its keys reach it;
//! when the dialog closes it is back on the main window.

use ufo_core::WindowInfo;

/// Picks, among `windows` (the showing windows of one application process),
/// the one a person would be working in, given the window the application
/// was selected by (`selected`):
///
/// 1. a modal dialog of `selected` — the focused one, else the newest —
///    that has no modal dialog of its own open (the innermost one);
/// 2. else another dialog of `selected`, likewise;
/// 3. else `selected` itself while it is open;
/// 4. else the focused window, else the largest.
///
/// A dialog belongs to `selected` unless it names another listed window as
/// its owner (LibreOffice runs every document in one process: Calc's Save
/// dialog is not Writer's). Returns `None` when `windows` is empty.
pub fn foreground<'a>(windows: &'a [WindowInfo], selected: &WindowInfo) -> Option<&'a WindowInfo> {
    let listed = |id: u64| windows.iter().any(|w| w.native_id == Some(id));
    let owned_by_selected = |w: &WindowInfo| match w.owner {
        None => true,
        Some(o) => selected.native_id == Some(o) || !listed(o),
    };
    // A dialog opened from a dialog of `selected` belongs to it too.
    let belongs = |w: &WindowInfo| {
        owned_by_selected(w)
            || windows.iter().any(|p| {
                p.dialog && owned_by_selected(p) && p.native_id.is_some() && w.owner == p.native_id
            })
    };
    // A dialog with a modal dialog of its own open is behind it: the
    // innermost one is where the work is, whichever has the focus.
    let blocked = |w: &WindowInfo| {
        w.native_id.is_some()
            && windows
                .iter()
                .any(|c| c.modal && c.handle != w.handle && c.owner == w.native_id)
    };
    let newest_of = |pred: &dyn Fn(&WindowInfo) -> bool| {
        let matching: Vec<&WindowInfo> = windows
            .iter()
            .filter(|w| w.handle != selected.handle && pred(w) && belongs(w) && !blocked(w))
            .collect();
        matching
            .iter()
            .rev()
            .find(|w| w.focused)
            .or_else(|| matching.last())
            .copied()
    };
    newest_of(&|w| w.modal)
        .or_else(|| newest_of(&|w| w.dialog))
        .or_else(|| windows.iter().find(|w| w.handle == selected.handle))
        .or_else(|| windows.iter().find(|w| w.focused))
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
            owner: None,
        }
    }

    #[test]
    fn modal_dialog_wins_then_dialog_then_selection_then_focus() {
        let main = w("main", false, false, false);
        let other = w("other", false, false, true);
        let find = w("find", true, false, false);
        let save = w("save", true, true, false);
        let all = vec![main.clone(), other.clone(), find.clone(), save.clone()];
        assert_eq!(foreground(&all, &main).unwrap().title, "save");
        let no_modal = vec![main.clone(), other.clone(), find.clone()];
        assert_eq!(foreground(&no_modal, &main).unwrap().title, "find");
        // Another document window of the same process is not followed.
        let no_dialog = vec![main.clone(), other.clone()];
        assert_eq!(foreground(&no_dialog, &main).unwrap().title, "main");
        // Once the selected window is gone, the focused one.
        assert_eq!(
            foreground(std::slice::from_ref(&other), &main)
                .unwrap()
                .title,
            "other"
        );
        assert!(foreground(&[], &main).is_none());
    }

    #[test]
    fn the_innermost_modal_dialog_wins_over_a_focused_outer_one() {
        let mut main = w("main", false, false, false);
        main.native_id = Some(1);
        let mut outer = w("outer", true, true, true);
        outer.native_id = Some(2);
        outer.owner = Some(1);
        let mut inner = w("inner", true, true, false);
        inner.native_id = Some(3);
        inner.owner = Some(2);
        let all = vec![main.clone(), outer.clone(), inner];
        assert_eq!(foreground(&all, &main).unwrap().title, "inner");
        // Once the inner one closes, the outer one again.
        let all = vec![main.clone(), outer];
        assert_eq!(foreground(&all, &main).unwrap().title, "outer");
    }

    #[test]
    fn a_dialog_owned_by_another_document_is_not_followed() {
        let mut writer = w("writer", false, false, false);
        writer.native_id = Some(1);
        let mut calc = w("calc", false, false, true);
        calc.native_id = Some(2);
        let mut calc_save = w("calc save", true, true, true);
        calc_save.native_id = Some(3);
        calc_save.owner = Some(2);
        let mut writer_save = w("writer save", true, true, false);
        writer_save.native_id = Some(4);
        writer_save.owner = Some(1);
        let mut confirm = w("keep format?", true, true, false);
        confirm.native_id = Some(5);
        confirm.owner = Some(4);
        let all = vec![writer.clone(), calc.clone(), calc_save.clone()];
        assert_eq!(foreground(&all, &writer).unwrap().title, "writer");
        assert_eq!(foreground(&all, &calc).unwrap().title, "calc save");
        let mut more = all.clone();
        more.push(writer_save.clone());
        assert_eq!(foreground(&more, &writer).unwrap().title, "writer save");
        // A dialog opened from the selected window's dialog belongs to it.
        let nested = vec![writer.clone(), writer_save, confirm];
        assert_eq!(foreground(&nested, &writer).unwrap().title, "keep format?");
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
