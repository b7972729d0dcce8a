//! The Linux single-tier session (UFO's `LinuxSession`): the AppAgent on one
//! application, or an enabled third-party agent (`--app LinuxAgent`), no
//! HostAgent.

use super::machine::State;
use super::{Session, SessionStatus};
use ufo_core::AppAgentStatus;
impl Session<'_> {
    /// Linux single-tier session (UFO's `LinuxSession`): the AppAgent on
    /// `application`, no HostAgent. `subtask` defaults to the request.
    pub(super) async fn run_single_tier(
        &mut self,
        round: usize,
        request: &str,
        application: &str,
        subtask: Option<&str>,
    ) -> SessionStatus {
        if !self.requests.iter().any(|r| r == request) {
            self.requests.push(request.to_owned());
            self.blackboard.requests.push(request.to_owned());
        }
        // The operator selects the window it was given, if any.
        let window = match self.is_operator(application) {
            true => self.operator.as_ref().and_then(|o| o.window_app.clone()),
            false => Some(application.to_owned()),
        };
        let title = match (self.third_party(application), window) {
            // A third-party agent has no window to select; the operator on
            // the desktop neither.
            (Some(_), _) | (None, None) => String::new(),
            (None, Some(window_app)) => match self.select_app(&window_app).await {
                Ok(t) => t,
                Err(e) => return self.fail_with(&e),
            },
        };
        if let Err(e) = self.ensure_app(application) {
            return self.fail_with(&e);
        }
        if let Some(a) = self.apps.get_mut(application) {
            a.assign(subtask.unwrap_or(request), Vec::new(), &title);
        }
        self.machine(round, request, State::App(AppAgentStatus::Continue), true)
            .await
    }
}
