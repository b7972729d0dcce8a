//! The prompt parts every agent the HostAgent hands a sub-task to fills the
//! same way: the sub-task's variables of the user prompt, and the blackboard
//! the message opens with (the HostAgent's message opens with it too). Each
//! agent adds only what it alone shows (the AppAgent its controls and
//! window, the command-line agent the commands it ran).

use crate::lifecycle::Lifecycle;
use crate::memory::Blackboard;
use crate::prompter::{Template, render};
use crate::turn::StepInput;
use serde::Serialize;
use ufo_llm::Part;

/// The template's `user` prompt with the sub-task's variables filled in —
/// `user_request`, `prev_subtask`, `subtask`, `host_message`, `prev_plan`,
/// and `retrieved_docs` (`retrieved` followed by the user's answers, one
/// `pending_answer` each) — and then the agent's `own`.
pub(crate) fn user_prompt<W>(
    template: &Template,
    input: &StepInput<'_>,
    life: &Lifecycle<W>,
    retrieved: String,
    own: &[(&str, &str)],
) -> String {
    let mut retrieved_docs = retrieved;
    retrieved_docs.push_str(&life.answers_prompt(template.opt("pending_answer")));
    let prev_subtask = json(input.prev_subtasks);
    let host_message = json(life.host_message());
    let prev_plan = json(life.plan());
    let mut vars = vec![
        ("retrieved_docs", retrieved_docs.as_str()),
        ("user_request", input.request),
        ("prev_subtask", &prev_subtask),
        ("subtask", life.subtask()),
        ("host_message", &host_message),
        ("prev_plan", &prev_plan),
    ];
    vars.extend_from_slice(own);
    render(template.opt("user").unwrap_or_default(), &vars)
}

/// The blackboard as a message's first parts: its text and, when `images`,
/// its saved screenshots; with the names the step log gives those images
/// (`blackboard_screenshot_1`, ...). Nothing for an empty blackboard.
pub(crate) fn blackboard_parts(blackboard: &Blackboard, images: bool) -> (Vec<Part>, Vec<String>) {
    let (text, urls) = blackboard.to_prompt();
    if text.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut parts = vec![Part::text(text)];
    let mut names = Vec::new();
    if images {
        for (i, url) in urls.into_iter().enumerate() {
            parts.push(Part::image(url));
            names.push(format!("blackboard_screenshot_{}", i + 1));
        }
    }
    (parts, names)
}

/// `v` as the JSON text a prompt shows (empty if it cannot be written).
fn json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::SubtaskRecord;

    const TEMPLATE: &str = r#"
user: "R={user_request}|S={subtask}|H={host_message}|P={prev_plan}|D={retrieved_docs}|O={own}|X={prev_subtask}"
pending_answer: "Q:{question} A:{answer}"
"#;

    #[test]
    fn the_sub_tasks_variables_and_the_agents_own_fill_the_user_prompt() {
        let t = Template::parse("test", TEMPLATE).unwrap();
        let mut life = Lifecycle::<()>::default();
        life.assign("type hi", vec!["use the editor".into()]);
        let mut rec = crate::step::StepRecord::new(crate::step::AgentKind::AppAgent, "a", 1);
        rec.plan = vec!["save".into()];
        life.take_reply(&rec, String::new());
        life.answer(vec![("which file?".into(), "a.txt".into())]);
        let mut bb = Blackboard::default();
        let prev: Vec<SubtaskRecord> = Vec::new();
        let input = StepInput {
            session_step: 2,
            round: 1,
            request: "write hi",
            blackboard: &mut bb,
            prev_subtasks: &prev,
        };
        let user = user_prompt(&t, &input, &life, "DOCS\n".into(), &[("own", "mine")]);
        assert_eq!(
            user,
            "R=write hi|S=type hi|H=[\"use the editor\"]|P=[\"save\"]|D=DOCS\nQ:which file? A:a.txt\n|O=mine|X=[]"
        );
    }

    #[test]
    fn an_empty_blackboard_adds_no_parts() {
        let (parts, names) = blackboard_parts(&Blackboard::default(), true);
        assert!(parts.is_empty() && names.is_empty());
    }
}
