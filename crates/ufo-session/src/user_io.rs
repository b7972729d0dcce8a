//! Questions to the user: confirmation of sensitive actions (CONFIRM), the
//! model's questions (PENDING) and new requests in normal mode.

use async_trait::async_trait;
use std::collections::VecDeque;
use std::sync::Mutex;

/// How a session talks to the user: a terminal ([`crate::console::ConsoleIo`]),
/// answers given in advance ([`ScriptedIo`]), or a remote client.
///
/// Questions are async: waiting for an answer never holds a runtime worker,
/// and a session interrupted while it waits drops the question. An
/// implementation must never wait forever when nobody can answer: it declines
/// confirmations (`false`) and returns `None` for questions and new requests.
#[async_trait]
pub trait UserIo: Send + Sync {
    /// Asks whether a sensitive action may run. `true` = yes.
    async fn confirm(&self, prompt: &str) -> bool;
    /// Asks a free-form question; `None` when there is no answer.
    async fn ask(&self, question: &str) -> Option<String>;
    /// Asks for the next request of a normal-mode session; `None` (or an
    /// answer of `N`) ends the session.
    async fn new_request(&self, prompt: &str) -> Option<String>;
    /// Shows a line to the user (never waits for them).
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

#[async_trait]
impl UserIo for ScriptedIo {
    async fn confirm(&self, prompt: &str) -> bool {
        self.next(prompt)
            .is_some_and(|a| matches!(a.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
    }

    async fn ask(&self, question: &str) -> Option<String> {
        self.next(question)
    }

    async fn new_request(&self, prompt: &str) -> Option<String> {
        self.next(prompt)
            .filter(|a| !a.trim().eq_ignore_ascii_case("n") && !a.trim().is_empty())
    }

    fn show(&self, line: &str) {
        if let Ok(mut l) = self.log.lock() {
            l.push(line.to_owned());
        }
    }
}
