//! # ufo-desktop-windows — the Windows backend
//!
//! [`ufo_desktop::Backend`] on Windows, in two layers:
//! - **UI Automation** (the primary tree, as UFO's `uia` backend): control
//!   types, names and the Invoke, Value, RangeValue, Toggle, Selection,
//!   SelectionItem, ExpandCollapse, Scroll and Text patterns, read with one
//!   cached request per container;
//! - **Win32 + MSAA** (the fallback, as UFO's `win32` backend): the window
//!   tree (`EnumChildWindows`, class, style, text), Win32 menus, and MSAA
//!   (`oleacc`) roles, names and states of standard controls. Used when UI
//!   Automation is not available (`CoCreateInstance(CUIAutomation)` fails,
//!   as under Wine) or when `UFO_WINDOWS_LAYER=win32` asks for it.
//!
//! Input is `SendInput` (keys stroke by stroke, pywinauto key syntax parsed
//! by `ufo_desktop::keyparse`; pointer at screen coordinates), screenshots
//! are GDI (`BitBlt` of the screen), windows are listed with `EnumWindows`.
//!
//! The conversion of what each layer reads into backend-neutral nodes
//! ([`record`], [`kinds`], [`handle`], [`items`]) and the naming of fields
//! by their labels ([`labels`]) are plain code compiled on every OS and
//! tested on recorded element data; everything that calls Windows is
//! compiled only for Windows targets, so on other systems this crate is
//! those modules alone.
//!
//! ## What this crate must not know
//! Agents, prompts and models. It implements `ufo_desktop::Backend` and
//! nothing above it.

pub mod handle;
pub mod items;
pub mod kinds;
pub mod labels;
pub mod record;
pub mod state;

#[cfg(windows)]
mod win;

#[cfg(windows)]
pub use win::{Layer as WindowsLayer, WindowsBackend};
