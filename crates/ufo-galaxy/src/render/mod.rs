//! A constellation for people and models: a Mermaid flowchart for
//! markdown trajectories ([`mermaid()`]) and a compact text summary for
//! prompts ([`summary()`]).

pub mod mermaid;
pub mod summary;

pub use mermaid::mermaid;
pub use summary::summary;
