//! MSAA state bits (`STATE_SYSTEM_*`) the records use: the item records
//! ([`crate::items`]) set them, an element's record ([`crate::record`])
//! reads them.

/// `STATE_SYSTEM_UNAVAILABLE`.
pub const UNAVAILABLE: u32 = 0x1;
/// `STATE_SYSTEM_SELECTED`.
pub const SELECTED: u32 = 0x2;
/// `STATE_SYSTEM_FOCUSED`.
pub const FOCUSED: u32 = 0x4;
/// `STATE_SYSTEM_CHECKED`.
pub const CHECKED: u32 = 0x10;
/// `STATE_SYSTEM_EXPANDED`.
pub const EXPANDED: u32 = 0x200;
/// `STATE_SYSTEM_COLLAPSED`.
pub const COLLAPSED: u32 = 0x400;
/// `STATE_SYSTEM_OFFSCREEN`.
pub const OFFSCREEN: u32 = 0x10000;
/// `STATE_SYSTEM_FOCUSABLE`.
pub const FOCUSABLE: u32 = 0x100000;
/// `STATE_SYSTEM_SELECTABLE`.
pub const SELECTABLE: u32 = 0x200000;
/// `STATE_SYSTEM_MULTISELECTABLE`.
pub const MULTISELECTABLE: u32 = 0x1000000;
