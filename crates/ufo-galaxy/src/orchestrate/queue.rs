//! Which ready tasks start now: one FIFO line of admitted tasks, at most
//! one task in flight per device, an optional limit on all of them.
//!
//! A ready task is *admitted* the first time it is seen ready (in the
//! ready set's order: priority, then task order) and keeps its place
//! until it starts. Each pass starts, in admission order, every admitted
//! task whose device is free — so each device serves its tasks first come
//! first served, as UFO's per-device queue does, and devices run side by
//! side. A task admitted but not started is still `pending` (UFO marks it
//! `running` while it waits in the device queue), so the planner may
//! still edit or remove it; one that is no longer ready leaves the line.

use crate::model::TaskConstellation;
use std::collections::HashSet;

/// The admitted tasks, first come first.
#[derive(Debug, Default)]
pub(crate) struct Admitted {
    line: Vec<String>,
}

impl Admitted {
    /// Admits the tasks of `ready` not yet in line, in that order, and
    /// drops the ones in line that are no longer ready.
    pub(crate) fn admit(&mut self, ready: &[&str]) {
        self.line.retain(|t| ready.contains(&t.as_str()));
        for id in ready {
            if !self.line.iter().any(|t| t == id) {
                self.line.push((*id).to_owned());
            }
        }
    }

    /// Takes out of line the tasks to start now, as `(task, device)`: in
    /// line order, each whose device is neither in `busy` nor taken
    /// earlier in this pass, at most `room` of them.
    pub(crate) fn pick(
        &mut self,
        c: &TaskConstellation,
        busy: &HashSet<String>,
        room: usize,
    ) -> Vec<(String, String)> {
        let mut taken: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for id in &self.line {
            if out.len() >= room {
                break;
            }
            let Some(device) = c.task(id).and_then(|t| t.device()) else {
                continue;
            };
            if busy.contains(device) || taken.contains(device) {
                continue;
            }
            taken.insert(device);
            out.push((id.clone(), device.to_owned()));
        }
        self.line.retain(|t| !out.iter().any(|(id, _)| id == t));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan() -> TaskConstellation {
        TaskConstellation::from_value(&json!({"tasks": [
            {"task_id": "a", "description": "x", "target_device_id": "pc"},
            {"task_id": "b", "description": "x", "target_device_id": "pc"},
            {"task_id": "c", "description": "x", "target_device_id": "mac"},
            {"task_id": "d", "description": "x", "target_device_id": "phone"}]}))
        .unwrap()
    }

    #[test]
    fn one_task_per_device_in_admission_order() {
        let c = plan();
        let mut q = Admitted::default();
        q.admit(&["b", "a", "c"]);
        let none = HashSet::new();
        assert_eq!(
            q.pick(&c, &none, usize::MAX),
            [("b".into(), "pc".into()), ("c".into(), "mac".into())]
        );
        q.admit(&["a", "d"]);
        let busy: HashSet<String> = ["pc".to_owned()].into();
        assert_eq!(
            q.pick(&c, &busy, usize::MAX),
            [("d".into(), "phone".into())]
        );
        assert_eq!(q.line, ["a"]);
        assert_eq!(q.pick(&c, &none, 1), [("a".into(), "pc".into())]);
        assert!(q.line.is_empty());
    }

    #[test]
    fn a_task_no_longer_ready_leaves_the_line_and_the_limit_holds() {
        let c = plan();
        let mut q = Admitted::default();
        q.admit(&["a", "c", "d"]);
        q.admit(&["c", "d"]);
        assert_eq!(q.pick(&c, &HashSet::new(), 1), [("c".into(), "mac".into())]);
        assert_eq!(q.pick(&c, &HashSet::new(), 0), []);
    }
}
