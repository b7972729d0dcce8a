//! Which applications `run_shell` may start, and how its command is read.
//!
//! Never a shell: the command is split into words at whitespace and executed
//! directly. The program must be on the allowlist: the applications that have
//! a desktop entry (`Exec=` of `/usr/share/applications/*.desktop`) plus the
//! config's `APP_ALLOWLIST`. Shell syntax (`;`, `|`, `&`, `$`, backquotes,
//! redirections, globs, quotes, `~`) and paths (`/usr/bin/x`, `./x`, `../x`) are
//! refused, with an error that says what is allowed.
//!
//! What the program is given is checked too, since an allowed program's
//! options can do what a shell does (`libreoffice --convert-to … --outdir
//! DIR` writes anywhere, a browser's `--remote-debugging-port` hands the
//! browser to whoever connects, VLC's `--extraintf=http` serves the
//! machine): no option unless listed for that program in [`SAFE_OPTIONS`],
//! a path only inside the work area ([`Allowlist::work_area`]: the current
//! directory, the home folder and the temporary folder unless set), a URL
//! only over http(s). A shell or an interpreter ([`INTERPRETERS`]) is never
//! started, whatever a desktop entry or `APP_ALLOWLIST` says. Desktop entries
//! count only from directories and files owned by root and writable by no
//! one else, read once per process ([`Allowlist::system`]): an entry written
//! during a session does not take effect.

use crate::error::DesktopError;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// The programs `run_shell` may start, and where their files may be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    programs: BTreeSet<String>,
    /// Directories a path argument must be inside (empty: the defaults,
    /// see [`Allowlist::work_area`]).
    work_area: Vec<PathBuf>,
}

/// Programs never started, whatever lists them: shells, interpreters and
/// the programs whose job is to run another (`env`, `sudo`, `xargs`, …).
/// Names with a version (`python3.11`, `perl5.36`) are matched by their
/// stem.
pub const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "fish",
    "rbash",
    "busybox",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "irb",
    "node",
    "nodejs",
    "deno",
    "bun",
    "lua",
    "luajit",
    "php",
    "tclsh",
    "wish",
    "expect",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "env",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "runuser",
    "nohup",
    "setsid",
    "xargs",
    "timeout",
    "nice",
    "ionice",
    "chroot",
    "strace",
    "ltrace",
    "gdb",
    "script",
    "watch",
    "at",
    "batch",
    "crontab",
    "systemd-run",
    "dbus-send",
    "gdbus",
    "xdg-open",
    "gio",
    "flatpak",
    "snap",
    "java",
    "jshell",
    "osascript",
    "pwsh",
    "powershell",
    "cmd",
    "wine",
    "wine64",
];

/// The options `run_shell` may give a program: `(programs, options)`, `*`
/// for any program. Each opens a window and does nothing else.
pub const SAFE_OPTIONS: &[(&[&str], &[&str])] = &[
    (
        &["*"],
        &[
            "--new-window",
            "--new-tab",
            "--new-document",
            "--private-window",
            "--incognito",
        ],
    ),
    (
        &[
            "libreoffice",
            "soffice",
            "localc",
            "lowriter",
            "loimpress",
            "lodraw",
            "lomath",
        ],
        &[
            "--calc",
            "--writer",
            "--impress",
            "--draw",
            "--math",
            "--web",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--view",
            "--show",
        ],
    ),
    (
        &["firefox", "firefox-esr", "thunderbird"],
        &["-new-window", "-new-tab", "-private-window"],
    ),
];

/// The desktop entries' programs, read once per process.
static SYSTEM_ENTRIES: OnceLock<BTreeSet<String>> = OnceLock::new();

/// Characters that mean shell syntax; a command holding any is refused.
const SHELL_SYNTAX: &[char] = &[
    ';', '|', '&', '$', '`', '<', '>', '(', ')', '{', '}', '*', '?', '[', ']', '!', '~', '"', '\'',
    '\\', '\n', '\r', '#',
];

/// At most this many bytes of command are read.
const MAX_COMMAND: usize = 1024;

impl Allowlist {
    /// The programs of the desktop entries in `dirs` (normally
    /// [`Allowlist::SYSTEM_DIRS`]) plus `extra` (program names). An entry
    /// counts only when it and its directory are owned by root and writable
    /// by no one else.
    pub fn from_desktop_entries(dirs: &[&Path], extra: &[String]) -> Self {
        Self::with_extra(entry_programs(dirs), extra)
    }

