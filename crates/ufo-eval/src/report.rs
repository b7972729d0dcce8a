//! What a run leaves: `results.json` (one object per task), `report.md`
//! (per-task table with first and last screenshots and log links, success
//! per domain), the terminal table, and the comparison of two runs.

use crate::run::{AgentUsage, RunStatus, TaskResult};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Every status, in the order the per-domain tables show them.
pub const STATUSES: [RunStatus; 10] = [
    RunStatus::Scored,
    RunStatus::Unavailable,
    RunStatus::NeedsAccount,
    RunStatus::AppMissing,
    RunStatus::SetupFailed,
    RunStatus::Unsupported,
    RunStatus::CheckerError,
    RunStatus::Timeout,
    RunStatus::Error,
    RunStatus::Budget,
];

/// Per domain, how many tasks ended in each status (in [`STATUSES`]'
/// order) and their mean time in seconds.
pub fn statuses_by_domain(results: &[TaskResult]) -> Vec<(String, [usize; 10], f64)> {
    let mut m: BTreeMap<String, ([usize; 10], f64)> = BTreeMap::new();
    for r in results {
        let e = m.entry(r.domain.clone()).or_default();
        if let Some(i) = STATUSES.iter().position(|s| *s == r.status) {
            e.0[i] += 1;
        }
        e.1 += r.time_s;
    }
    m.into_iter()
        .map(|(d, (c, t))| {
            let n = c.iter().sum::<usize>().max(1);
            (d, c, t / n as f64)
        })
        .collect()
}

/// Success per domain: `(domain, tasks, summed score)`.
pub fn by_domain(results: &[TaskResult]) -> Vec<(String, usize, f64)> {
    let mut m: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for r in results {
        let e = m.entry(r.domain.clone()).or_default();
        e.0 += 1;
        e.1 += r.score;
    }
    m.into_iter().map(|(d, (n, s))| (d, n, s)).collect()
}

/// The summary line: success rate over all tasks.
pub fn headline(results: &[TaskResult], max_steps: Option<usize>) -> String {
    let total: f64 = results.iter().map(|r| r.score).sum();
    let n = results.len().max(1);
    format!(
        "{} tasks, success {:.1}% ({:.2}/{}){}",
        results.len(),
        100.0 * total / n as f64,
        total,
        results.len(),
        match max_steps {
            Some(m) => format!(", step budget {m}"),
            None => String::new(),
        }
    )
}

/// A status as the tables and `results.json` write it.
pub fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Scored => "scored",
        RunStatus::SetupFailed => "setup_failed",
        RunStatus::Unavailable => "unavailable",
        RunStatus::NeedsAccount => "needs_account",
        RunStatus::AppMissing => "app_missing",
        RunStatus::Timeout => "timeout",
        RunStatus::Unsupported => "unsupported",
        RunStatus::CheckerError => "checker_error",
        RunStatus::Error => "error",
        RunStatus::Budget => "budget",
    }
}

/// A cost as the tables write it: `0.0123`, `local $0` when every call went
/// to a local model, `n/a` when no call had a price (never a made-up 0),
/// `0.0123+n/a` when some had none.
pub fn cost_cell(cost: f64, unpriced: u32, local: u32) -> String {
    match (unpriced, cost > 0.0) {
        (0, false) if local > 0 => "local $0".into(),
        (0, _) => format!("{cost:.4}"),
        (_, false) => "n/a".into(),
        (_, true) => format!("{cost:.4}+n/a"),
    }
}

/// The run's cost and tokens per agent, summed over its tasks.
pub fn by_agent(results: &[TaskResult]) -> BTreeMap<String, AgentUsage> {
    let mut m: BTreeMap<String, AgentUsage> = BTreeMap::new();
    for (agent, u) in results.iter().flat_map(|r| r.agents.iter()) {
        let e = m.entry(agent.clone()).or_default();
        e.cost += u.cost;
        e.tokens += u.tokens;
        e.prompt_tokens += u.prompt_tokens;
        e.completion_tokens += u.completion_tokens;
        e.calls += u.calls;
        e.unpriced_calls += u.unpriced_calls;
        e.local_calls += u.local_calls;
    }
    m
}

