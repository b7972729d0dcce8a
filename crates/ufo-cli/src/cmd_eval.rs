//! `ufo eval`: benchmark tasks in OSWorld's format, each on its own private
//! desktop, scored by rule checkers; `ufo eval --compare A B` puts two runs
//! side by side.

use crate::cmd_run::load_config;
use crate::error::CliError;
use crate::output::outln;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_eval::fetch::Fetcher;
use ufo_eval::report;
use ufo_eval::run::{EvalMode, EvalOptions, TaskDesktop, run_tasks};
use ufo_eval::suite::Filter;
use ufo_eval::task::TaskFile;

/// Arguments of `ufo eval`.
#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// OSWorld's `evaluation_examples/` as it is (its `test_all.json` lists
    /// the tasks), a list like `test_small.json`, a folder of task files or
    /// one task file. Tasks are named `<domain>/<id>`, the domain being the
    /// task's folder.
    #[arg(long, required_unless_present = "compare")]
    tasks: Option<PathBuf>,
    /// Only these domains (comma-separated; OSWorld's folders: chrome, gimp, ...).
    #[arg(long, value_delimiter = ',')]
    domain: Vec<String>,
    /// Only these tasks (comma-separated ids, or `<domain>/<id>`).
    #[arg(long, value_delimiter = ',')]
    ids: Vec<String>,
    /// List the tasks found (and the files that could not be read) and stop.
    #[arg(long)]
    list: bool,
    /// Serve every download from this folder instead of the network:
    /// `https://host/a/b.xlsx` is `DIR/host/a/b.xlsx` (a query stays part of
    /// the name, as `wget -x` saves it).
    #[arg(long, value_name = "DIR")]
    mirror: Option<PathBuf>,
    /// Where downloads are kept between runs (default:
    /// `~/.cache/ufo/downloads`).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Config file (models, SAFE_GUARD, ...), as for `ufo run`.
    #[arg(long, env = "UFO_CONFIG")]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long, env = "UFO_CONFIG_LENIENT", value_parser = clap::builder::FalseyValueParser::new())]
    lenient: bool,
    /// Tasks at a time, each on its own desktop.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Steps per task (MAX_STEP).
    #[arg(long)]
    max_steps: Option<usize>,
    /// normal (HostAgent + AppAgents), single (the AppAgent on the task's
    /// first related app), operator (a computer-use model from the config's
    /// OPERATOR section, by coordinates on the whole desktop) or follower
    /// (replay `--plans DIR/<domain>/<id>.json`, else `DIR/<id>.json`).
    #[arg(long, default_value = "normal")]
    mode: String,
    /// The plans of follower mode (default: `plans/` beside the tasks).
    #[arg(long)]
    plans: Option<PathBuf>,
    /// The longest a task may take, in seconds (setup to scoring).
    #[arg(long, default_value_t = 600)]
    task_timeout: u64,
    /// Screen size of each task's desktop, WxH (default: 1920x1080 for
    /// OSWorld's tree or a file in it, as its VM; 1280x1024 otherwise).
    #[arg(long, value_name = "WxH")]
    screen: Option<String>,
    /// Window manager of each task's desktop, or `none` (default: xfwm4
    /// for OSWorld's tree when installed, none otherwise).
    #[arg(long, value_name = "NAME")]
    wm: Option<String>,
    /// The unprivileged account each task's desktop runs as, its home at
    /// /home/user private to the task (needs root), or `none` to run it as
    /// yourself (default: `ufo-task` for OSWorld's tree when root, none
    /// otherwise).
    #[arg(long, value_name = "NAME")]
    user: Option<String>,
    /// The most the whole run may spend on models, in US dollars (priced
    /// calls: the config's PRICES over the shipped table). Once spent, the
    /// remaining tasks are `budget` and not run; a rerun runs them.
    #[arg(long, value_name = "USD")]
    max_cost: Option<String>,
    /// The most one task may spend on models, in US dollars: its session
    /// stops there (status BUDGET) and the task is `budget`, not scored.
    #[arg(long, value_name = "USD")]
    max_task_cost: Option<String>,
    /// Where results go; a rerun skips the tasks already there.
    #[arg(long, default_value = "eval-out")]
    out: PathBuf,
    /// Compare two earlier runs (their output folders or results.json).
    #[arg(long, num_args = 2, value_names = ["RUN_A", "RUN_B"])]
    compare: Option<Vec<PathBuf>>,
}