    /// `programs` plus the names in `extra`.
    fn with_extra(mut programs: BTreeSet<String>, extra: &[String]) -> Self {
        programs.extend(
            extra
                .iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
        );
        Self {
            programs,
            work_area: Vec::new(),
        }
    }

    /// Where desktop entries live.
    pub const SYSTEM_DIRS: &'static [&'static str] =
        &["/usr/share/applications", "/usr/local/share/applications"];

    /// The system's desktop entries (as they were when this process first
    /// asked) plus `extra`.
    pub fn system(extra: &[String]) -> Self {
        let entries = SYSTEM_ENTRIES.get_or_init(|| {
            let dirs: Vec<&Path> = Self::SYSTEM_DIRS.iter().map(Path::new).collect();
            entry_programs(&dirs)
        });
        Self::with_extra(entries.clone(), extra)
    }

    /// Exactly these programs.
    pub fn of<I: IntoIterator<Item = S>, S: Into<String>>(programs: I) -> Self {
        Self {
            programs: programs.into_iter().map(Into::into).collect(),
            work_area: Vec::new(),
        }
    }

    /// Path arguments must be inside one of `dirs`.
    pub fn with_work_area(mut self, dirs: Vec<PathBuf>) -> Self {
        self.work_area = dirs;
        self
    }

    /// The directories a path argument must be inside: as set, or the
    /// current directory, the home folder and the temporary folder.
    pub fn work_area(&self) -> Vec<PathBuf> {
        if !self.work_area.is_empty() {
            return self.work_area.clone();
        }
        let mut dirs: Vec<PathBuf> = [
            std::env::current_dir().ok(),
            std::env::var_os("HOME").map(PathBuf::from),
            Some(std::env::temp_dir()),
        ]
        .into_iter()
        .flatten()
        .filter(|d| d.is_absolute() && d != Path::new("/"))
        .collect();
        dirs.dedup();
        dirs
    }

    /// The allowed programs, sorted.
    pub fn programs(&self) -> impl Iterator<Item = &str> {
        self.programs.iter().map(String::as_str)
    }

    /// Whether `program` may be started.
    pub fn allows(&self, program: &str) -> bool {
        self.programs.contains(program)
    }

    /// Reads `command` as the words to execute, or says why not.
    pub fn parse(&self, command: &str) -> Result<Vec<String>, DesktopError> {
        let refuse = |why: String| DesktopError::CommandRefused {
            command: command.chars().take(200).collect(),
            reason: why,
        };
        if command.len() > MAX_COMMAND {
            return Err(refuse(format!("it is longer than {MAX_COMMAND} bytes")));
        }
        if let Some(c) = command.chars().find(|c| SHELL_SYNTAX.contains(c)) {
            return Err(refuse(format!(
                "{c:?} is shell syntax; run_shell runs one program with plain arguments, no shell"
            )));
        }
        let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        let Some(program) = words.first() else {
            return Err(refuse(
                "it is empty; give the program to start, e.g. \"mousepad\"".into(),
            ));
        };
        if program.contains('/') {
            return Err(refuse(format!(
                "{program:?} is a path; give the program's name, e.g. {:?}",
                program.rsplit('/').next().unwrap_or_default()
            )));
        }
        if is_interpreter(program) {
            return Err(refuse(format!(
                "{program:?} is a shell or runs other programs; run_shell starts applications only"
            )));
        }
        if !self.allows(program) {
            return Err(refuse(format!(
                "{program:?} is not an application that may be started"
            )));
        }
        let area = self.work_area();
        for w in &words[1..] {
            self.check_argument(program, w, &area).map_err(refuse)?;
        }
        Ok(words)
    }

    /// One argument of `program`: a listed option, an http(s) URL, or a
    /// path inside the work area (a word that names nothing on disk is a
    /// path all the same: it may be created).
    fn check_argument(&self, program: &str, w: &str, area: &[PathBuf]) -> Result<(), String> {
        if w.starts_with('-') {
            let listed = SAFE_OPTIONS.iter().any(|(programs, options)| {
                (programs.contains(&"*") || programs.contains(&program)) && options.contains(&w)
            });
            return match listed {
                true => Ok(()),
                false => Err(format!(
                    "the option {w:?} is not one run_shell may give {program}; options it may give: {}",
                    options_for(program).join(", ")
                )),
            };
        }
        let lower = w.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Ok(());
        }
        let path = match lower.strip_prefix("file://") {
            Some(_) => &w[7..],
            None if w.contains("://")
                || lower.starts_with("javascript:")
                || lower.starts_with("data:") =>
            {
                return Err(format!(
                    "{w:?} is a URL run_shell does not open; give an http(s) URL or a file's path"
                ));
            }
            None => w,
        };
        let full = resolve(path);
        match area.iter().any(|d| full.starts_with(resolve_dir(d))) {
            true => Ok(()),
            false => Err(format!(
                "{w:?} is outside the work area; run_shell opens files only in {}",
                area.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// Whether `program` is a shell or an interpreter (by its name without a
/// version suffix: `python3.11` → `python3`, `perl5.36` → `perl`).
pub fn is_interpreter(program: &str) -> bool {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&program) || INTERPRETERS.contains(&stem)
}

/// The options `run_shell` may give `program`.
fn options_for(program: &str) -> Vec<&'static str> {
    SAFE_OPTIONS
        .iter()
        .filter(|(programs, _)| programs.contains(&"*") || programs.contains(&program))
        .flat_map(|(_, options)| options.iter().copied())
        .collect()
}

/// `path` made absolute (against the current directory), its `.` and `..`
/// resolved by their names, and its symbolic links followed as far as it
/// exists: the file a program given `path` would open.
fn resolve(path: &str) -> PathBuf {
    let p = Path::new(path);
    let abs = match p.is_absolute() {
        true => p.to_path_buf(),
        false => std::env::current_dir().unwrap_or_default().join(p),
    };
    // The longest existing ancestor is canonicalized (links followed), the
    // rest appended by name.
    let mut existing = abs.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalize(&out);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return normalize(&abs),
        }
    }
}

