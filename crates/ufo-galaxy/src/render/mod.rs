//! A constellation for people and models: a Mermaid flowchart for
//! markdown trajectories ([`mermaid()`]), a compact text summary for
//! prompts ([`summary()`]) and the graph drawn in layers for a terminal
//! ([`layered()`]).

pub mod layers;
pub mod mermaid;
pub mod summary;

pub use layers::layered;
pub use mermaid::mermaid;
pub use summary::summary;
