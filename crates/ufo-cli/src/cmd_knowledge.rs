//! `ufo knowledge`: curate what the agents retrieve — list, show and remove
//! experiences, demonstrations and help documents; index help documents; add
//! a demonstration; search as the agents do.

use crate::cmd_run::load_config;
use crate::output::{outln, print_json};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_knowledge::{KnowledgeBase, Source};

/// Where the knowledge is and which config to read.
#[derive(Debug, Args)]
pub(crate) struct KnowledgeOpts {
    /// Config file (KNOWLEDGE_DIR, RAG_*, APP_AGENT for summaries).
    #[arg(long, env = "UFO_CONFIG", global = true)]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long, env = "UFO_CONFIG_LENIENT", global = true, value_parser = clap::builder::FalseyValueParser::new())]
    lenient: bool,
    /// The knowledge folder (default: KNOWLEDGE_DIR, else `knowledge/` beside --log-dir).
    #[arg(long, global = true)]
    knowledge_dir: Option<PathBuf>,
    /// The log folder whose sibling `knowledge/` is the default knowledge folder.
    #[arg(long, default_value = "logs", global = true)]
    log_dir: PathBuf,
}

/// `ufo knowledge ...`.
#[derive(Debug, Args)]
pub(crate) struct KnowledgeArgs {
    #[command(flatten)]
    opts: KnowledgeOpts,
    #[command(subcommand)]
    cmd: KnowledgeCommand,
}

