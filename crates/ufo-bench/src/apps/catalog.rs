//! The applications `ufo bench apps` observes — those `scripts/bootstrap.sh`
//! and `scripts/conformance/install.sh` install — with the commands that
//! start each one on something to show, and the files they open.

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

/// A text the document applications open.
const DOC_TEXT: &str =
    "The quick brown fox jumps over the lazy dog.\nA second line of the benchmark document.\n";

/// The page Firefox shows.
const FORM_HTML: &str = r#"<!doctype html>
<html><head><title>Signup</title></head><body>
<p>A benchmark page paragraph.</p>
<form>
<label for="name">Name</label> <input id="name" type="text"><br>
<label for="color">Color</label>
<select id="color"><option>Red</option><option>Green</option><option>Blue</option></select><br>
<input id="sub" type="checkbox"><label for="sub">Subscribe</label>
</form></body></html>
"#;

/// A Firefox profile without first-run pages.
const FIREFOX_PREFS: &str = r#"user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.policy.firstRunURL", "");
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("trailhead.firstrun.didSeeAboutWelcome", true);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("browser.startup.page", 0);
user_pref("browser.newtab.preload", false);
"#;

/// A one-page PDF showing `text` (Helvetica, no compression).
fn pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 24 Tf 72 700 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_owned(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{o}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for o in offsets {
        out.push_str(&format!("{o:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

/// Writes the files the applications open into `work`.
pub(super) fn write_fixtures(work: &Path) -> std::io::Result<()> {
    std::fs::write(work.join("doc.txt"), DOC_TEXT)?;
    std::fs::write(
        work.join("doc.pdf"),
        pdf("A benchmark PDF page with one line of text."),
    )?;
    std::fs::write(work.join("form.html"), FORM_HTML)?;
    for d in ["alpha-folder", "beta-folder", "gamma-folder"] {
        std::fs::create_dir_all(work.join("files").join(d))?;
    }
    std::fs::write(work.join("files").join("notes.txt"), DOC_TEXT)?;
    std::fs::create_dir_all(work.join("ffprofile"))?;
    std::fs::write(work.join("ffprofile").join("user.js"), FIREFOX_PREFS)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_pdf_has_a_consistent_cross_reference_table() {
        let bytes = pdf("x");
        let text = String::from_utf8(bytes).unwrap();
        let xref: usize = text
            .rsplit("startxref\n")
            .next()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(text[xref..].starts_with("xref\n0 6\n"));
        // Each offset in the table points at its object.
        for (i, line) in text[xref..].lines().skip(3).take(5).enumerate() {
            let at: usize = line[..10].parse().unwrap();
            assert!(
                text[at..].starts_with(&format!("{} 0 obj", i + 1)),
                "{line}"
            );
        }
    }

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
