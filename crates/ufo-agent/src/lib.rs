//! # ufo-agent — the agents
//!
//! The prompter (YAML templates), HostAgent / AppAgent / EvaluationAgent, their
//! state machines, the step processor and its phases, the blackboard and memory.
//!
//! ## What this crate must not know
//! Which backend or transport executes a command: agents speak only in
//! `ufo_core::Command`s through a dispatcher.