fn bad(option: &'static str, message: String, help: &'static str) -> ErrorReport {
    CliError::BadOption {
        option,
        message,
        help,
    }
    .report()
}

pub(crate) async fn run(args: EvalArgs) -> Result<ExitCode, ErrorReport> {
    if let Some(runs) = &args.compare {
        return compare(runs);
    }
    let Some(tasks_path) = args.tasks.clone() else {
        return Err(bad(
            "--tasks",
            "missing".into(),
            "give a task file or a folder of them",
        ));
    };
    let mode = mode(&args, &tasks_path)?;
    if args.parallel == 0 || args.parallel > 16 {
        return Err(bad(
            "--parallel",
            format!("{} tasks at a time", args.parallel),
            "use 1 to 16",
        ));
    }
    let max_cost = usd("--max-cost", args.max_cost.as_deref())?;
    let max_task_cost = usd("--max-task-cost", args.max_task_cost.as_deref())?;
    let Some(tasks) = select(&args, &tasks_path)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let config = load_config(args.config.as_ref(), args.lenient)?;
    let prompts = ufo_agent::PromptSet::load(&config.prompts).map_err(|e| e.report())?;
    if tasks.is_empty() {
        return Err(bad(
            "--tasks",
            format!("no tasks in {}", tasks_path.display()),
            "give a folder of OSWorld task files (*.json)",
        ));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::Write {
            path: args.out.display().to_string(),
            source: e,
        }
        .report()
    })?;
    // Absolute: setup commands run in each task's own folder.
    let out = std::path::absolute(&args.out).unwrap_or_else(|_| args.out.clone());
    let desktop = task_desktop(&args, &tasks_path)?;
    let osworld = ufo_eval::suite::is_osworld_tree(&tasks_path);
    if let Some(note) = desktop_note(desktop.user.as_deref(), osworld, args.user.is_some()) {
        eprintln!("{note}");
    }
    if let Some(note) = pyautogui_note(osworld, pyautogui_installed) {
        eprintln!("{note}");
    }
    let opts = EvalOptions {
        config,
        prompts: Arc::new(prompts),
        out,
        parallel: args.parallel,
        max_steps: args.max_steps,
        mode,
        task_timeout: Duration::from_secs(args.task_timeout.max(1)),
        fetcher: Arc::new(Fetcher::new(
            args.cache.clone().unwrap_or_else(Fetcher::default_cache),
            args.mirror.clone(),
        )),
        desktop,
        max_cost,
        max_task_cost,
    };
    let bar = indicatif::ProgressBar::new(tasks.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} tasks · {msg} · {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let counts = Arc::new(std::sync::Mutex::new((0usize, 0usize)));
    let shown = bar.clone();
    let results = run_tasks(&opts, tasks, move |r| {
        if let Ok(mut c) = counts.lock() {
            match r.score >= 1.0 {
                true => c.0 += 1,
                false => c.1 += 1,
            }
            shown.set_message(format!("{} passed, {} not", c.0, c.1));
        }
        shown.inc(1);
    })
    .await;
    bar.finish();
    let json = serde_json::to_string_pretty(&results).map_err(|e| CliError::Json(e).report())?;
    let write = |name: &str, text: &str| {
        let p = args.out.join(name);
        std::fs::write(&p, text).map_err(|e| {
            CliError::Write {
                path: p.display().to_string(),
                source: e,
            }
            .report()
        })
    };
    write("results.json", &json)?;
    write(
        "report.md",
        &report::markdown(&results, args.max_steps, &opts.out),
    )?;
    outln!("{}", report::table(&results));
    outln!("{}", report::headline(&results, args.max_steps));
    outln!("results: {}", args.out.join("results.json").display());
    outln!("report: {}", args.out.join("report.md").display());
    Ok(ExitCode::SUCCESS)
}