/// The run's total cost and tokens, and per agent, one line each.
pub fn cost_summary(results: &[TaskResult]) -> String {
    let cost: f64 = results.iter().map(|r| r.cost).sum();
    let unpriced: u32 = results.iter().map(|r| r.unpriced_calls).sum();
    let local: u32 = results.iter().map(|r| r.local_calls).sum();
    let tokens: u64 = results.iter().map(|r| r.tokens).sum();
    let mut s = format!(
        "cost $ {} ({tokens} tokens)\n",
        cost_cell(cost, unpriced, local)
    );
    for (agent, u) in by_agent(results) {
        let _ = writeln!(
            s,
            "  {agent}: $ {} ({} tokens: {} prompt, {} completion; {} model calls)",
            cost_cell(u.cost, u.unpriced_calls, u.local_calls),
            u.tokens,
            u.prompt_tokens,
            u.completion_tokens,
            u.calls
        );
    }
    s
}

/// The per-task table for the terminal.
pub fn table(results: &[TaskResult]) -> String {
    let mut s = format!(
        "{:<56} {:>5} {:<13} {:>5} {:>8} {:>8} {:>8}\n",
        "task", "score", "status", "steps", "time s", "cost $", "tokens"
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<56} {:>5.2} {:<13} {:>5} {:>8.1} {:>8} {:>8}",
            r.id.chars().take(56).collect::<String>(),
            r.score,
            status_name(r.status),
            r.steps,
            r.time_s,
            cost_cell(r.cost, r.unpriced_calls, r.local_calls),
            r.tokens
        );
    }
    for (d, n, total) in by_domain(results) {
        let _ = writeln!(s, "  {d}: {:.1}% of {n}", 100.0 * total / n as f64);
    }
    s.push('\n');
    s.push_str(&status_table(results));
    s.push('\n');
    s.push_str(&cost_summary(results));
    s
}

/// The per-domain table of statuses (markdown): tasks per status, mean time.
pub fn status_table(results: &[TaskResult]) -> String {
    let mut s = String::from("| domain |");
    for st in STATUSES {
        let _ = write!(s, " {} |", status_name(st));
    }
    s.push_str(" time s |\n|---|");
    s.push_str(&"---|".repeat(STATUSES.len() + 1));
    s.push('\n');
    for (d, counts, time) in statuses_by_domain(results) {
        let _ = write!(s, "| {d} |");
        for c in counts {
            let _ = write!(s, " {c} |");
        }
        let _ = writeln!(s, " {time:.1} |");
    }
    s
}

/// The step images of a session log folder: first and last.
fn first_and_last(log: &Path) -> (Option<String>, Option<String>) {
    let mut shots: Vec<(u32, String)> = std::fs::read_dir(log)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let n = name
                .strip_prefix("action_step")?
                .strip_suffix(".png")?
                .parse::<u32>()
                .ok()?;
            Some((n, e.path().display().to_string()))
        })
        .collect();
    shots.sort();
    let last_final = log.join("action_step_final.png");
    let last = match last_final.is_file() {
        true => Some(last_final.display().to_string()),
        false => shots.last().map(|s| s.1.clone()),
    };
    (shots.first().map(|s| s.1.clone()), last)
}

