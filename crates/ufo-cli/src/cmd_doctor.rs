//! `ufo doctor`: is everything in place to run an agent?

use crate::error::CliError;
use crate::output::outln;
use crate::output::print_json;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop_atspi::DesktopTarget;
use ufo_desktop_atspi::doctor::{Check, CheckStatus, diagnose};
use ufo_desktop_atspi::headless::default_state_root;

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Print the checks as JSON.
    #[arg(long)]
    json: bool,
    /// Use this private desktop (default: the running "default" one, else $DISPLAY).
    #[arg(long, env = "UFO_DESKTOP")]
    desktop: Option<String>,
    /// Directory for desktop state.
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// Configuration file whose model endpoints to check.
    #[arg(long, short = 'c')]
    config: Option<PathBuf>,
}

pub(crate) async fn run(args: DoctorArgs) -> Result<ExitCode, ErrorReport> {
    let root = args.state_dir.unwrap_or_else(default_state_root);
    let target = DesktopTarget::resolve(args.desktop.as_deref(), &root).map_err(|e| e.report())?;
    let mut checks = diagnose(&target).await;
    checks.extend(model_checks(args.config.as_deref()).await);
    let failed = checks.iter().any(|c| c.status == CheckStatus::Fail);
    if args.json {
        print_json(&serde_json::json!({
            "desktop": target,
            "ok": !failed,
            "checks": checks,
        }))?;
    } else {
        outln!("desktop: {}", target.source);
        for c in &checks {
            let tag = match c.status {
                CheckStatus::Ok => "ok  ",
                CheckStatus::Warn => "warn",
                CheckStatus::Fail => "FAIL",
            };
            outln!("[{tag}] {:<14} {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                outln!("       {:<14} fix: {fix}", "");
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The model endpoints named in a config file (`API_BASE` of each agent section).
fn endpoints(config: &std::path::Path) -> Result<Vec<(String, String)>, ErrorReport> {
    let text = std::fs::read_to_string(config).map_err(|e| {
        CliError::Read {
            what: config.display().to_string(),
            source: e,
            help: "pass an existing YAML file with --config",
        }
        .report()
    })?;
    let doc: serde_json::Value = serde_saphyr::from_str(&text).map_err(|e| {
        CliError::Syntax {
            what: config.display().to_string(),
            format: "YAML",
            message: e.to_string(),
            help: "fix the YAML syntax at the position shown",
        }
        .report()
    })?;
    let mut out = Vec::new();
    for section in [
        "HOST_AGENT",
        "APP_AGENT",
        "BACKUP_AGENT",
        "EVALUATION_AGENT",
    ] {
        if let Some(base) = doc
            .get(section)
            .and_then(|s| s.get("API_BASE"))
            .and_then(|b| b.as_str())
        {
            out.push((section.to_owned(), base.to_owned()));
        }
    }
    Ok(out)
}

async fn model_checks(config: Option<&std::path::Path>) -> Vec<Check> {
    let Some(config) = config else {
        return vec![];
    };
    let list = match endpoints(config) {
        Ok(l) => l,
        Err(e) => {
            return vec![Check::fail(
                "model_endpoint",
                e.message,
                e.help.unwrap_or_default(),
            )];
        }
    };
    if list.is_empty() {
        return vec![Check::warn(
            "model_endpoint",
            format!("{} names no API_BASE", config.display()),
            "set HOST_AGENT.API_BASE and APP_AGENT.API_BASE",
        )];
    }
    let mut out = Vec::new();
    for (section, base) in list {
        let name = "model_endpoint";
        let Ok(url) = url::Url::parse(&base) else {
            out.push(Check::fail(
                name,
                format!("{section}.API_BASE {base:?} is not a URL"),
                format!("set {section}.API_BASE to e.g. https://api.openai.com/v1"),
            ));
            continue;
        };
        let host = url.host_str().unwrap_or_default().to_owned();
        let port = url.port_or_known_default().unwrap_or(443);
        let connect = tokio::time::timeout(
            Duration::from_secs(3),
            tokio::net::TcpStream::connect((host.as_str(), port)),
        )
        .await;
        match connect {
            Ok(Ok(_)) => out.push(Check::ok(
                name,
                format!("{section}: {host}:{port} reachable"),
            )),
            Ok(Err(e)) => out.push(Check::fail(
                name,
                format!("{section}: {host}:{port}: {e}"),
                format!("check {section}.API_BASE and that the model server runs"),
            )),
            Err(_) => out.push(Check::fail(
                name,
                format!("{section}: {host}:{port}: no answer within 3 s"),
                format!("check {section}.API_BASE and your network"),
            )),
        }
    }
    out
}
