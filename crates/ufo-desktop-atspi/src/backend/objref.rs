//! An element's address on AT-SPI: its application's bus name and its
//! object path, parsed once from the handle `bus|path` that names it
//! outside the backend (or made from the two), never split again.

use std::fmt;
use ufo_core::ElementHandle;
use ufo_desktop::DesktopError;

/// The object path AT-SPI answers where there is no element.
pub(crate) const NULL_PATH: &str = "/org/a11y/atspi/null";

/// An AT-SPI element: the bus name of its application and its object path.
/// It holds them as the handle `bus|path` they form (what a capture's
/// nodes and every error carry), so it converts to an [`ElementHandle`]
/// without formatting; it dereferences to that handle.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjRef {
    /// `bus|path`.
    handle: ElementHandle,
    /// Where the `|` is in it.
    bar: usize,
}

impl ObjRef {
    /// The element at `path` of the application on `bus`.
    pub fn new(bus: &str, path: &str) -> Self {
        ObjRef {
            handle: ElementHandle(format!("{bus}|{path}")),
            bar: bus.len(),
        }
    }

    /// Parses handle `bus_name|path`: a bus name and an object path, else
    /// [`DesktopError::BadArguments`].
    pub fn parse(h: &ElementHandle) -> Result<Self, DesktopError> {
        match h.0.split_once('|') {
            Some((b, p)) if !b.is_empty() && p.starts_with('/') => Ok(ObjRef {
                handle: h.clone(),
                bar: b.len(),
            }),
            _ => Err(DesktopError::BadArguments {
                tool: "element handle".into(),
                detail: format!("{:?} is not an AT-SPI handle (bus_name|/object/path)", h.0),
            }),
        }
    }

    /// An object reference as an application answers it, on its bus `bus`:
    /// over a private socket an application may leave the bus name empty.
    /// The null reference is kept (see [`Self::is_null`]).
    pub(crate) fn answered(bus: &str, o: &atspi::ObjectRefOwned) -> Self {
        let b = o.name_as_str().filter(|n| !n.is_empty()).unwrap_or(bus);
        ObjRef::new(b, o.path_as_str())
    }

    /// The element at `path` of the same application.
    pub(crate) fn sibling(&self, path: &str) -> Self {
        ObjRef::new(self.bus(), path)
    }

    /// The bus name of its application.
    pub fn bus(&self) -> &str {
        &self.handle.0[..self.bar]
    }

    /// Its object path.
    pub fn path(&self) -> &str {
        &self.handle.0[self.bar + 1..]
    }

    /// True for AT-SPI's null reference (no element).
    pub(crate) fn is_null(&self) -> bool {
        self.path() == NULL_PATH
    }

    /// Its handle, `bus|path`.
    pub fn handle(&self) -> &ElementHandle {
        &self.handle
    }

    /// Its handle, `bus|path`, without a copy.
    pub fn into_handle(self) -> ElementHandle {
        self.handle
    }
}

impl std::ops::Deref for ObjRef {
    type Target = ElementHandle;

    fn deref(&self) -> &ElementHandle {
        &self.handle
    }
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.handle.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_parsed_into_bus_and_path_and_formatted_back() {
        let h = ElementHandle(":1.42|/org/a11y/atspi/accessible/7".into());
        let o = ObjRef::parse(&h).unwrap();
        assert_eq!(
            (o.bus(), o.path()),
            (":1.42", "/org/a11y/atspi/accessible/7")
        );
        assert_eq!(o.handle(), &h);
        assert_eq!(o, ObjRef::new(":1.42", "/org/a11y/atspi/accessible/7"));
        assert_eq!(o.sibling("/x").handle().0, ":1.42|/x");
        for bad in ["", "no-bar", "|/path", ":1.1|relative", ":1.1"] {
            assert!(ObjRef::parse(&ElementHandle(bad.into())).is_err(), "{bad}");
        }
    }
}
