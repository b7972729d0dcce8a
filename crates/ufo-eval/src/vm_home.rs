//! What OSWorld's VM has in its user's home that tasks count on, written
//! into each task's fresh home before its desktop starts
//! ([`crate::run::TaskDesktop::vm_home`]).
//!
//! - VLC's web interface: the VM's VLC runs with the `http` interface and
//!   the Lua HTTP password `password` (OSWorld's `evaluators/README.md`,
//!   "Setting Up VLC's HTTP Interface"), which the getter
//!   `vlc_playing_info` reads. Here `~/.config/vlc/vlcrc` says so, and
//!   turns off the first-run privacy question the VM's VLC was past. The
//!   VM's port is 8080; tasks side by side share this host's network, so
//!   each home gets a port of its own, free when written, which the
//!   getter reads back from the same file ([`vlc_port`]).
//! - The applications that open office documents: on the VM a spreadsheet,
//!   a document or a presentation opened by a setup step's `open`
//!   (`xdg-open`) comes up in LibreOffice, whose window title its
//!   postconfig activates ("BoomerangSales.xlsx - LibreOffice Calc"). A host
//!   may prefer another program (Gnumeric took `.xlsx` on one: the window
//!   was never found and the file never saved), so `~/.config/mimeapps.list`
//!   names LibreOffice's for their types ([`OFFICE_DEFAULTS`]).
//! - The video player: the VM (Ubuntu's GNOME) plays videos in Totem, and a
//!   task asks for VLC instead (`default_video_player`). The same file
//!   names Totem for every video type the getter asks about
//!   ([`VIDEO_PLAYER`]). `xdg-mime` passes over a default whose application
//!   is not installed: on a host without Totem the answer is the host's
//!   (`apt-get install totem` makes it the VM's).
//! - GSettings the VM's snapshot holds where Debian's schemas say
//!   otherwise ([`VM_GSETTINGS`]: the screen does not lock, which a task
//!   asks to turn on), set on the task desktop's own dconf when it starts
//!   (`apply_gsettings`).

use std::path::Path;

/// VLC's web interface port when the file names none (OSWorld's).
pub const VLC_DEFAULT_PORT: u16 = 8080;

/// Where VLC keeps its settings in a home.
const VLCRC: &str = ".config/vlc/vlcrc";

/// Where the desktop's default applications per type are kept in a home
/// (read by `xdg-open`, `xdg-mime` and GIO's `gio open`).
const MIMEAPPS: &str = ".config/mimeapps.list";

/// The VM's application for each office type: LibreOffice's (media types
/// as shared-mime-info names them).
pub const OFFICE_DEFAULTS: &[(&str, &str)] = &[
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "libreoffice-calc.desktop",
    ),
    ("application/vnd.ms-excel", "libreoffice-calc.desktop"),
    (
        "application/vnd.oasis.opendocument.spreadsheet",
        "libreoffice-calc.desktop",
    ),
    ("text/csv", "libreoffice-calc.desktop"),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "libreoffice-writer.desktop",
    ),
    ("application/msword", "libreoffice-writer.desktop"),
    (
        "application/vnd.oasis.opendocument.text",
        "libreoffice-writer.desktop",
    ),
    ("application/rtf", "libreoffice-writer.desktop"),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "libreoffice-impress.desktop",
    ),
    (
        "application/vnd.ms-powerpoint",
        "libreoffice-impress.desktop",
    ),
    (
        "application/vnd.oasis.opendocument.presentation",
        "libreoffice-impress.desktop",
    ),
];

/// The video types (`video/...`) OSWorld's `get_default_video_player`
/// asks `xdg-mime` about (its list names each twice but `x-ogm+ogg`), and
/// the ones the VM's default player is written for.
pub const VIDEO_TYPES: &[&str] = &[
    "3gp",
    "3gpp",
    "3gpp2",
    "avi",
    "divx",
    "dv",
    "fli",
    "flv",
    "mp2t",
    "mp4",
    "mp4v-es",
    "mpeg",
    "mpeg-system",
    "msvideo",
    "ogg",
    "quicktime",
    "vnd.divx",
    "vnd.mpegurl",
    "vnd.rn-realvideo",
    "webm",
    "x-anim",
    "x-avi",
    "x-flc",
    "x-fli",
    "x-flv",
    "x-m4v",
    "x-matroska",
    "x-mpeg",
    "x-mpeg-system",
    "x-mpeg2",
    "x-ms-asf",
    "x-ms-asf-plugin",
    "x-ms-asx",
    "x-ms-wm",
    "x-ms-wmv",
    "x-ms-wmx",
    "x-ms-wvx",
    "x-msvideo",
    "x-nsv",
    "x-ogm",
    "x-ogm+ogg",
    "x-theora",
    "x-theora+ogg",
];

/// The VM's default video player (Ubuntu's), by its desktop file.
pub const VIDEO_PLAYER: &str = "org.gnome.Totem.desktop";

/// GSettings (schema, key, value as `gsettings set` takes it) whose value
/// on OSWorld's VM differs from Debian's schema default. The screen lock:
/// off on the VM (a task asks to turn it on and reads `true` as done), on
/// in Debian's schema.
pub const VM_GSETTINGS: &[(&str, &str, &str)] =
    &[("org.gnome.desktop.screensaver", "lock-enabled", "false")];

