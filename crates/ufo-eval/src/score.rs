//! OSWorld's scoring: an infeasible task scores 1 only when the agent gave
//! up (its last status was FAIL); a feasible one scores 0 when it gave up;
//! otherwise the metrics decide, combined by `conj`: `and` stops at the first
//! 0 and else takes the mean, `or` stops at the first 1 and else takes the
//! maximum.

/// How several metrics combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conj {
    /// All must hold (0 short-circuits; else the mean).
    And,
    /// One suffices (1 short-circuits; else the maximum).
    Or,
}

impl Conj {
    /// `and` (also the default) or `or`.
    pub fn parse(s: Option<&str>) -> Result<Self, String> {
        match s.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("and") | Some("") => Ok(Conj::And),
            Some("or") => Ok(Conj::Or),
            Some(other) => Err(format!("conj {other:?} is not and/or")),
        }
    }
}

/// Combines metric scores, evaluating them lazily in order (a metric after
/// a short-circuit is not run).
pub fn combine(conj: Conj, scores: impl IntoIterator<Item = f64>) -> f64 {
    let mut seen = Vec::new();
    for s in scores {
        let s = if s.is_finite() {
            s.clamp(0.0, 1.0)
        } else {
            0.0
        };
        match conj {
            Conj::And if s == 0.0 => return 0.0,
            Conj::Or if s == 1.0 => return 1.0,
            _ => seen.push(s),
        }
    }
    if seen.is_empty() {
        return 0.0;
    }
    match conj {
        Conj::And => seen.iter().sum::<f64>() / seen.len() as f64,
        Conj::Or => seen.iter().copied().fold(0.0, f64::max),
    }
}

/// The task's score: `infeasible` tasks and an agent that gave up are
/// decided without running the metrics.
pub fn task_score(infeasible: bool, agent_gave_up: bool, metrics: impl FnOnce() -> f64) -> f64 {
    match (infeasible, agent_gave_up) {
        (true, gave_up) => f64::from(u8::from(gave_up)),
        (false, true) => 0.0,
        (false, false) => metrics(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn and_or_short_circuit_and_average() {
        assert_eq!(combine(Conj::And, [1.0, 0.5]), 0.75);
        assert_eq!(combine(Conj::Or, [0.2, 0.5]), 0.5);
        let mut ran = 0;
        let s = combine(Conj::And, [0.0, 1.0].into_iter().inspect(|_| ran += 1));
        assert_eq!((s, ran), (0.0, 1));
        assert_eq!(combine(Conj::Or, [1.0, 0.0]), 1.0);
        assert_eq!(combine(Conj::And, [f64::NAN]), 0.0);
        assert_eq!(combine(Conj::And, []), 0.0);
        assert!(Conj::parse(Some("xor")).is_err());
    }

    #[test]
    fn infeasible_tasks_score_only_when_the_agent_gives_up() {
        assert_eq!(task_score(true, true, || 0.0), 1.0);
        assert_eq!(task_score(true, false, || 1.0), 0.0);
        assert_eq!(task_score(false, true, || 1.0), 0.0);
        assert_eq!(task_score(false, false, || 0.5), 0.5);
    }
}
