//! The text a person reads below a container (what `texts` returns for an
//! element with no text of its own).

use super::objref::ObjRef;
use super::{AtspiBackend, Result};
use atspi::{Role, State};
use ufo_desktop::DesktopError;

impl AtspiBackend {
    /// The text a person reads below container `h`: the texts of its showing
    /// descendants (and the names of its labels) in tree order, breadth
    /// first, at most [`TEXT_BELOW_NODES`] elements and
    /// [`TEXT_BELOW_CHARS`] characters.
    pub(super) async fn text_below(&self, h: &ObjRef) -> Result<String> {
        let mut out = String::new();
        let mut level = vec![h.clone()];
        let mut read = 0usize;
        for _ in 0..TEXT_BELOW_DEPTH {
            let nodes = futures::future::join_all(level.iter().map(|c| {
                self.read_node(
                    c,
                    super::read::ReadNode {
                        max_children: Some(TEXT_BELOW_NODES),
                        ..super::read::ReadNode::node(TEXT_BELOW_CHARS)
                    },
                )
            }))
            .await;
            let mut next = Vec::new();
            for (i, raw) in nodes.into_iter().enumerate() {
                let raw = match raw {
                    Ok(r) => r,
                    Err(e @ DesktopError::StaleElement { .. }) if i == 0 && read == 0 => {
                        return Err(e);
                    }
                    Err(_) => continue,
                };
                read += 1;
                let showing = raw.states.contains(State::Showing);
                if read > 1 && !showing {
                    continue;
                }
                if let Some(t) = raw.text.as_deref().filter(|t| !t.trim().is_empty()) {
                    push_line(&mut out, t);
                } else if matches!(raw.role, Role::Label | Role::Static | Role::Heading)
                    && !raw.name.trim().is_empty()
                {
                    push_line(&mut out, &raw.name);
                }
                next.extend(raw.children);
            }
            if out.chars().count() >= TEXT_BELOW_CHARS || read >= TEXT_BELOW_NODES {
                break;
            }
            next.truncate(TEXT_BELOW_NODES.saturating_sub(read));
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Ok(ufo_core::text::clip(&out, TEXT_BELOW_CHARS))
    }
}

/// Appends `t` on a line of its own.
fn push_line(out: &mut String, t: &str) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(t.trim_end());
}

/// How deep [`AtspiBackend::text_below`] looks.
const TEXT_BELOW_DEPTH: usize = 6;
/// How many elements [`AtspiBackend::text_below`] reads.
const TEXT_BELOW_NODES: usize = 300;
/// How many characters [`AtspiBackend::text_below`] returns.
const TEXT_BELOW_CHARS: usize = 20_000;