/// A budget flag's value in US dollars (`5`, `0.50`, `$2`), checked.
fn usd(option: &'static str, value: Option<&str>) -> Result<Option<f64>, ErrorReport> {
    value
        .map(|v| {
            ufo_session::config::budget::parse_usd(&serde_json::Value::String(v.to_owned()))
                .map_err(|m| {
                    bad(
                        option,
                        m,
                        "give US dollars above 0, e.g. --max-cost 5 --max-task-cost 0.50",
                    )
                })
        })
        .transpose()
}

/// The tasks of `--tasks` that `--domain` and `--ids` pick (unreadable
/// files warned about); `None` when `--list` printed them and the run ends.
fn select(args: &EvalArgs, tasks_path: &Path) -> Result<Option<Vec<TaskFile>>, ErrorReport> {
    let (tasks, errors) = ufo_eval::suite::load_suite(tasks_path);
    for e in &errors {
        eprintln!("{}", e.report().rendered_warning());
    }
    let filter = Filter {
        domains: args.domain.clone(),
        ids: args.ids.clone(),
    };
    let (tasks, unmatched) = filter.apply(tasks);
    if !unmatched.is_empty() {
        return Err(bad(
            "--domain/--ids",
            format!("no task matches {}", unmatched.join(", ")),
            "`ufo eval --tasks DIR --list` shows the tasks and their domains",
        ));
    }
    if args.list {
        for t in &tasks {
            outln!("{}\t{}", t.key(), t.path.display());
        }
        outln!("{} tasks, {} files not read", tasks.len(), errors.len());
        return Ok(None);
    }
    Ok(Some(tasks))
}

/// `--compare A B`: the two runs side by side.
fn compare(runs: &[PathBuf]) -> Result<ExitCode, ErrorReport> {
    let load = |p: &PathBuf| {
        report::load(p).map_err(|m| {
            bad(
                "--compare",
                m,
                "give two folders written by `ufo eval --out`",
            )
        })
    };
    let (a, b) = (load(&runs[0])?, load(&runs[1])?);
    let name = |p: &PathBuf| p.display().to_string();
    outln!(
        "{}",
        report::compare(&a, &b, (&name(&runs[0]), &name(&runs[1])))
    );
    Ok(ExitCode::SUCCESS)
}

/// The desktop of each task: as OSWorld's VM for OSWorld's tree (its
/// `evaluation_examples/`, a list in it, or a file under its `examples/`),
/// else as before (the caller's account, 1280×1024, no window manager);
/// `--screen`, `--wm` and `--user` change it.
fn task_desktop(args: &EvalArgs, tasks_path: &Path) -> Result<TaskDesktop, ErrorReport> {
    let mut d = match ufo_eval::suite::is_osworld_tree(tasks_path) {
        true => {
            let mut d = TaskDesktop::like_osworld();
            if !ufo_eval::command::installed("xfwm4") {
                d.window_manager = None;
            }
            d
        }
        false => TaskDesktop::default(),
    };
    if let Some(s) = &args.screen {
        d.screen = s
            .split_once(['x', 'X'])
            .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
            .filter(|&(w, h): &(u32, u32)| (320..=8192).contains(&w) && (200..=8192).contains(&h))
            .ok_or_else(|| {
                bad(
                    "--screen",
                    format!("{s:?} is not a screen size"),
                    "give WIDTHxHEIGHT, e.g. 1920x1080",
                )
            })?;
    }
    match args.user.as_deref() {
        Some("none") => d.user = None,
        Some(_) if !ufo_eval::run::is_root() => {
            return Err(bad(
                "--user",
                "running a task's desktop as another account needs root".into(),
                "run ufo eval as root, or leave --user out",
            ));
        }
        Some(name) => d.user = Some(name.to_owned()),
        None => {}
    }
    match args.wm.as_deref() {
        Some("none") => d.window_manager = None,
        Some(wm) => d.window_manager = Some(wm.to_owned()),
        None => {}
    }
    Ok(d)
}

