//! `ufo bench apps` (below).
