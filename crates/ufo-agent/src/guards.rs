//! What the agents that act share around acting: the gate a step passes
//! once the model has answered (hold for the user, ask the user, or act),
//! the SAFE_GUARD check, the repeated-failure guard and the memory update.

use crate::call::Call;
use crate::memory::{Blackboard, Memory, MemoryItem};
use crate::settings::AgentSettings;
use crate::step::{Phase, StepRecord};
use serde_json::json;
use std::time::Instant;
use ufo_core::AppAgentStatus;
use ufo_desktop::tools::{ToolName, guard};

/// Where a step goes once the model has answered and SAFE_GUARD has judged
/// its work: the one gate of the AppAgent, the command-line agent and the
/// operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Held before acting, for the user's confirmation (CONFIRM).
    Hold,
    /// Ends with the model's questions for the user (PENDING).
    Ask,
    /// Carries out the work and remembers the step.
    Act,
}

/// The gate for a reply with `status`: a step with work to do holds when
/// the model asked for confirmation or `must_wait` (SAFE_GUARD's reasons,
/// a provider's safety checks); otherwise a PENDING step asks, and the rest
/// act. Work-less CONFIRM steps have nothing to hold and act (as a no-op).
pub(crate) fn gate(status: AppAgentStatus, has_work: bool, must_wait: bool) -> Gate {
    if has_work && (status == AppAgentStatus::Confirm || must_wait) {
        Gate::Hold
    } else if status == AppAgentStatus::Pending {
        Gate::Ask
    } else {
        Gate::Act
    }
}

/// The status a held step ends with once the user confirms it: the
/// model's, or CONTINUE when the model itself asked (CONFIRM).
pub(crate) fn confirmed_status(status: AppAgentStatus) -> AppAgentStatus {
    match status {
        AppAgentStatus::Confirm => AppAgentStatus::Continue,
        other => other,
    }
}

/// Whether the application's whole content was left selected by the calls
/// so far (`^a` in one step): the next call that types, deletes or pastes
/// replaces it all, and SAFE_GUARD stops it as it would `^a{DELETE}`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Selection(bool);

/// Why SAFE_GUARD stops `calls` for the user's confirmation although the
/// model did not ask (`tool: reason` each); empty when it does not.
/// `selection` carries what earlier calls left selected and is updated by
/// these calls (whatever SAFE_GUARD's setting: it may be turned on later).
pub(crate) fn guarded(
    settings: &AgentSettings,
    status: AppAgentStatus,
    calls: &[Call],
    selection: &mut Selection,
) -> Vec<String> {
    let acting = matches!(
        status,
        AppAgentStatus::Continue | AppAgentStatus::Finish | AppAgentStatus::Fail
    );
    let mut reasons = Vec::new();
    for c in calls {
        if settings.safe_guard && acting {
            let why = guard::sensitive_after(
                &c.tool,
                &c.arguments,
                settings.safe_guard_tools.as_deref(),
                selection.0,
            )
            .or_else(|| external_sensitive(settings, &c.tool));
            if let Some(why) = why {
                reasons.push(format!("{}: {why}", c.tool));
            }
        }
        if acting {
            selection.0 = guard::leaves_all_selected(&c.tool, &c.arguments, selection.0);
        }
    }
    reasons
}

/// Why an external (MCP) tool's call is sensitive: its server did not mark
/// it read-only or non-destructive. A `SAFE_GUARD_TOOLS` list replaces the
/// rule here too.
fn external_sensitive(settings: &AgentSettings, tool: &ToolName) -> Option<String> {
    let ToolName::External(name) = tool else {
        return None;
    };
    if settings.safe_guard_tools.is_some() {
        return None;
    }
    settings
        .external_tools
        .iter()
        .find(|t| t.name == *name && t.destructive)
        .map(|_| "its MCP server does not mark it read-only or non-destructive".to_owned())
}

/// Counts how often the same action failed in a row.
#[derive(Debug, Default)]
pub(crate) struct RepeatGuard(Option<(String, u32)>);

impl RepeatGuard {
    /// The last action succeeded (or a new sub-task began).
    pub(crate) fn reset(&mut self) {
        self.0 = None;
    }

    /// `action` failed; how many times in a row now.
    pub(crate) fn failed(&mut self, action: &str) -> u32 {
        let times = match &self.0 {
            Some((prev, k)) if prev == action => k + 1,
            _ => 1,
        };
        self.0 = Some((action.to_owned(), times));
        times
    }

    /// The action failing in a row and how often, when it failed at least twice.
    pub(crate) fn repeating(&self) -> Option<(&str, u32)> {
        self.0
            .as_ref()
            .filter(|(_, k)| *k >= 2)
            .map(|(a, k)| (a.as_str(), *k))
    }
}

