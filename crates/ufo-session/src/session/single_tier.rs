//! The Linux single-tier session (UFO's `LinuxSession`): the AppAgent on one
//! application, or an enabled third-party agent (`--app LinuxAgent`), no
//! HostAgent.

use super::machine::State;
use super::*;

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
        let title = match self.third_party(application) {
            // A third-party agent has no window to select.
            Some(_) => String::new(),
            None => match self.select_app(application).await {
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
