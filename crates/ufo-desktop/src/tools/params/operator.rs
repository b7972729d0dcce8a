//! Arguments of the operator's coordinate tools (UFO's `click`,
//! `double_click`, `drag`, `keypress`, `move`, `scroll`, `type`). Points are
//! screen pixels: the operator agent maps a computer-use model's image
//! coordinates to the screen through the screenshot's frame before calling.

use super::{button, number, text};
use crate::backend::MouseButton;
use schemars::JsonSchema;
use serde::Deserialize;

/// A screen point.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub struct ScreenPoint {
    /// Horizontal screen pixel.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Vertical screen pixel.
    #[serde(deserialize_with = "number")]
    pub y: f64,
}

/// `click`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Click {
    /// Horizontal screen pixel.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Vertical screen pixel.
    #[serde(deserialize_with = "number")]
    pub y: f64,
    /// Mouse button.
    #[serde(default, deserialize_with = "button")]
    #[schemars(with = "String", extend("enum" = ["left", "right", "middle"], "default" = "left"))]
    pub button: MouseButton,
}

/// `double_click` and `move`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct At {
    /// Horizontal screen pixel.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Vertical screen pixel.
    #[serde(deserialize_with = "number")]
    pub y: f64,
}

/// `drag`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Drag {
    /// The points the pointer passes, the first pressed and the last released.
    pub path: Vec<ScreenPoint>,
}

/// `keypress`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Keypress {
    /// Keys pressed together, e.g. ["ctrl", "a"] or ["enter"].
    pub keys: Vec<String>,
}

/// `scroll`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Scroll {
    /// Horizontal screen pixel under the pointer.
    #[serde(deserialize_with = "number")]
    pub x: f64,
    /// Vertical screen pixel under the pointer.
    #[serde(deserialize_with = "number")]
    pub y: f64,
    /// Wheel notches; positive = down, negative = up.
    #[serde(deserialize_with = "number")]
    pub scroll_y: f64,
}

/// `type`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TypeText {
    /// The text, typed as it is (no key syntax).
    #[serde(deserialize_with = "text")]
    pub text: String,
}
