//! The console: a [`UserIo`] on stdin/stdout and the step presenter.

use crate::user_io::UserIo;
use async_trait::async_trait;
use std::io::{BufRead, IsTerminal, Write};
use ufo_agent::{AgentKind, StepRecord};
use ufo_llm::UsageTotals;

/// Asks on the terminal. When stdin is not a terminal nobody can answer:
/// confirmations are declined and questions get no answer (never hangs).
#[derive(Debug, Default)]
pub struct ConsoleIo;

/// Asks on the terminal and waits for one line without holding a runtime
/// worker: the line is read on a thread of its own (not a `spawn_blocking`
/// one, which would keep the runtime from shutting down after an interrupt
/// while stdin is still open).
async fn read_line(prompt: &str) -> Option<String> {
    if !std::io::stdin().is_terminal() {
        say(&format!("{prompt} [no terminal: no answer]"));
        return None;
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{prompt} ").and_then(|()| out.flush());
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("ufo-stdin".into())
        .spawn(move || {
            let mut s = String::new();
            let line = std::io::stdin()
                .lock()
                .read_line(&mut s)
                .ok()
                .filter(|n| *n > 0)
                .map(|_| s.trim().to_owned());
            let _ = tx.send(line);
        })
        .ok()?;
    rx.await.ok().flatten()
}

/// Writes one line to stdout. A closed pipe (`ufo run ... | head`) is not an
/// error worth dying for: the session goes on and its logs stay complete.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

#[async_trait]
impl UserIo for ConsoleIo {
    async fn confirm(&self, prompt: &str) -> bool {
        read_line(&format!("{prompt} [y/N]"))
            .await
            .is_some_and(|a| matches!(a.to_ascii_lowercase().as_str(), "y" | "yes"))
    }

    async fn ask(&self, question: &str) -> Option<String> {
        read_line(question).await.filter(|a| !a.is_empty())
    }

    async fn new_request(&self, prompt: &str) -> Option<String> {
        read_line(prompt)
            .await
            .filter(|a| !a.is_empty() && !a.eq_ignore_ascii_case("n"))
    }

    fn show(&self, line: &str) {
        say(line);
    }
}

/// UFO's welcome panel (its `first_request`), shown once in interactive
/// mode before the first request is asked: what ufo is, the models the
/// agents use, how to leave, where the logs go. With `single_tier` (`--app`)
/// the AppAgent works on that application alone and no HostAgent is asked.
pub fn welcome(
    host: Option<&ufo_llm::LlmConfig>,
    app: Option<&ufo_llm::LlmConfig>,
    single_tier: Option<&str>,
    logs: &std::path::Path,
) -> String {
    let model = |c: Option<&ufo_llm::LlmConfig>| match c {
        Some(c) => format!(
            "{} ({})",
            c.api_model.as_deref().unwrap_or("its default model"),
            c.api_type
        ),
        None => "not configured".to_owned(),
    };
    let lines = [
        format!(
            "ufo {}: a UI-focused agent for desktop applications",
            env!("CARGO_PKG_VERSION")
        ),
        String::new(),
        match single_tier {
            Some(a) => format!("HostAgent  not asked: the AppAgent works on {a} (--app)"),
            None => format!("HostAgent  {}", model(host)),
        },
        format!("AppAgent   {}", model(app)),
        format!("Logs       {}", logs.display()),
        String::new(),
        "Say what to do, e.g. \"open the calculator and compute 12*7\".".to_owned(),
        "Actions that may harm are put to you first (SAFE_GUARD).".to_owned(),
        "Enter N to leave; Ctrl+C stops the request that is running.".to_owned(),
    ];
    let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let rule = "─".repeat(width + 2);
    let mut out = format!("╭{rule}╮\n");
    for l in &lines {
        let pad = width - l.chars().count();
        out.push_str(&format!("│ {l}{} │\n", " ".repeat(pad)));
    }
    out.push_str(&format!("╰{rule}╯"));
    out
}

/// The most of one field shown on the console, in characters (the logs keep
/// more, the reply file all of it).
const MAX_SHOWN: usize = 2000;

fn clip(text: &str) -> String {
    match ufo_core::text::cut_at(text, MAX_SHOWN) {
        Some(i) => format!(
            "{}… [{} characters; see response.log]",
            &text[..i],
            text.chars().count()
        ),
        None => text.to_owned(),
    }
}

/// One step as UFO's presenter shows it: agent, thought, action, result, status.
pub fn present(rec: &StepRecord) -> String {
    let mut s = format!(
        "── Step {} · {} ─ status {}\n",
        rec.session_step, rec.agent_name, rec.status
    );
    if !rec.subtask.is_empty() {
        s.push_str(&format!("  subtask: {}\n", rec.subtask));
    }
    if rec.agent_type == AgentKind::HostAgent {
        host_decision(rec, &mut s);
    }
    if !rec.observation.is_empty() {
        s.push_str(&format!("  observation: {}\n", clip(&rec.observation)));
    }
    if !rec.thought.is_empty() {
        s.push_str(&format!("  thought: {}\n", clip(&rec.thought)));
    }
    for a in &rec.actions {
        s.push_str(&format!("  action: {}\n", clip(&a.action_representation)));
    }
    for r in &rec.repairs {
        s.push_str(&format!("  repaired: {r}\n"));
    }
    for e in &rec.parse_errors {
        s.push_str(&format!("  re-asked: {}\n", clip(e)));
    }
    if let Some(e) = &rec.error {
        // The help line is printed once, with the error that ends the session.
        s.push_str(&format!("  {}\n", e.headline()));
    }
    if !rec.comment.is_empty() {
        s.push_str(&format!("  comment: {}\n", clip(&rec.comment)));
    }
    s.push_str(&format!(
        "  {} · {} tokens · {:.2}s",
        cost_line("cost", &rec.usage, 4),
        rec.usage.usage.total_tokens,
        rec.total_time
    ));
    s
}

/// What the HostAgent decided, as UFO prints it: the plan (the current
/// sub-task first), the application chosen and the message to its agent.
fn host_decision(rec: &StepRecord, s: &mut String) {
    let plan: Vec<&String> = std::iter::once(&rec.subtask)
        .filter(|t| !t.is_empty())
        .chain(rec.plan.iter())
        .collect();
    if !plan.is_empty() {
        let items: Vec<String> = plan
            .iter()
            .enumerate()
            .map(|(i, p)| format!("({}) {}", i + 1, clip(p)))
            .collect();
        s.push_str(&format!("  plan: {}\n", items.join(" ")));
    }
    if !rec.application.is_empty() {
        s.push_str(&format!("  application: {}\n", rec.application));
    }
    let message = match rec.parsed_response.get("message") {
        Some(serde_json::Value::String(m)) => m.clone(),
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::new(),
    };
    if !message.trim().is_empty() {
        s.push_str(&format!("  message: {}\n", clip(&message)));
    }
}

/// `label: $cost` with `decimals` places; `label: $0 (local model)` when
/// every call went to a model that costs nothing (a local provider, or a
/// price of 0); `label is not available` when the calls had no price
/// (UFO's "Cost is not available" instead of a misleading $0).
pub fn cost_line(label: &str, usage: &UsageTotals, decimals: usize) -> String {
    let cost = usage.cost;
    match (usage.unpriced_calls, cost > 0.0) {
        (0, false) if usage.local_calls > 0 => format!("{label}: $0 (local model)"),
        (0, _) => format!("{label}: ${cost:.decimals$}"),
        (_, false) => format!("{label} is not available"),
        (n, true) => {
            format!("{label}: ${cost:.decimals$} (+{n} model calls without a price)")
        }
    }
}

/// Cost and tokens per agent, one `agent: cost, tokens, calls` part each,
/// joined by `; ` (`-` when no agent called a model).
pub fn agents_line(by_agent: &std::collections::BTreeMap<String, UsageTotals>) -> String {
    let parts: Vec<String> = by_agent
        .iter()
        .map(|(agent, u)| {
            format!(
                "{} ({} tokens, {} model calls)",
                cost_line(agent, u, 4),
                u.usage.total_tokens,
                u.calls
            )
        })
        .collect();
    match parts.is_empty() {
        true => "-".into(),
        false => parts.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(cost: f64, calls: u32, unpriced: u32, local: u32) -> UsageTotals {
        UsageTotals {
            calls,
            cost,
            unpriced_calls: unpriced,
            local_calls: local,
            ..UsageTotals::default()
        }
    }

    #[test]
    fn costs_are_said_priced_local_or_not_available() {
        assert_eq!(cost_line("cost", &totals(0.5, 1, 0, 0), 4), "cost: $0.5000");
        // A local model: $0, said as such.
        assert_eq!(
            cost_line("cost", &totals(0.0, 2, 0, 2), 4),
            "cost: $0 (local model)"
        );
        // Unknown: never a made-up $0.
        assert_eq!(
            cost_line("cost", &totals(0.0, 1, 1, 0), 4),
            "cost is not available"
        );
        assert_eq!(
            cost_line("cost", &totals(0.25, 3, 1, 1), 2),
            "cost: $0.25 (+1 model calls without a price)"
        );
        let mut by = std::collections::BTreeMap::new();
        by.insert("HostAgent".to_owned(), totals(0.1, 1, 0, 0));
        by.insert("AppAgent".to_owned(), totals(0.0, 1, 1, 0));
        assert_eq!(
            agents_line(&by),
            "AppAgent is not available (0 tokens, 1 model calls); HostAgent: $0.1000 (0 tokens, 1 model calls)"
        );
        assert_eq!(agents_line(&Default::default()), "-");
    }
}
