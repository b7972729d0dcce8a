//! Questions to the user: confirmation of sensitive actions (CONFIRM), the
//! model's questions (PENDING) and new requests in normal mode.

use std::collections::VecDeque;
use std::sync::Mutex;

/// How agents and sessions talk to the user.
///
/// Implementations must never block forever when nobody can answer: a
/// non-interactive implementation declines confirmations (`false`) and returns
/// `None` for questions and new requests.
pub trait UserIo: Send + Sync {
    /// Asks whether a sensitive action may run. `true` = yes.
    fn confirm(&self, prompt: &str) -> bool;
    /// Asks a free-form question; `None` when there is no answer.
    fn ask(&self, question: &str) -> Option<String>;
    /// Asks for the next request of a normal-mode session; `None` (or an
    /// answer of `N`) ends the session.
    fn new_request(&self, prompt: &str) -> Option<String>;
    /// Shows a line to the user.
    fn show(&self, line: &str);
}

/// Answers given in advance (tests, scripted runs). Once the answers run out,
/// confirmations are declined and questions get no answer.
#[derive(Debug, Default)]
pub struct ScriptedIo {
    answers: Mutex<VecDeque<String>>,
    log: Mutex<Vec<String>>,
}

impl ScriptedIo {
    /// Answers used in order by every kind of question.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(answers: I) -> Self {
        Self {
            answers: Mutex::new(answers.into_iter().map(Into::into).collect()),
            log: Mutex::new(Vec::new()),
        }
    }

    /// Every prompt shown or asked, in order.
    pub fn transcript(&self) -> Vec<String> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn next(&self, prompt: &str) -> Option<String> {
        if let Ok(mut l) = self.log.lock() {
            l.push(prompt.to_owned());
        }
        self.answers.lock().ok().and_then(|mut a| a.pop_front())
    }
}

impl UserIo for ScriptedIo {
    fn confirm(&self, prompt: &str) -> bool {
        self.next(prompt)
            .is_some_and(|a| matches!(a.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
    }

    fn ask(&self, question: &str) -> Option<String> {
        self.next(question)
    }

    fn new_request(&self, prompt: &str) -> Option<String> {
        self.next(prompt)
            .filter(|a| !a.trim().eq_ignore_ascii_case("n") && !a.trim().is_empty())
    }

    fn show(&self, line: &str) {
        if let Ok(mut l) = self.log.lock() {
            l.push(line.to_owned());
        }
    }
}