/// Writes the VM's settings into `home` (a task's fresh folder); a file the
/// home has already is left as it is.
pub fn seed(home: &Path) -> std::io::Result<()> {
    let mimeapps = home.join(MIMEAPPS);
    if !mimeapps.exists() {
        std::fs::create_dir_all(mimeapps.parent().unwrap_or(home))?;
        let mut text = String::from("[Default Applications]\n");
        for (media_type, app) in OFFICE_DEFAULTS {
            text.push_str(&format!("{media_type}={app}\n"));
        }
        for t in VIDEO_TYPES {
            text.push_str(&format!("video/{t}={VIDEO_PLAYER}\n"));
        }
        std::fs::write(&mimeapps, text)?;
    }
    let vlcrc = home.join(VLCRC);
    if !vlcrc.exists() {
        let port = free_port()?;
        std::fs::create_dir_all(vlcrc.parent().unwrap_or(home))?;
        std::fs::write(
            &vlcrc,
            format!(
                "[qt]\nqt-privacy-ask=0\n\n[lua]\nhttp-password=password\n\n[core]\nextraintf=http\nhttp-port={port}\n"
            ),
        )?;
    }
    Ok(())
}

/// Sets [`VM_GSETTINGS`] on `desktop` (its session bus, its dconf, as its
/// account). A key this host's schemas lack is named in the error; the
/// caller records it and the task goes on.
pub(crate) async fn apply_gsettings(
    desktop: &ufo_desktop_atspi::HeadlessDesktop,
    places: &crate::task::Places,
) -> Result<(), String> {
    let mut failed = Vec::new();
    for (schema, key, value) in VM_GSETTINGS {
        let cmd = crate::command::Cmd::Words(
            ["gsettings", "set", schema, key, value]
                .map(str::to_owned)
                .to_vec(),
        );
        let why = match crate::command::run(desktop, places, &cmd, GSETTINGS_TIMEOUT).await {
            Ok(out) if out.code == 0 => continue,
            Ok(out) => out.stderr.trim().to_owned(),
            Err((m, _)) => m,
        };
        failed.push(format!("{schema} {key}: {why}"));
    }
    match failed.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "the VM's GSettings could not be set ({}); install gsettings-desktop-schemas",
            failed.join("; ")
        )),
    }
}

/// How long one `gsettings set` may take (it starts dconf on first use).
const GSETTINGS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The port of VLC's web interface in `home`'s `vlcrc`
/// ([`VLC_DEFAULT_PORT`] when it names none or cannot be read).
pub fn vlc_port(home: &Path) -> u16 {
    std::fs::read_to_string(home.join(VLCRC))
        .ok()
        .and_then(|t| {
            t.lines()
                .filter_map(|l| l.trim().strip_prefix("http-port="))
                .find_map(|v| v.trim().parse().ok())
        })
        .unwrap_or(VLC_DEFAULT_PORT)
}

/// A TCP port on the loopback nobody listens on now.
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_home_gets_vlc_s_web_interface_on_a_port_of_its_own() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        seed(a.path()).unwrap();
        seed(b.path()).unwrap();
        let text = std::fs::read_to_string(a.path().join(VLCRC)).unwrap();
        assert!(text.contains("extraintf=http\n") && text.contains("http-password=password\n"));
        let (pa, pb) = (vlc_port(a.path()), vlc_port(b.path()));
        assert!(
            pa != VLC_DEFAULT_PORT && pb != VLC_DEFAULT_PORT,
            "{pa} {pb}"
        );
        // A home with its own file keeps it; one without reads as the VM's.
        std::fs::write(a.path().join(VLCRC), "[core]\n").unwrap();
        seed(a.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(a.path().join(VLCRC)).unwrap(),
            "[core]\n"
        );
        assert_eq!(vlc_port(a.path()), VLC_DEFAULT_PORT);
        assert_eq!(vlc_port(Path::new("/nonexistent")), VLC_DEFAULT_PORT);
    }

    /// The home's defaults are what `xdg-mime` (and so `xdg-open`) answers,
    /// whatever the host prefers.
    #[test]
    fn office_documents_open_in_libreoffice_as_on_the_vm() {
        let home = tempfile::tempdir().unwrap();
        seed(home.path()).unwrap();
        let text = std::fs::read_to_string(home.path().join(MIMEAPPS)).unwrap();
        assert!(text.starts_with("[Default Applications]\n"), "{text}");
        if !crate::command::installed("xdg-mime") {
            return;
        }
        for (media_type, app) in OFFICE_DEFAULTS {
            let out = std::process::Command::new("xdg-mime")
                .args(["query", "default", media_type])
                .env("HOME", home.path())
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("XDG_CURRENT_DESKTOP")
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                *app,
                "{media_type}"
            );
        }
    }

    /// Videos open in the VM's player: `xdg-mime` answers Totem for each
    /// type the `default_video_player` getter asks about (when Totem is
    /// installed; otherwise it passes over the default, as the module says).
    #[test]
    fn videos_open_in_the_vm_s_player() {
        let home = tempfile::tempdir().unwrap();
        seed(home.path()).unwrap();
        let text = std::fs::read_to_string(home.path().join(MIMEAPPS)).unwrap();
        for t in VIDEO_TYPES {
            assert!(
                text.contains(&format!("\nvideo/{t}={VIDEO_PLAYER}\n")),
                "{t}: {text}"
            );
        }
        if !crate::command::installed("xdg-mime") || !crate::command::installed("totem") {
            return;
        }
        for t in ["mp4", "x-matroska", "webm"] {
            let out = std::process::Command::new("xdg-mime")
                .args(["query", "default", &format!("video/{t}")])
                .env("HOME", home.path())
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("XDG_CURRENT_DESKTOP")
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), VIDEO_PLAYER);
        }
    }
}