/// A directory of the work area as a path inside it would resolve.
fn resolve_dir(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| normalize(dir))
}

/// `.` and `..` resolved by name.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The programs of the trusted desktop entries in `dirs`.
fn entry_programs(dirs: &[&Path]) -> BTreeSet<String> {
    let mut programs = BTreeSet::new();
    for dir in dirs {
        if !dir.exists() {
            continue;
        }
        if !trusted(dir) {
            tracing::warn!(dir = %dir.display(), "desktop entries skipped: the directory is not owned by root or others may write to it");
            continue;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "desktop")
                && trusted(&p)
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                programs.extend(exec_program(&text).filter(|n| !is_interpreter(n)));
            }
        }
    }
    programs
}

/// True when `path` is owned by root (or by the user ufo runs as) and
/// neither its group nor others may write to it (what a package manager
/// installs). Elsewhere than on Unix, where there are no desktop entries,
/// true.
fn trusted(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // `/proc/self` belongs to the process's effective user.
        let me = std::fs::metadata("/proc/self").map_or(0, |m| m.uid());
        match std::fs::metadata(path) {
            Ok(m) => (m.uid() == 0 || m.uid() == me) && m.mode() & 0o022 == 0,
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        true
    }
}

/// The program of a desktop entry's main `Exec=` line (field codes such as
/// `%U` and any path are dropped); `None` for hidden or terminal entries.
fn exec_program(entry: &str) -> Option<String> {
    let mut in_main = false;
    let mut program = None;
    for line in entry.lines().map(str::trim) {
        if line.starts_with('[') {
            in_main = line == "[Desktop Entry]";
            continue;
        }
        if !in_main {
            continue;
        }
        if matches!(line, "NoDisplay=true" | "Hidden=true" | "Terminal=true") {
            return None;
        }
        if let Some(exec) = line.strip_prefix("Exec=") {
            let mut words = exec.split_whitespace();
            let mut first = words.next()?;
            if first == "env" {
                first = words.find(|w| !w.contains('='))?;
            }
            let name = first.trim_matches('"').rsplit('/').next()?.to_owned();
            if !name.is_empty() && !name.contains(SHELL_SYNTAX) {
                program = Some(name);
            }
        }
    }
    program
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desktop_entries_give_their_programs() {
        let dir = tempfile::tempdir().unwrap();
        let write = |n: &str, t: &str| std::fs::write(dir.path().join(n), t).unwrap();
        write(
            "a.desktop",
            "[Desktop Entry]\nName=Pad\nExec=/usr/bin/mousepad %U\n[Desktop Action new]\nExec=other --new\n",
        );
        write(
            "b.desktop",
            "[Desktop Entry]\nExec=env GDK_BACKEND=x11 gnome-calculator\n",
        );
        write(
            "c.desktop",
            "[Desktop Entry]\nExec=hidden-tool\nNoDisplay=true\n",
        );
        write("d.desktop", "[Desktop Entry]\nExec=htop\nTerminal=true\n");
        write("e.txt", "[Desktop Entry]\nExec=nope\n");
        // An entry that runs a shell or an interpreter gives nothing.
        write("f.desktop", "[Desktop Entry]\nExec=sh -c 'curl x | sh'\n");
        write(
            "g.desktop",
            "[Desktop Entry]\nExec=/usr/bin/python3.11 tool.py\n",
        );
        // Nor does one that others may write to.
        write("h.desktop", "[Desktop Entry]\nExec=planted\n");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("h.desktop"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let a = Allowlist::from_desktop_entries(&[dir.path()], &["featherpad".into()]);
        let got: Vec<&str> = a.programs().collect();
        assert_eq!(got, ["featherpad", "gnome-calculator", "mousepad"]);
        // A directory others may write to gives nothing at all.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let a = Allowlist::from_desktop_entries(&[dir.path()], &[]);
        assert_eq!(a.programs().count(), 0);
    }

    #[test]
    fn arguments_are_listed_options_urls_and_paths_in_the_work_area() {
        let area = tempfile::tempdir().unwrap();
        let inside = area.path().join("notes.txt");
        std::fs::write(&inside, "x").unwrap();
        let a = Allowlist::of(["libreoffice", "firefox", "vlc", "gedit", "sh", "python3"])
            .with_work_area(vec![area.path().to_path_buf()]);
        let ok = [
            format!("gedit {}", inside.display()),
            format!("gedit {}/new.txt", area.path().display()),
            format!("libreoffice --calc --norestore {}", inside.display()),
            "firefox --new-window https://example.com/a/b".to_owned(),
            format!("firefox file://{}", inside.display()),
        ];
        for cmd in &ok {
            assert!(a.parse(cmd).is_ok(), "{cmd}: {:?}", a.parse(cmd));
        }
        let outside = format!("{}/../elsewhere.txt", area.path().display());
        for (bad, says) in [
            (
                format!(
                    "libreoffice --headless --convert-to pdf --outdir /etc {}",
                    inside.display()
                ),
                "option \"--headless\"",
            ),
            (
                "firefox --remote-debugging-port=9222".to_owned(),
                "not one run_shell may give",
            ),
            (
                "vlc --extraintf=http --http-host=0.0.0.0".to_owned(),
                "not one run_shell may give",
            ),
            ("gedit /etc/passwd".to_owned(), "outside the work area"),
            (format!("gedit {outside}"), "outside the work area"),
            (
                "firefox javascript:alert.1".to_owned(),
                "URL run_shell does not open",
            ),
            (
                "firefox chrome://settings".to_owned(),
                "URL run_shell does not open",
            ),
            (
                "firefox file:///etc/shadow".to_owned(),
                "outside the work area",
            ),
            ("sh script".to_owned(), "shell"),
            ("python3 -m http.server".to_owned(), "shell"),
        ] {
            let e = a.parse(&bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        // A link inside the area to a file outside it is outside.
        let link = area.path().join("link");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let e = a.parse(&format!("gedit {}", link.display())).unwrap_err();
        assert!(e.to_string().contains("outside the work area"), "{e}");
    }

    #[test]
    fn commands_are_words_of_an_allowed_program_and_nothing_else() {
        let a = Allowlist::of(["mousepad", "gedit"]);
        assert_eq!(a.parse("mousepad").unwrap(), ["mousepad"]);
        assert_eq!(
            a.parse("  gedit   /tmp/notes.txt ").unwrap(),
            ["gedit", "/tmp/notes.txt"]
        );
        for (bad, says) in [
            ("mousepad; rm -rf /", "shell syntax"),
            ("mousepad && xterm", "shell syntax"),
            ("mousepad $(id)", "shell syntax"),
            ("mousepad `id`", "shell syntax"),
            ("mousepad > /etc/passwd", "shell syntax"),
            ("mousepad 'a b'", "shell syntax"),
            ("mousepad ~/x", "shell syntax"),
            ("/usr/bin/mousepad", "a path"),
            ("./mousepad", "a path"),
            ("bash -c mousepad", "is a shell"),
            ("rm -rf /tmp/x", "not an application"),
            ("", "empty"),
        ] {
            let e = a.parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
