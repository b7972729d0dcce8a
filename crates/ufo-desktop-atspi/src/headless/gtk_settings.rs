//! GTK settings for the applications of a private desktop: animations off
//! (`ufo desktop start --animations` keeps them).
//!
//! An animation is motion no one watches on a headless desktop, and time
//! every step waits for: GTK stays busy while a popover fades in or a stack
//! slides, the accessibility reads that follow wait on it, and a screenshot
//! taken meanwhile shows a frame between two states.
//! `ufo bench step --app gnome-calculator --runs 2` (the same build, runs
//! alternated, 2026-11-27): 149, 163, 173 and 208 ms non-model per step with
//! animations, 101, 111, 129 and 141 ms without. With them off, steps
//! settle sooner, soon enough to meet a GTK 3 file chooser's 150 ms timer
//! after its name changed (an {ENTER} before it fires is lost; see
//! `set_edit_text`'s wait in a dialog). The setting is a `settings.ini` in a
//! configuration folder of the desktop's own, placed after the system's in
//! `XDG_CONFIG_DIRS`, so that the user's own GTK
//! settings still win.

use std::path::{Path, PathBuf};

/// What GTK 3 and 4 read from `gtk-3.0/settings.ini`/`gtk-4.0/settings.ini`.
const SETTINGS: &str = "[Settings]\ngtk-enable-animations=false\n";

/// Writes the settings under `state_dir` (readable by a desktop's account)
/// and returns the configuration folder holding them.
pub(super) fn write(state_dir: &Path) -> std::io::Result<PathBuf> {
    let dir = state_dir.join("xdg");
    for gtk in ["gtk-3.0", "gtk-4.0"] {
        let sub = dir.join(gtk);
        std::fs::create_dir_all(&sub)?;
        std::fs::write(sub.join("settings.ini"), SETTINGS)?;
    }
    Ok(dir)
}

/// The folder of the settings written under `state_dir`, when the
/// desktop turns animations off (`off`).
pub(super) fn when(off: bool, state_dir: &Path) -> std::io::Result<Option<PathBuf>> {
    match off {
        true => write(state_dir).map(Some),
        false => Ok(None),
    }
}

/// `XDG_CONFIG_DIRS` with `dir` after the folders it already names (the
/// specification's default, `/etc/xdg`, when it names none).
pub(super) fn config_dirs(existing: Option<String>, dir: &Path) -> String {
    let existing = existing
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "/etc/xdg".into());
    format!("{existing}:{}", dir.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_desktop_s_folder_comes_after_the_system_s() {
        let dir = Path::new("/s/xdg");
        assert_eq!(config_dirs(None, dir), "/etc/xdg:/s/xdg");
        assert_eq!(config_dirs(Some(" ".into()), dir), "/etc/xdg:/s/xdg");
        assert_eq!(config_dirs(Some("/a:/b".into()), dir), "/a:/b:/s/xdg");
    }

    #[test]
    fn the_settings_turn_animations_off_for_gtk_3_and_4() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = write(tmp.path()).unwrap();
        for gtk in ["gtk-3.0", "gtk-4.0"] {
            let ini = std::fs::read_to_string(dir.join(gtk).join("settings.ini")).unwrap();
            assert!(ini.contains("gtk-enable-animations=false"), "{ini}");
        }
    }
}
