//! The D-Bus plumbing of the backend: how calls reach an application (the
//! accessibility bus, or its private socket when it offers one), the proxy
//! of each AT-SPI interface on an element, and calls bounded in time with
//! their errors typed (a vanished element is stale, not a failure).

use super::objref::ObjRef;
use super::{AtspiBackend, CALL_TIMEOUT, Result};
use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::application::ApplicationProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::editable_text::EditableTextProxy;
use atspi::proxy::selection::SelectionProxy;
use atspi::proxy::table::TableProxy;
use atspi::proxy::table_cell::TableCellProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use std::future::Future;
use std::time::Duration;
use ufo_core::ElementHandle;
use ufo_desktop::DesktopError;
use zbus::fdo::PropertiesProxy;
use zbus::proxy::CacheProperties;

/// Maps a zbus error on element `h` to a typed error: vanished objects and
/// applications become [`DesktopError::StaleElement`].
pub(super) fn map_err(h: &ElementHandle, e: zbus::Error) -> DesktopError {
    let text = e.to_string();
    let stale = matches!(e, zbus::Error::InputOutput(_))
        || [
            "UnknownObject",
            "ServiceUnknown",
            "NameHasNoOwner",
            "NoReply",
            "UnknownMethod",
            "Disconnected",
            "defunct",
        ]
        .iter()
        .any(|k| text.contains(k));
    if stale {
        DesktopError::StaleElement {
            handle: h.0.clone(),
            detail: text,
        }
    } else {
        DesktopError::backend_by(format!("AT-SPI call on {h} failed"), e)
    }
}

/// Runs a D-Bus future with [`CALL_TIMEOUT`].
pub(crate) async fn call<T>(
    h: &ElementHandle,
    what: &str,
    f: impl Future<Output = zbus::Result<T>>,
) -> Result<T> {
    call_within(CALL_TIMEOUT, h, what, f).await
}

/// Runs a D-Bus future with the given time limit.
pub(super) async fn call_within<T>(
    limit: Duration,
    h: &ElementHandle,
    what: &str,
    f: impl Future<Output = zbus::Result<T>>,
) -> Result<T> {
    tracing::trace!(what, %h, "call");
    let t0 = std::time::Instant::now();
    match tokio::time::timeout(limit, f).await {
        Ok(r) => {
            tracing::trace!(what, %h, us = t0.elapsed().as_micros() as u64, "done");
            r.map_err(|e| map_err(h, e))
        }
        Err(_) => Err(DesktopError::Timeout {
            what: format!("{what} on {h}"),
            millis: limit.as_millis() as u64,
        }),
    }
}

macro_rules! proxy_fn {
    ($fn:ident, $ty:ident) => {
        pub(crate) async fn $fn(&self, h: &ObjRef) -> Result<$ty<'static>> {
            let (bus, path) = (h.bus(), h.path());
            let route = self.route(bus).await;
            let b = match &route {
                Route::Bus => $ty::builder(&self.conn)
                    .destination(bus.to_owned())
                    .map_err(|e| map_err(h, e))?,
                Route::P2p(c) => $ty::builder(c),
            };
            let b = b.path(path.to_owned()).map_err(|e| map_err(h, e))?;
            b.cache_properties(CacheProperties::No)
                .build()
                .await
                .map_err(|e| map_err(h, e))
        }
    };
}

/// How calls to one application travel.
#[derive(Clone)]
pub(super) enum Route {
    /// Through the accessibility bus daemon.
    Bus,
    /// Over the application's private socket (GTK3, LibreOffice): one hop less.
    P2p(zbus::Connection),
}

impl AtspiBackend {
    /// How to reach the application on `bus`: its private socket when it offers
    /// one (asked once per application), else the bus.
    pub(super) async fn route(&self, bus: &str) -> Route {
        if !self.use_p2p || !bus.starts_with(':') {
            return Route::Bus;
        }
        if let Some(r) = self.apps.route(bus) {
            return r;
        }
        // Opened without the lock held, so a slow application delays only itself;
        // if two callers race, the first route stored wins.
        let route = self.open_p2p(bus).await.map_or(Route::Bus, Route::P2p);
        self.apps.keep_route(bus, route)
    }

    pub(super) async fn open_p2p(&self, bus: &str) -> Option<zbus::Connection> {
        // An application's private socket admits only its own user: one run
        // by another account (a task desktop's, read by root) is reached
        // through the bus.
        let dbus = zbus::fdo::DBusProxy::new(&self.conn).await.ok()?;
        let name = zbus::names::BusName::try_from(bus).ok()?;
        let owner = tokio::time::timeout(CALL_TIMEOUT, dbus.get_connection_unix_user(name))
            .await
            .ok()?
            .ok()?;
        if owner != nix::unistd::geteuid().as_raw() {
            return None;
        }
        let h = ObjRef::new(bus, "/org/a11y/atspi/accessible/root");
        let app = ApplicationProxy::builder(&self.conn)
            .destination(bus.to_owned())
            .ok()?
            .path("/org/a11y/atspi/accessible/root")
            .ok()?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .ok()?;
        // GTK4 answers UnknownMethod: it has no private socket.
        let addr = call(
            &h,
            "GetApplicationBusAddress",
            app.get_application_bus_address(),
        )
        .await
        .ok()?;
        if addr.is_empty() {
            return None;
        }
        let builder = zbus::connection::Builder::address(addr.as_str())
            .ok()?
            .p2p();
        tokio::time::timeout(CALL_TIMEOUT, builder.build())
            .await
            .ok()?
            .ok()
    }

    proxy_fn!(accessible, AccessibleProxy);
    proxy_fn!(component, ComponentProxy);
    proxy_fn!(action, ActionProxy);
    proxy_fn!(text, TextProxy);
    proxy_fn!(editable, EditableTextProxy);
    proxy_fn!(value, ValueProxy);
    proxy_fn!(selection, SelectionProxy);
    proxy_fn!(application, ApplicationProxy);
    proxy_fn!(table, TableProxy);

    /// The D-Bus properties of element `h`. The standard interface's proxy
    /// has no default destination, which a private socket still needs
    /// named (the peer ignores it): the bus name is given either way.
    pub(crate) async fn properties(&self, h: &ObjRef) -> Result<PropertiesProxy<'static>> {
        let (bus, path) = (h.bus(), h.path());
        let b = match self.route(bus).await {
            Route::Bus => PropertiesProxy::builder(&self.conn),
            Route::P2p(c) => PropertiesProxy::builder(&c),
        };
        b.destination(bus.to_owned())
            .and_then(|b| b.path(path.to_owned()))
            .map_err(|e| map_err(h, e))?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .map_err(|e| map_err(h, e))
    }
    proxy_fn!(table_cell, TableCellProxy);
}
