//! `ufo desktop start|launch|env|status|stop`.

use crate::error::CliError;
use crate::output::print_json;
use crate::output::{out, outln};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop_atspi::headless::default_state_root;
use ufo_desktop_atspi::{DesktopOptions, HeadlessDesktop};

/// Which desktop a subcommand works on.
#[derive(Debug, Args)]
pub(crate) struct Which {
    /// Name of the desktop (or $UFO_DESKTOP).
    #[arg(
        long,
        visible_alias = "desktop",
        env = "UFO_DESKTOP",
        default_value = "default"
    )]
    name: String,
    /// Directory for desktop state (default: $UFO_STATE_DIR, $XDG_RUNTIME_DIR/ufo-rs or /tmp/ufo-rs-UID).
    #[arg(long)]
    state_dir: Option<PathBuf>,
}

impl Which {
    /// The folder desktops keep their state in.
    fn root(&self) -> PathBuf {
        self.state_dir.clone().unwrap_or_else(default_state_root)
    }

    /// The running desktop.
    fn open(&self) -> Result<HeadlessDesktop, ErrorReport> {
        HeadlessDesktop::open(&self.name, &self.root()).map_err(|e| e.report())
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum DesktopCommand {
    /// Start a private desktop and print how to use it.
    Start {
        #[command(flatten)]
        which: Which,
        /// Screen size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x1024")]
        size: String,
        /// Run a window manager in the desktop (e.g. xfwm4); none by default.
        #[arg(long, value_name = "PROGRAM")]
        wm: Option<String>,
        /// Keep GTK's animations on. They are off by default: steps do not
        /// wait for them and screenshots do not catch them half-way.
        #[arg(long, conflicts_with = "no_animations")]
        animations: bool,
        /// Turn GTK's animations off (the default; kept for older scripts).
        #[arg(long, hide = true)]
        no_animations: bool,
    },
    /// Launch an application on the desktop and wait until it is accessible.
    Launch {
        #[command(flatten)]
        which: Which,
        /// Seconds to wait for the application to register.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        /// The command to run, e.g. `gnome-calculator`.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Print shell `export` lines for the desktop (use with `eval $(ufo desktop env)`).
    Env {
        #[command(flatten)]
        which: Which,
    },
    /// Print the desktop's state as JSON.
    Status {
        #[command(flatten)]
        which: Which,
    },
    /// Stop the desktop and everything that runs on it.
    Stop {
        #[command(flatten)]
        which: Which,
    },
}

fn parse_size(s: &str) -> Result<(u32, u32), ErrorReport> {
    let bad = || {
        CliError::BadOption {
            option: "--size",
            message: format!("bad screen size {s:?}"),
            help: "write it as WIDTHxHEIGHT, e.g. 1280x1024",
        }
        .report()
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(64..=16384).contains(&w) || !(64..=16384).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

pub(crate) async fn run(cmd: DesktopCommand) -> Result<ExitCode, ErrorReport> {
    match cmd {
        DesktopCommand::Start {
            which,
            size,
            wm,
            animations,
            no_animations: _,
        } => {
            let (w, h) = parse_size(&size)?;
            let desktop = HeadlessDesktop::start(DesktopOptions {
                state_root: which.root(),
                name: which.name,
                screen: (w, h, 24),
                window_manager: wm,
                animations,
                ..DesktopOptions::default()
            })
            .await
            .map_err(|e| e.report())?;
            let s = desktop.state();
            eprintln!(
                "started private desktop {:?} on display {} (state in {})",
                s.name,
                s.display,
                s.state_dir.display()
            );
            eprintln!(
                "use it from a shell with: eval \"$(ufo desktop env --name {})\"",
                s.name
            );
            out!("{}", s.shell_exports());
            Ok(ExitCode::SUCCESS)
        }
        DesktopCommand::Launch {
            which,
            timeout,
            json,
            command,
        } => {
            let desktop = which.open()?;
            let app = desktop
                .launch(&command, Duration::from_secs(timeout))
                .await
                .map_err(|e| e.report())?;
            if json {
                print_json(&app)?;
            } else {
                outln!(
                    "{} is up as {:?} (pid {}, {} ms); output in {}",
                    command.join(" "),
                    app.app_name,
                    app.pid,
                    app.startup_ms,
                    app.log.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        DesktopCommand::Env { which } => {
            let desktop = which.open()?;
            out!("{}", desktop.state().shell_exports());
            Ok(ExitCode::SUCCESS)
        }
        DesktopCommand::Status { which } => {
            let desktop = which.open()?;
            let mut v =
                serde_json::to_value(desktop.state()).map_err(|e| CliError::Json(e).report())?;
            v["processes"] = serde_json::json!(desktop.processes());
            print_json(&v)?;
            Ok(ExitCode::SUCCESS)
        }
        DesktopCommand::Stop { which } => {
            // Works on a half-dead desktop too (e.g. Xvfb crashed): everything
            // carrying its marker is ended.
            let n = HeadlessDesktop::stop_by_name(&which.name, &which.root())
                .map_err(|e| e.report())?;
            eprintln!("stopped desktop {:?} ({n} processes)", which.name);
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_or_explain() {
        assert_eq!(parse_size("800x600").unwrap(), (800, 600));
        let e = parse_size("800").unwrap_err();
        assert_eq!(e.code, "ufo::cli::bad_args");
        assert!(
            e.message.starts_with("--size: bad screen size"),
            "{}",
            e.message
        );
        assert!(parse_size("1x1").is_err());
    }
}
