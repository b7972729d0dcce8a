//! The applications `ufo bench apps` observes — those `scripts/bootstrap.sh`
//! and `scripts/conformance/install.sh` install — with the commands that
//! start each one on something to show. The files they open are
//! `ufo_testkit::apps`' tree, written into the work folder.

use std::path::Path;

/// One application of the benchmark.
#[derive(Debug, Clone, Copy)]
pub struct AppSpec {
    /// The name `--apps` takes.
    pub key: &'static str,
    /// Its toolkit, for the report.
    pub toolkit: &'static str,
    /// The command; `$WORK` is the benchmark's fixture folder.
    pub argv: &'static [&'static str],
    /// The Debian package that provides it.
    pub package: &'static str,
}

/// Every application, in report order.
pub const APPS: &[AppSpec] = &[
    spec("gedit", "GTK 3", &["gedit", "-s", "$WORK/doc.txt"], "gedit"),
    spec(
        "mousepad",
        "GTK 3",
        &["mousepad", "$WORK/doc.txt"],
        "mousepad",
    ),
    spec(
        "gtk3-widget-factory",
        "GTK 3",
        &["gtk3-widget-factory"],
        "gtk-3-examples",
    ),
    spec("galculator", "GTK 3", &["galculator"], "galculator"),
    spec("thunar", "GTK 3", &["thunar", "$WORK/files"], "thunar"),
    spec("evince", "GTK 3", &["evince", "$WORK/doc.pdf"], "evince"),
    spec(
        "zenity",
        "GTK 3",
        &[
            "zenity", "--list", "--column", "Fruit", "apple", "banana", "cherry",
        ],
        "zenity",
    ),
    spec("gnumeric", "GTK 3", &["gnumeric"], "gnumeric"),
    spec("abiword", "GTK 3", &["abiword"], "abiword"),
    spec(
        "xfce4-terminal",
        "GTK 3 (VTE)",
        &["xfce4-terminal", "--disable-server"],
        "xfce4-terminal",
    ),
    spec(
        "gnome-calculator",
        "GTK 4",
        &["gnome-calculator"],
        "gnome-calculator",
    ),
    spec(
        "gnome-text-editor",
        "GTK 4",
        &["gnome-text-editor", "--standalone"],
        "gnome-text-editor",
    ),
    spec("gtk4-demo", "GTK 4", &["gtk4-demo"], "gtk-4-examples"),
    spec(
        "featherpad",
        "Qt 5",
        &["featherpad", "--standalone", "$WORK/doc.txt"],
        "featherpad",
    ),
    spec("kcalc", "Qt 5", &["kcalc"], "kcalc"),
    spec(
        "qpdfview",
        "Qt 5",
        &["qpdfview", "$WORK/doc.pdf"],
        "qpdfview",
    ),
    spec("qt6ct", "Qt 6", &["qt6ct"], "qt6ct"),
    spec(
        "soffice-writer",
        "LibreOffice (VCL gtk3)",
        &["soffice", "--writer", "--norestore", "--nologo"],
        "libreoffice-writer",
    ),
    spec(
        "soffice-calc",
        "LibreOffice (VCL gtk3)",
        &["soffice", "--calc", "--norestore", "--nologo"],
        "libreoffice-calc",
    ),
    spec(
        "firefox-esr",
        "Firefox (Gecko)",
        &[
            "firefox-esr",
            "--new-instance",
            "--no-remote",
            "--profile",
            "$WORK/ffprofile",
            "file://$WORK/form.html",
        ],
        "firefox-esr",
    ),
];

const fn spec(
    key: &'static str,
    toolkit: &'static str,
    argv: &'static [&'static str],
    package: &'static str,
) -> AppSpec {
    AppSpec {
        key,
        toolkit,
        argv,
        package,
    }
}

impl AppSpec {
    /// The command with `$WORK` replaced by `work`.
    pub fn command(&self, work: &Path) -> Vec<String> {
        let w = work.display().to_string();
        self.argv.iter().map(|a| a.replace("$WORK", &w)).collect()
    }

    /// Whether its program is on `PATH`.
    pub fn installed(&self) -> bool {
        let Some(program) = self.argv.first() else {
            return false;
        };
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn keys_are_unique_and_commands_take_the_work_folder() {
        let mut keys: Vec<_> = APPS.iter().map(|a| a.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), APPS.len());
        let evince = APPS.iter().find(|a| a.key == "evince").unwrap();
        assert_eq!(
            evince.command(Path::new("/w")),
            vec!["evince".to_owned(), "/w/doc.pdf".to_owned()]
        );
    }
}
