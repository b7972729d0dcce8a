//! # ufo-llm — every model behind one interface
//!
//! Messages, per-provider formatting strategies, provider clients, usage and cost,
//! extraction and validation of JSON replies, retries and fallback.
//!
//! ## What this crate must not know
//! Agents and UI: it formats and sends whatever messages it is given.