/// `--mode`, with follower plans beside the tasks unless `--plans` says.
fn mode(args: &EvalArgs, tasks_path: &Path) -> Result<EvalMode, ErrorReport> {
    Ok(match args.mode.as_str() {
        "normal" => EvalMode::Normal,
        "single" | "single_tier" => EvalMode::SingleTier,
        "operator" => EvalMode::Operator,
        "follower" => EvalMode::Follower(args.plans.clone().unwrap_or_else(|| {
            match tasks_path.is_dir() {
                true => tasks_path.join("plans"),
                false => tasks_path
                    .parent()
                    .map(|p| p.join("plans"))
                    .unwrap_or_default(),
            }
        })),
        other => {
            return Err(bad(
                "--mode",
                format!("unknown mode {other:?}"),
                "use normal, single, operator or follower",
            ));
        }
    })
}

/// What `ufo eval` says of the task desktops when it starts: as whom they
/// run; for OSWorld's tree not run as an account (not root, no `--user`),
/// a warning of what that changes.
fn desktop_note(user: Option<&str>, osworld: bool, user_flag: bool) -> Option<String> {
    match user {
        Some(user) => Some(format!(
            "each task's desktop runs as the account {user:?}, its home at /home/user and its /tmp private to the task"
        )),
        None if !osworld || user_flag => None,
        None => Some(
            "warning: not root: each task's applications run as you, the task's folder their $HOME; absolute /home/user and /tmp paths are this host's, shared by the tasks, and VLC refuses to start (docs/EVAL.md, \"What still differs\")".into(),
        ),
    }
}

/// For OSWorld's tree, a warning when the system's `python3` has no
/// `pyautogui`: OSWorld's setup and postconfig steps type and save with it
/// (`python -c "import pyautogui; ..."`, 198 of its 369 tasks), and each such
/// step then fails (recorded in the task's `step_problems`).
fn pyautogui_note(osworld: bool, installed: impl FnOnce() -> bool) -> Option<String> {
    (osworld && !installed()).then(|| {
        "warning: python3 has no pyautogui: OSWorld's setup and postconfig steps that type or save with it (`python -c \"import pyautogui; ...\"`) fail and are recorded in each task's step_problems; install it for the system Python: `/usr/bin/python3 -m pip install --break-system-packages pyautogui` (with `apt-get install python3-tk python3-xlib python-is-python3`)".into()
    })
}

/// Whether the system's Python finds the `pyautogui` module (found, not
/// imported: importing it needs a display). The system's: the tasks' `python`
/// is Debian's (`python-is-python3`), also when the caller's `PATH` starts
/// with another (pyenv's in `/root` is not the task account's to run).
fn pyautogui_installed() -> bool {
    let system = std::path::Path::new("/usr/bin/python3");
    let python = if system.exists() {
        system.as_os_str()
    } else {
        std::ffi::OsStr::new("python3")
    };
    std::process::Command::new(python)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(importlib.util.find_spec('pyautogui') is None)",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::{desktop_note, pyautogui_note};

    #[test]
    fn a_missing_pyautogui_is_named_for_osworld_s_tree_only() {
        let warning = pyautogui_note(true, || false).unwrap_or_default();
        assert!(
            warning.starts_with("warning: python3 has no pyautogui"),
            "{warning}"
        );
        assert!(warning.contains("pip install --break-system-packages pyautogui"));
        assert_eq!(pyautogui_note(true, || true), None);
        assert_eq!(pyautogui_note(false, || false), None);
    }

    #[test]
    fn not_root_on_osworld_s_tree_warns_what_differs() {
        let warning = desktop_note(None, true, false).unwrap_or_default();
        assert!(warning.starts_with("warning: not root:"), "{warning}");
        assert!(
            warning.contains("/home/user and /tmp paths are this host's"),
            "{warning}"
        );
        // `--user none` asked for it; our own suites never ran as an account.
        assert_eq!(desktop_note(None, true, true), None);
        assert_eq!(desktop_note(None, false, false), None);
        let note = desktop_note(Some("ufo-task"), true, false).unwrap_or_default();
        assert!(note.contains("runs as the account \"ufo-task\""), "{note}");
    }
}