#[derive(Debug, Subcommand)]
enum KnowledgeCommand {
    /// List stored records (id, applications, text).
    List {
        /// experience, demonstration or help_docs (default: all).
        #[arg(long)]
        source: Option<String>,
        /// Only records about this application.
        #[arg(long)]
        app: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one record as JSON.
    Show {
        /// The record's id (from `list`).
        id: String,
    },
    /// Remove one record.
    Rm {
        /// The record's id (from `list`).
        id: String,
    },
    /// Index help documents for an application (UFO's JSON, .xml + .xml.meta, Markdown, text).
    Index {
        /// The application the documents are about (UFO JSON documents may name their own).
        #[arg(long)]
        app: String,
        /// The folder of documents (read recursively).
        #[arg(long)]
        docs: PathBuf,
    },
    /// Add a demonstration: a `ufo record` file (summarised by the APP_AGENT model) or UFO's demonstration YAML.
    AddDemo {
        /// The demonstration file.
        file: PathBuf,
    },
    /// Search a store as the agents do (BM25, fused with embeddings when configured).
    Search {
        /// The query.
        query: String,
        /// experience, demonstration or help_docs.
        #[arg(long, default_value = "experience")]
        source: String,
        /// Only records about this application.
        #[arg(long)]
        app: Option<String>,
        /// How many.
        #[arg(short = 'k', long, default_value_t = 5)]
        top: usize,
    },
}

fn source_arg(s: &str) -> Result<Source, ErrorReport> {
    Source::parse(s).ok_or_else(|| ErrorReport {
        code: "ufo::cli::bad_argument".into(),
        message: format!("unknown source {s:?}"),
        help: Some("use experience, demonstration or help_docs".into()),
        causes: Vec::new(),
    })
}

fn report(e: impl Diagnostic) -> ErrorReport {
    e.report()
}

/// Runs `ufo knowledge`.
pub(crate) async fn run(args: KnowledgeArgs) -> Result<ExitCode, ErrorReport> {
    let config = load_config(args.opts.config.as_ref(), args.opts.lenient)?;
    let mut settings = config.system.knowledge.settings(&args.opts.log_dir);
    if let Some(d) = &args.opts.knowledge_dir {
        settings.dir = d.clone();
    }
    let kb = KnowledgeBase::open(settings).map_err(report)?;
    for w in kb.warnings() {
        eprintln!("warning: {w}");
    }
    match args.cmd {
        KnowledgeCommand::List { source, app, json } => list(&kb, source, app, json)?,
        KnowledgeCommand::Show { id } => {
            let (s, r) = find(&kb, &id)?;
            print_json(
                &serde_json::json!({"source": s.name(), "id": r.id, "apps": r.apps, "body": r.body}),
            )?;
        }
        KnowledgeCommand::Rm { id } => {
            let (s, _) = find(&kb, &id)?;
            kb.store(s).remove(&id).map_err(report)?;
            outln!("removed {id} from {}", s.name());
        }
        KnowledgeCommand::Index { app, docs } => {
            let loaded = ufo_knowledge::docs::load_dir(&docs, &app).map_err(report)?;
            for s in &loaded.skipped {
                eprintln!("skipped {s}");
            }
            let n = loaded.records.len();
            kb.add(Source::HelpDocs, loaded.records)
                .await
                .map_err(report)?;
            outln!(
                "indexed {n} help document(s) for {app} in {}",
                kb.store(Source::HelpDocs).dir().display()
            );
        }
        KnowledgeCommand::AddDemo { file } => add_demo(&kb, &config, &file).await?,
        KnowledgeCommand::Search {
            query,
            source,
            app,
            top,
        } => {
            let s = source_arg(&source)?;
            let hits = kb
                .search(s, &query, app.as_deref(), top)
                .await
                .map_err(report)?;
            let v: Vec<serde_json::Value> = hits
                .iter()
                .map(|h| serde_json::json!({"id": h.id, "score": h.score, "body": h.body}))
                .collect();
            print_json(&v)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn find(kb: &KnowledgeBase, id: &str) -> Result<(Source, ufo_knowledge::Record), ErrorReport> {
    for s in Source::ALL {
        if let Ok(r) = kb.store(s).get(id) {
            return Ok((s, r));
        }
    }
    Err(ufo_knowledge::KnowledgeError::NotFound {
        source_name: "knowledge".into(),
        id: id.to_owned(),
    }
    .report())
}

/// `ufo knowledge list`.
fn list(
    kb: &KnowledgeBase,
    source: Option<String>,
    app: Option<String>,
    json: bool,
) -> Result<(), ErrorReport> {
    let sources = match source {
        Some(s) => vec![source_arg(&s)?],
        None => Source::ALL.to_vec(),
    };
    let key = app.as_deref().map(ufo_knowledge::app_key);
    let mut rows = Vec::new();
    for s in sources {
        for r in kb.store(s).records().map_err(report)? {
            if key
                .as_ref()
                .is_some_and(|k| !r.apps.iter().any(|a| ufo_knowledge::app_key(a) == *k))
            {
                continue;
            }
            rows.push((s, r));
        }
    }
    if json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(s, r)| serde_json::json!({"source": s.name(), "id": r.id, "apps": r.apps, "text": r.text, "body": r.body}))
            .collect();
        print_json(&v)?;
    } else {
        for (s, r) in &rows {
            let first = r.text.lines().next().unwrap_or_default();
            outln!(
                "{:<14} {:<32} {:<20} {}",
                s.name(),
                r.id,
                r.apps.join(","),
                first
            );
        }
        if rows.is_empty() {
            outln!("(nothing stored in {})", kb.settings().dir.display());
        }
    }
    Ok(())
}

/// `ufo knowledge add-demo`: a recorded demonstration summarised by the
/// APP_AGENT model and stored.
async fn add_demo(
    kb: &KnowledgeBase,
    config: &ufo_session::config::UfoConfig,
    file: &std::path::Path,
) -> Result<(), ErrorReport> {
    let demo = ufo_session::knowledge::read_demonstration(file).map_err(report)?;
    let t = ufo_session::knowledge::template(
        config.system.knowledge.demonstration_prompt.as_deref(),
        ufo_session::knowledge::DEMONSTRATION_SUMMARY,
        "demonstration/demonstration_summary.yaml",
    )
    .map_err(report)?;
    let model = match &config.app {
        Some(cfg) => Some(
            ufo_llm::build_with_backup(
                cfg,
                config.backup.as_ref(),
                Some(Arc::new(config.price_table())),
            )
            .map_err(|e| e.report())?,
        ),
        None => None,
    };
    let mut usage = ufo_llm::UsageTotals::default();
    let records = ufo_session::knowledge::demonstration_records(
        model.as_ref(),
        &t,
        demo,
        config.system.agent.json_parsing_retry,
        &mut usage,
    )
    .await
    .map_err(report)?;
    let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
    kb.add(Source::Demonstration, records)
        .await
        .map_err(report)?;
    outln!("added demonstration(s) {}", ids.join(", "));
    Ok(())
}
