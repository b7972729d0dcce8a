//! Which applications `run_shell` may start, and how its command is read.
//!
//! Never a shell: the command is split into words at whitespace and executed
//! directly. The program must be on the allowlist: the applications that have
//! a desktop entry (`Exec=` of `/usr/share/applications/*.desktop`) plus the
//! config's `APP_ALLOWLIST`. Shell syntax (`;`, `|`, `&`, `$`, backquotes,
//! redirections, globs, quotes, `~`) and paths (`/usr/bin/x`, `./x`, `../x`) are
//! refused, with an error that says what is allowed.

use crate::error::DesktopError;
use std::collections::BTreeSet;
use std::path::Path;

/// The programs `run_shell` may start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    programs: BTreeSet<String>,
}

/// Characters that mean shell syntax; a command holding any is refused.
const SHELL_SYNTAX: &[char] = &[
    ';', '|', '&', '$', '`', '<', '>', '(', ')', '{', '}', '*', '?', '[', ']', '!', '~', '"', '\'',
    '\\', '\n', '\r', '#',
];

/// At most this many bytes of command are read.
const MAX_COMMAND: usize = 1024;

impl Allowlist {
    /// The programs of the desktop entries in `dirs` (normally
    /// [`Allowlist::SYSTEM_DIRS`]) plus `extra` (program names).
    pub fn from_desktop_entries(dirs: &[&Path], extra: &[String]) -> Self {
        let mut programs = BTreeSet::new();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "desktop")
                    && let Ok(text) = std::fs::read_to_string(&p)
                {
                    programs.extend(exec_program(&text));
                }
            }
        }
        programs.extend(
            extra
                .iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
        );
        Self { programs }
    }

    /// Where desktop entries live.
    pub const SYSTEM_DIRS: &'static [&'static str] =
        &["/usr/share/applications", "/usr/local/share/applications"];

    /// The system's desktop entries plus `extra`.
    pub fn system(extra: &[String]) -> Self {
        let dirs: Vec<&Path> = Self::SYSTEM_DIRS.iter().map(Path::new).collect();
        Self::from_desktop_entries(&dirs, extra)
    }

    /// Exactly these programs.
    pub fn of<I: IntoIterator<Item = S>, S: Into<String>>(programs: I) -> Self {
        Self {
            programs: programs.into_iter().map(Into::into).collect(),
        }
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
        if !self.allows(program) {
            return Err(refuse(format!(
                "{program:?} is not an application that may be started"
            )));
        }
        Ok(words)
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
        let a = Allowlist::from_desktop_entries(&[dir.path()], &["featherpad".into()]);
        let got: Vec<&str> = a.programs().collect();
        assert_eq!(got, ["featherpad", "gnome-calculator", "mousepad"]);
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
            ("bash -c mousepad", "not an application"),
            ("rm -rf /tmp/x", "not an application"),
            ("", "empty"),
        ] {
            let e = a.parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