/// `path` relative to `base` when it lies inside it (links in `report.md`
/// then work wherever the output folder is moved).
fn relative(path: &str, base: &Path) -> String {
    Path::new(path)
        .strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

/// `report.md` for the output folder `out`: the headline, success per
/// domain, and per task its score, status, steps, time, cost, error, first
/// and last screenshot and logs (linked relative to `out`).
pub fn markdown(results: &[TaskResult], max_steps: Option<usize>, out: &Path) -> String {
    let mut md = format!(
        "# ufo eval\n\n{}\n\n## Per domain\n\n| domain | tasks | success |\n|---|---|---|\n",
        headline(results, max_steps)
    );
    for (d, n, total) in by_domain(results) {
        let _ = writeln!(md, "| {d} | {n} | {:.1}% |", 100.0 * total / n as f64);
    }
    md.push_str("\n## Statuses per domain\n\n");
    md.push_str(&status_table(results));
    md.push_str("\n## Cost per agent\n\n| agent | cost $ | tokens | prompt | completion | model calls |\n|---|---|---|---|---|---|\n");
    for (agent, u) in by_agent(results) {
        let _ = writeln!(
            md,
            "| {agent} | {} | {} | {} | {} | {} |",
            cost_cell(u.cost, u.unpriced_calls, u.local_calls),
            u.tokens,
            u.prompt_tokens,
            u.completion_tokens,
            u.calls
        );
    }
    let _ = writeln!(
        md,
        "| all | {} | {} | | | |",
        cost_cell(
            results.iter().map(|r| r.cost).sum(),
            results.iter().map(|r| r.unpriced_calls).sum(),
            results.iter().map(|r| r.local_calls).sum()
        ),
        results.iter().map(|r| r.tokens).sum::<u64>()
    );
    md.push_str("\n## Tasks\n\n| task | score | status | steps | time s | cost $ | tokens | first | last | logs |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in results {
        let (first, last) = r
            .log_dir
            .as_deref()
            .map(first_and_last)
            .unwrap_or((None, None));
        let img = |p: Option<String>| {
            p.map(|p| format!("![]({})", relative(&p, out)))
                .unwrap_or_else(|| "-".into())
        };
        let _ = writeln!(
            md,
            "| {} | {:.2} | {} | {} | {:.1} | {} | {} | {} | {} | {} |",
            r.id,
            r.score,
            status_name(r.status),
            r.steps,
            r.time_s,
            cost_cell(r.cost, r.unpriced_calls, r.local_calls),
            r.tokens,
            img(first),
            img(last),
            r.log_dir
                .as_ref()
                .map(|l| format!("[logs]({})", relative(&l.display().to_string(), out)))
                .unwrap_or_else(|| "-".into())
        );
        if let Some(e) = &r.error {
            // A rendered error's caused-by and help lines join its first.
            let e = e.replace('|', "/").replace("\n  ", "; ").replace('\n', " ");
            let _ = writeln!(md, "|  | error: {e} | | | | | | | | |");
        }
        for p in &r.step_problems {
            let p = p.replace('|', "/").replace("\n  ", "; ").replace('\n', " ");
            let _ = writeln!(md, "|  | passed over: {p} | | | | | | | | |");
        }
    }
    md
}

/// `ufo eval --compare A B`: a side-by-side table of two runs' scores.
pub fn compare(a: &[TaskResult], b: &[TaskResult], names: (&str, &str)) -> String {
    let bm: BTreeMap<&str, &TaskResult> = b.iter().map(|r| (r.id.as_str(), r)).collect();
    let am: BTreeMap<&str, &TaskResult> = a.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut ids: Vec<&str> = am.keys().chain(bm.keys()).copied().collect();
    ids.sort();
    ids.dedup();
    let mut s = format!("{:<56} {:>10} {:>10}\n", "task", names.0, names.1);
    let cell = |r: Option<&&TaskResult>| r.map_or("-".to_owned(), |r| format!("{:.2}", r.score));
    for id in &ids {
        let _ = writeln!(
            s,
            "{:<56} {:>10} {:>10}",
            id,
            cell(am.get(id)),
            cell(bm.get(id))
        );
    }
    let rate = |m: &BTreeMap<&str, &TaskResult>| {
        let n = m.len().max(1) as f64;
        100.0 * m.values().map(|r| r.score).sum::<f64>() / n
    };
    let _ = writeln!(
        s,
        "{:<56} {:>9.1}% {:>9.1}%",
        "success",
        rate(&am),
        rate(&bm)
    );
    s
}

/// Reads a run's `results.json`.
pub fn load(run: &Path) -> Result<Vec<TaskResult>, String> {
    let p = if run.is_dir() {
        run.join("results.json")
    } else {
        run.to_path_buf()
    };
    let text =
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a results.json: {e}", p.display()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn r(id: &str, domain: &str, score: f64) -> TaskResult {
        TaskResult {
            id: id.into(),
            domain: domain.into(),
            score,
            status: RunStatus::Scored,
            session_status: Some("FINISH".into()),
            steps: 3,
            time_s: 1.5,
            cost: 0.0,
            tokens: 10,
            unpriced_calls: 0,
            local_calls: 0,
            agents: BTreeMap::new(),
            error: None,
            log_dir: None,
            step_problems: Vec::new(),
            unreached: Vec::new(),
        }
    }

    #[test]
    fn rates_tables_and_comparisons() {
        let a = vec![
            r("t1", "gedit", 1.0),
            r("t2", "gedit", 0.0),
            r("t3", "calc", 1.0),
        ];
        assert_eq!(
            by_domain(&a),
            vec![("calc".into(), 1, 1.0), ("gedit".into(), 2, 1.0)]
        );
        assert!(
            headline(&a, Some(15)).contains("success 66.7%")
                && headline(&a, Some(15)).contains("step budget 15")
        );
        assert!(table(&a).contains("gedit: 50.0% of 2"));
        let md = markdown(&a, None, Path::new("/out"));
        assert!(md.contains("| t2 | 0.00 | scored |"), "{md}");
        // Statuses per domain: counts in STATUSES' order and mean time.
        let mut gone = r("t6", "calc", 0.0);
        gone.status = RunStatus::Unavailable;
        gone.time_s = 0.5;
        let table = status_table(&[a[2].clone(), gone]);
        assert!(
            table.contains("| calc | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1.0 |"),
            "{table}"
        );
        assert!(
            table.starts_with(
                "| domain | scored | unavailable | needs_account | app_missing | setup_failed |"
            ),
            "{table}"
        );
        let mut failed = r("t5", "calc", 0.0);
        failed.error = Some("error[ufo::x]: a|b\n  caused by: c\n  help: d".into());
        let md = markdown(&[failed], None, Path::new("/out"));
        assert!(
            md.contains("| error: error[ufo::x]: a/b; caused by: c; help: d |"),
            "{md}"
        );
        let b = vec![r("t1", "gedit", 0.0), r("t4", "calc", 1.0)];
        let c = compare(&a, &b, ("A", "B"));
        assert!(
            c.contains("t4") && c.contains("66.7%") && c.contains("50.0%"),
            "{c}"
        );
    }

    #[test]
    fn costs_per_agent_and_budget_statuses_are_reported() {
        use crate::run::AgentUsage;
        assert_eq!(cost_cell(0.5, 0, 0), "0.5000");
        assert_eq!(cost_cell(0.0, 0, 3), "local $0");
        assert_eq!(cost_cell(0.0, 2, 0), "n/a");
        assert_eq!(cost_cell(0.5, 1, 0), "0.5000+n/a");
        let agent = |cost, tokens, calls| AgentUsage {
            cost,
            tokens,
            prompt_tokens: tokens - 1,
            completion_tokens: 1,
            calls,
            ..AgentUsage::default()
        };
        let mut a = r("t1", "gedit", 0.0);
        a.status = RunStatus::Budget;
        a.cost = 1.5;
        a.agents.insert("HostAgent".into(), agent(0.5, 100, 1));
        a.agents.insert("AppAgent".into(), agent(1.0, 200, 2));
        let mut b = r("t2", "gedit", 1.0);
        b.cost = 0.25;
        b.agents.insert("AppAgent".into(), agent(0.25, 50, 1));
        let results = [a, b];
        let sums = by_agent(&results);
        assert_eq!(sums["AppAgent"].calls, 3);
        assert_eq!(sums["AppAgent"].tokens, 250);
        assert!((sums["AppAgent"].cost - 1.25).abs() < 1e-12);
        let md = markdown(&results, None, Path::new("/out"));
        assert!(
            md.contains("| AppAgent | 1.2500 | 250 | 248 | 2 | 3 |"),
            "{md}"
        );
        assert!(
            md.contains("| HostAgent | 0.5000 | 100 | 99 | 1 | 1 |"),
            "{md}"
        );
        assert!(md.contains("| all | 1.7500 | 20 | | | |"), "{md}");
        assert!(
            md.contains("| t1 | 0.00 | budget | 3 | 1.5 | 1.5000 | 10 |"),
            "{md}"
        );
        assert!(status_table(&results).contains(" budget |"));
        assert!(
            status_table(&results)
                .contains("| gedit | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1.5 |"),
            "{}",
            status_table(&results)
        );
        let t = table(&results);
        assert!(t.contains("cost $ 1.7500 (20 tokens)"), "{t}");
        assert!(
            t.contains(
                "  AppAgent: $ 1.2500 (250 tokens: 248 prompt, 2 completion; 3 model calls)"
            ),
            "{t}"
        );
        // An older results.json (no per-agent fields) still reads.
        let old = r#"[{"id":"x","domain":"d","score":1.0,"status":"scored","steps":1,"time_s":1.0,"cost":0.0,"tokens":3}]"#;
        let back: Vec<TaskResult> = serde_json::from_str(old).unwrap();
        assert!(back[0].agents.is_empty());
        let budget: Vec<TaskResult> =
            serde_json::from_str(&old.replace("scored", "budget")).unwrap();
        assert_eq!(budget[0].status, RunStatus::Budget);
    }
}
