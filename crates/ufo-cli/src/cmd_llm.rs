//! `ufo llm …`: debugging the model layer from the command line.
//!
//! To wire it into `main.rs` (owned by the CLI maintainer), add:
//!
//! ```text
//! mod cmd_llm;
//!
//! // in `enum Command`:
//!     /// Inspect and test the configured language models.
//!     Llm {
//!         #[command(subcommand)]
//!         cmd: cmd_llm::LlmCommand,
//!     },
//!
//! // in the `match cli.command`:
//!     Command::Llm { cmd } => cmd_llm::run(cmd).await,
//! ```

use crate::error::CliError;
use crate::output::outln;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ufo_core::{Diagnostic, ErrorReport};
use ufo_llm::{LlmConfig, PriceTable};

/// `ufo llm` subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum LlmCommand {
    /// Print the exact HTTP request that would be sent (secrets redacted), without
    /// sending it. Reads one {"name","role","content","url"} message, or a JSON
    /// array of messages and lists of messages (as AgentScope's `format` takes).
    Format {
        /// One of UFO's API_TYPE values (openai, aoai, azure_ad, qwen, deepseek,
        /// ollama, gemini, claude, zhipu, custom) or an AgentScope model type
        /// (openai_chat, dashscope_chat, dashscope_multimodal, ollama_chat,
        /// ollama_generate, gemini_chat, zhipuai_chat).
        #[arg(long = "api", value_name = "TYPE")]
        api: String,
        /// The model name (a per-provider default otherwise).
        #[arg(long)]
        model: Option<String>,
        /// Read the messages from this file instead of stdin.
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
    },
    /// Send one tiny request with a configured model; print latency, usage and cost.
    Ping {
        /// The agents.yaml holding the model sections.
        #[arg(long, default_value = "config/ufo/agents.yaml")]
        config: PathBuf,
        /// The section to use (HOST_AGENT, APP_AGENT, BACKUP_AGENT, …).
        #[arg(long, default_value = "APP_AGENT")]
        agent: String,
        /// A prices.yaml (UFO format) laid over the built-in entries and the
        /// config's PRICES.
        #[arg(long, value_name = "FILE")]
        prices: Option<PathBuf>,
    },
}

/// Runs one `ufo llm` subcommand.
pub(crate) async fn run(cmd: LlmCommand) -> Result<ExitCode, ErrorReport> {
    match cmd {
        LlmCommand::Format { api, model, input } => {
            let messages = match input {
                Some(path) => std::fs::read_to_string(&path).map_err(|e| {
                    CliError::Read {
                        what: path.display().to_string(),
                        source: e,
                        help: "pass an existing messages.json with --input, or pipe it to stdin",
                    }
                    .report()
                })?,
                None => {
                    let mut s = String::new();
                    std::io::stdin().read_to_string(&mut s).map_err(|e| {
                        CliError::Read {
                            what: "stdin".into(),
                            source: e,
                            help: "pipe a messages.json to stdin, or pass --input",
                        }
                        .report()
                    })?;
                    s
                }
            };
            let out = ufo_llm::cli::format_request(&api, model.as_deref(), &messages)
                .map_err(|e| e.report())?;
            let text =
                serde_json::to_string_pretty(&out).map_err(|e| CliError::Json(e).report())?;
            outln!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        LlmCommand::Ping {
            config,
            agent,
            prices,
        } => {
            if !config.is_file() {
                return Err(CliError::Read {
                    what: config.display().to_string(),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                    help: "copy config/ufo/agents.yaml.template to agents.yaml, or pass --config",
                }
                .report());
            }
            // Read as `ufo run` reads it: `${VAR}` expanded, secrets kept
            // out of errors; keys of other sections need not be ours.
            let all = crate::cmd_run::load_config(Some(&config), true)?;
            let mut table = all.price_table();
            let section = match agent.to_ascii_uppercase().as_str() {
                "HOST_AGENT" => all.host,
                "APP_AGENT" => all.app,
                "BACKUP_AGENT" => all.backup,
                "EVALUATION_AGENT" => all.evaluation.or(all.app),
                _ => {
                    return Err(ufo_llm::LlmError::config(
                        agent.as_str(),
                        "not a model section `ufo llm ping` can try: HOST_AGENT, APP_AGENT, BACKUP_AGENT or EVALUATION_AGENT",
                    )
                    .report());
                }
            };
            let cfg: LlmConfig = section.ok_or_else(|| {
                ufo_llm::LlmError::config(agent.as_str(), "no such section in the config").report()
            })?;
            if let Some(p) = prices {
                table.merge(&PriceTable::from_file(&p).map_err(|e| e.report())?);
            }
            let report = ufo_llm::cli::ping(&cfg, Some(Arc::new(table)))
                .await
                .map_err(|e| e.report())?;
            outln!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
