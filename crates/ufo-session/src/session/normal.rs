//! Normal mode: the request given (`-r`) or asked for, then a new request
//! after each round until the user answers `N`, a round ends in ERROR,
//! `MAX_ROUND` or `MAX_STEP`.
//! With `--app`, each round is a single-tier session on that application.

use super::interrupt::interrupted;
use super::{RunOptions, Services, Session, SessionReport, SessionStatus};
use crate::error::SessionError;

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let mut session = Session::new(s, &[&opts.task])?;
    Ok(vec![
        session
            .run_normal(opts.request.clone(), opts.app.as_deref())
            .await,
    ])
}

impl Session<'_> {
    pub(super) async fn run_normal(
        &mut self,
        request: Option<String>,
        app: Option<&str>,
    ) -> SessionReport {
        let outcome = tokio::select! {
            // Each phase on the heap: inlined, a debug build's session
            // nears a 2 MiB thread stack.
            st = Box::pin(self.normal_rounds(request, app)) => Ok(st),
            sig = interrupted() => Err(sig),
        };
        let status = self.unless_interrupted(outcome);
        Box::pin(self.finish(status)).await
    }

    async fn normal_rounds(&mut self, request: Option<String>, app: Option<&str>) -> SessionStatus {
        let mut status = SessionStatus::Finish;
        let mut next = match request.filter(|r| !r.trim().is_empty()) {
            Some(r) => Some(r),
            None => {
                let cfg = &self.s.config;
                let panel = crate::console::welcome(
                    cfg.host.as_ref(),
                    cfg.app.as_ref(),
                    app,
                    self.rec.dir(),
                );
                self.s.io.show(&panel);
                self.s
                    .io
                    .new_request("Please enter your request to be completed:")
                    .await
            }
        };
        if next.is_none() {
            return self.fail_with(&SessionError::NoRequest);
        }
        let mut round = 0;
        while let Some(req) = next.take() {
            let before = self.rec.usage();
            status = match app {
                Some(a) => Box::pin(self.run_single_tier(round, &req, a, None)).await,
                None => Box::pin(self.run_round(round, &req)).await,
            };
            self.snapshot(Some(round)).await;
            if self.s.config.system.eva_round && status != SessionStatus::Error {
                Box::pin(self.evaluate(Some(round))).await;
            }
            let spent = self.rec.usage().since(&before);
            self.s.io.show(&format!(
                "Round {} ended: {}. {} ({} tokens in {} model calls).",
                round + 1,
                status.as_str(),
                crate::console::cost_line("Round cost", &spent, 4),
                spent.usage.total_tokens,
                spent.calls
            ));
            round += 1;
            // A round that ended in ERROR ends the session in ERROR (UFO's
            // `is_finished`: an error finishes the session); no new request
            // is asked for.
            if matches!(status, SessionStatus::Error | SessionStatus::Budget)
                || round >= self.s.config.system.max_round
                || self.max_step_reached()
            {
                break;
            }
            next = self
                .s
                .io
                .new_request("Please enter your new request. Enter 'N' for exit:")
                .await;
        }
        status
    }
}
