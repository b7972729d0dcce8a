//! The `ufo` binary: a thin layer of argument parsing and presentation over the
//! library crates.

#[cfg(not(windows))]
mod cmd_bench;
mod cmd_client;
#[cfg(not(windows))]
mod cmd_demo;
#[cfg(not(windows))]
mod cmd_desktop;
#[cfg(not(windows))]
mod cmd_doctor;
#[cfg(not(windows))]
mod cmd_eval;
mod cmd_galaxy;
mod cmd_inspect;
mod cmd_knowledge;
mod cmd_llm;
mod cmd_mcp;
#[cfg(not(windows))]
mod cmd_record;
mod cmd_run;
#[cfg(not(windows))]
mod cmd_serve;
mod desktop_conn;
mod error;
mod galaxy_log;
mod output;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// ufo-rs: LLM agents that operate real desktop applications.
#[derive(Debug, Parser)]
#[command(name = "ufo", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a session: a request carried out on the desktop by the HostAgent and AppAgents.
    Run(cmd_run::RunArgs),
    #[cfg(not(windows))]
    /// Start a private desktop with gnome-calculator and run a full session on it.
    Demo(cmd_demo::DemoArgs),
    #[cfg(not(windows))]
    /// Start, use and stop a private headless desktop (Xvfb + D-Bus + AT-SPI).
    Desktop {
        #[command(subcommand)]
        cmd: cmd_desktop::DesktopCommand,
    },
    #[cfg(not(windows))]
    /// Check that the desktop, the accessibility stack and the model are usable.
    Doctor(cmd_doctor::DoctorArgs),
    /// List the top-level windows of all accessible applications.
    Windows(cmd_inspect::WindowsArgs),
    /// Show the labelled controls of a window (what the agent sees), or its whole tree.
    Inspect(cmd_inspect::InspectArgs),
    /// Save a screenshot of a window (optionally with set-of-marks labels) or the screen.
    Screenshot(cmd_inspect::ScreenshotArgs),
    /// Run one UI tool (click_input, set_edit_text, ...) and print its result as JSON.
    Act(cmd_inspect::ActArgs),
    #[cfg(not(windows))]
    /// Run benchmark tasks (OSWorld's format) on private desktops and score them.
    Eval(cmd_eval::EvalArgs),
    #[cfg(not(windows))]
    /// Serve the agents over WebSocket (UFO's AIP) to devices and programs.
    Serve(cmd_serve::ServeArgs),
    /// Connect this desktop to a `ufo serve` server as a device.
    Client(cmd_client::ClientArgs),
    /// Galaxy: run a constellation of sub-tasks across devices (each through its `ufo serve`).
    Galaxy(cmd_galaxy::GalaxyArgs),
    #[cfg(not(windows))]
    /// Measure performance (perception, applications, a step, service load, prompt tokens).
    Bench {
        #[command(subcommand)]
        cmd: cmd_bench::BenchCommand,
    },
    /// Serve the desktop tools to MCP hosts (stdio, or streamable HTTP with --http).
    Mcp(cmd_mcp::McpArgs),
    /// Curate and search the agents' knowledge: experiences, demonstrations, help documents.
    Knowledge(cmd_knowledge::KnowledgeArgs),
    #[cfg(not(windows))]
    /// Record a person's work in an application as a demonstration and follower plan.
    Record(cmd_record::RecordArgs),
    /// Inspect and test the configured language models.
    Llm {
        #[command(subcommand)]
        cmd: cmd_llm::LlmCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A server and a device say what they do (connections, tasks) unless
    // UFO_LOG (or, without it, the usual RUST_LOG) says otherwise; other
    // commands only warn.
    let service = match cli.command {
        #[cfg(not(windows))]
        Command::Serve(_) => true,
        Command::Client(_) => true,
        _ => false,
    };
    let default_filter = if service { "warn,ufo_aip=info" } else { "warn" };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("UFO_LOG")
                .or_else(|_| tracing_subscriber::EnvFilter::try_from_env("RUST_LOG"))
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a redirected log stays plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => cmd_run::run(args).await,
            #[cfg(not(windows))]
            Command::Demo(args) => cmd_demo::run(args).await,
            #[cfg(not(windows))]
            Command::Desktop { cmd } => cmd_desktop::run(cmd).await,
            #[cfg(not(windows))]
            Command::Doctor(args) => cmd_doctor::run(args).await,
            Command::Windows(args) => cmd_inspect::windows(args).await,
            Command::Inspect(args) => cmd_inspect::inspect(args).await,
            Command::Screenshot(args) => cmd_inspect::screenshot(args).await,
            Command::Act(args) => cmd_inspect::act(args).await,
            Command::Llm { cmd } => cmd_llm::run(cmd).await,
            Command::Knowledge(args) => cmd_knowledge::run(args).await,
            #[cfg(not(windows))]
            Command::Record(args) => cmd_record::run(args).await,
            Command::Mcp(args) => cmd_mcp::run(args).await,
            #[cfg(not(windows))]
            Command::Eval(args) => cmd_eval::run(args).await,
            #[cfg(not(windows))]
            Command::Bench { cmd } => cmd_bench::run(cmd).await,
            #[cfg(not(windows))]
            Command::Serve(args) => cmd_serve::serve(args).await,
            Command::Client(args) => cmd_client::client(args).await,
            Command::Galaxy(args) => cmd_galaxy::run(args).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(report) => {
            output::print_error(&report);
            ExitCode::FAILURE
        }
    }
}
