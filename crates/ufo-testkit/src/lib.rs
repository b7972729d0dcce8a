//! # ufo-testkit — test support only
//!
//! A private headless desktop per test binary (started once, stopped when the
//! process exits, even on panic), app launch and wait, and a scripted model served
//! over real HTTP. A dev-dependency only; never linked into the `ufo` binary.