/// The memory update of a step that ended in `status`: the agent's memory,
/// and a trajectory item on the blackboard naming the agent as
/// `who = (key, value)`.
pub(crate) fn remember(
    memory: &mut Memory,
    blackboard: &mut Blackboard,
    rec: &mut StepRecord,
    status: AppAgentStatus,
    user_confirm: Option<bool>,
    who: (&str, &str),
) {
    let t = Instant::now();
    rec.status = status.into();
    let item = MemoryItem::of(rec, status.into(), user_confirm);
    let mut entry = json!({
        "step": item.step,
        "subtask": item.subtask,
        "action_representation": item.action_representation,
        "user_confirm": item.user_confirm,
    });
    entry[who.0] = json!(who.1);
    blackboard.trajectories.push(entry);
    memory.push(item);
    rec.time(Phase::MemoryUpdate, t);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_holds_work_the_user_must_confirm_asks_when_pending_and_acts_otherwise() {
        use AppAgentStatus::{Confirm, Continue, Finish, Pending};
        // The model asks, or SAFE_GUARD stops the work: held.
        assert_eq!(gate(Confirm, true, false), Gate::Hold);
        assert_eq!(gate(Continue, true, true), Gate::Hold);
        assert_eq!(gate(Pending, true, true), Gate::Hold);
        // Nothing to hold.
        assert_eq!(gate(Confirm, false, true), Gate::Act);
        // Questions for the user.
        assert_eq!(gate(Pending, true, false), Gate::Ask);
        assert_eq!(gate(Pending, false, false), Gate::Ask);
        assert_eq!(gate(Continue, true, false), Gate::Act);
        assert_eq!(gate(Finish, false, false), Gate::Act);
        assert_eq!(confirmed_status(Confirm), Continue);
        assert_eq!(confirmed_status(Finish), Finish);
    }

    #[test]
    fn external_tools_are_guarded_unless_their_server_says_they_are_safe() {
        let spec = |name: &str, destructive: bool| ufo_core::ToolSpec {
            name: name.into(),
            namespace: "fs".into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
            tool_type: ufo_core::ToolType::Action,
            destructive,
            targets_control: false,
            examples: Vec::new(),
        };
        let mut settings = AgentSettings {
            safe_guard: true,
            external_tools: vec![
                spec("fs.write_file", true),
                spec("fs.read_text_file", false),
            ],
            ..AgentSettings::default()
        };
        let call = |f: &str| Call {
            tool: ToolName::parse(f),
            arguments: Default::default(),
            status: None,
        };
        let calls = [call("fs.write_file"), call("fs.read_text_file")];
        let why = guarded(
            &settings,
            AppAgentStatus::Continue,
            &calls,
            &mut Selection::default(),
        );
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].starts_with("fs.write_file: "), "{why:?}");
        // A SAFE_GUARD_TOOLS list replaces the rule for external tools too.
        settings.safe_guard_tools = Some(vec!["fs.read_text_file".into()]);
        let why = guarded(
            &settings,
            AppAgentStatus::Continue,
            &calls,
            &mut Selection::default(),
        );
        assert_eq!(
            why,
            ["fs.read_text_file: fs.read_text_file is listed in SAFE_GUARD_TOOLS"]
        );
        settings.safe_guard = false;
        assert!(
            guarded(
                &settings,
                AppAgentStatus::Continue,
                &calls,
                &mut Selection::default()
            )
            .is_empty()
        );
    }

    #[test]
    fn select_all_in_one_step_then_a_delete_in_the_next_asks_first() {
        let settings = AgentSettings {
            safe_guard: true,
            ..AgentSettings::default()
        };
        let call = |f: &str, keys: &str| Call {
            tool: ToolName::parse(f),
            arguments: serde_json::json!({ "keys": keys })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            status: None,
        };
        let mut sel = Selection::default();
        let step = |sel: &mut Selection, keys: &str| {
            guarded(
                &settings,
                AppAgentStatus::Continue,
                &[call("keyboard_input", keys)],
                sel,
            )
        };
        assert!(step(&mut sel, "^a").is_empty());
        let why = step(&mut sel, "{BACKSPACE}");
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].contains("selects everything"), "{why:?}");
        // A caret move in between ends the selection.
        let mut sel = Selection::default();
        assert!(step(&mut sel, "^a").is_empty());
        assert!(step(&mut sel, "{END}").is_empty());
        assert!(step(&mut sel, "{BACKSPACE}").is_empty());
    }

    #[test]
    fn the_same_failure_is_counted_until_something_else_happens() {
        let mut g = RepeatGuard::default();
        assert_eq!(g.failed("click(1)"), 1);
        assert!(g.repeating().is_none());
        assert_eq!(g.failed("click(1)"), 2);
        assert_eq!(g.repeating(), Some(("click(1)", 2)));
        assert_eq!(g.failed("click(2)"), 1);
        g.reset();
        assert_eq!(g.failed("click(2)"), 1);
    }
}
