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

use std::path::Path;

/// VLC's web interface port when the file names none (OSWorld's).
pub const VLC_DEFAULT_PORT: u16 = 8080;

/// Where VLC keeps its settings in a home.
const VLCRC: &str = ".config/vlc/vlcrc";

/// Writes the VM's settings into `home` (a task's fresh folder); a file the
/// home has already is left as it is.
pub fn seed(home: &Path) -> std::io::Result<()> {
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
}
