//! The service modes (UFO's `ServiceSession` and `LinuxServiceSession`): one
//! request that arrived over the network, carried out by the same agents as a
//! local session. Only the dispatcher differs (it sends the commands to the
//! device that owns the desktop), and nobody sits at a terminal: the
//! services' [`UserIo`](crate::UserIo) answers for the remote side.

use super::{Mode, RunOptions, Services, Session, SessionReport};
use crate::error::SessionError;

/// The third-party agent `linux_service` runs when no application is named.
const DEFAULT_LINUX_AGENT: &str = "LinuxAgent";

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let request = opts
        .request
        .clone()
        .filter(|r| !r.trim().is_empty())
        .ok_or(SessionError::NoRequest)?;
    let app = match opts.mode {
        Mode::LinuxService => Some(single_tier_app(s, opts.app.as_deref())?),
        _ => opts.app.clone(),
    };
    let mut session = Session::new(s, &[&opts.task])?;
    Ok(vec![
        session.run_normal(Some(request), app.as_deref()).await,
    ])
}

/// The agent of a `linux_service` session: the application asked for, or
/// the command-line agent when it is enabled.
fn single_tier_app(s: &Services, app: Option<&str>) -> Result<String, SessionError> {
    if let Some(a) = app.filter(|a| !a.trim().is_empty()) {
        return Ok(a.to_owned());
    }
    match s
        .config
        .system
        .third_party
        .iter()
        .any(|a| a.spec.name == DEFAULT_LINUX_AGENT)
    {
        true => Ok(DEFAULT_LINUX_AGENT.to_owned()),
        false => Err(SessionError::MissingKey {
            key: "app".into(),
            message: "a linux_service session runs one agent: name the application (`app`), \
                      or enable the command-line agent with ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]"
                .into(),
        }),
    }
}
