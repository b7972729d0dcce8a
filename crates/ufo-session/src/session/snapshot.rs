//! Final snapshots: the state a round, and the session, left the application
//! in (`action_round_{r}_final.png`, `action_step_final.png`; with
//! `SAVE_UI_TREE` the window's tree, with `SAVE_FULL_SCREEN` the desktop).

use super::Session;
use super::recorder::FINAL_SHOT;
use serde_json::json;
use ufo_agent::SubAgent;
use ufo_core::Diagnostic;
use ufo_desktop::dispatch::execute_one;
use ufo_desktop::tools::{ScreenshotInfo, Tool};
impl Session<'_> {
    /// Takes the final snapshot of round `round`, or of the session (`None`).
    /// Nothing is taken before the first step; a snapshot that cannot be
    /// taken (no window selected) is skipped, one that cannot be written is
    /// reported.
    pub(super) async fn snapshot(&mut self, round: Option<usize>) {
        if self.step == 0 {
            return;
        }
        // Only agents that work on a window leave a window to photograph: a
        // session of command-line agents alone asks nothing of the desktop
        // (a device that runs only the command-line tools has no screenshot
        // tool, and UFO's does not answer a tool it lacks). A replayed plan
        // has no agent but works on the window it selected.
        if self.host.is_none()
            && !self.window_selected
            && self.apps.values().all(SubAgent::is_third_party)
        {
            return;
        }
        let (window, desktop, tree) = match round {
            Some(r) => (
                format!("action_round_{r}_final.png"),
                format!("desktop_round_{r}_final.png"),
                format!("ui_trees/ui_tree_round_{r}_final.json"),
            ),
            None => (
                FINAL_SHOT.to_owned(),
                "desktop_final.png".to_owned(),
                "ui_trees/ui_tree_final.json".to_owned(),
            ),
        };
        let system = &self.s.config.system;
        let mut wanted = vec![(Tool::CaptureWindowScreenshot, window)];
        if system.save_full_screen {
            wanted.push((Tool::CaptureDesktopScreenshot, desktop));
        }
        if system.save_ui_tree {
            wanted.push((Tool::GetUiTree, tree));
        }
        for (tool, name) in wanted {
            let r = execute_one(self.s.dispatcher.as_ref(), tool.command(json!({}))).await;
            if !r.is_success() {
                tracing::debug!(tool = tool.name(), error = ?r.error, "no final snapshot");
                continue;
            }
            let bytes = match tool {
                Tool::GetUiTree => serde_json::to_vec(&r.result).ok(),
                _ => serde_json::from_value::<ScreenshotInfo>(r.result)
                    .ok()
                    .and_then(|i| ufo_desktop::encode::decode_data_url(&i.image_url).ok())
                    .map(|(_, png)| png),
            };
            if let Some(b) = bytes
                && let Err(e) = self.rec.write_snapshot(&name, &b)
            {
                self.s.io.show(&e.report().rendered());
            }
        }
    }
}
