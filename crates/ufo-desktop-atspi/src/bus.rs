//! Small D-Bus helpers: finding the accessibility bus and listing registered
//! applications.

use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::bus::BusProxy;
use zbus::proxy::CacheProperties;

/// Errors talking to the session or accessibility bus.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// zbus reported an error.
    #[error("{0}")]
    Zbus(#[from] zbus::Error),
    /// A bus address could not be parsed.
    #[error("bad bus address {0:?}")]
    BadAddress(String),
    /// No connection was available.
    #[error("not connected")]
    NoConnection,
}

/// Opens a connection to the bus at `address`.
pub async fn connect(address: &str) -> Result<zbus::Connection, BusError> {
    let builder = zbus::connection::Builder::address(address)
        .map_err(|_| BusError::BadAddress(address.to_owned()))?;
    Ok(builder.build().await?)
}

/// Asks the session bus (a connection to it) for the accessibility bus address.
/// Calling `org.a11y.Bus` starts a launcher through D-Bus activation if none
/// runs; see [`a11y_bus_owner`] for a look that does not.
pub async fn a11y_address(session: &zbus::Connection) -> Result<String, BusError> {
    let proxy = BusProxy::builder(session)
        .cache_properties(CacheProperties::No)
        .build()
        .await?;
    Ok(proxy.get_address().await?)
}

/// The pid of the process that owns `org.a11y.Bus` on the session bus, or
/// `None` while nobody owns it. Unlike calling the name, this never starts
/// (D-Bus-activates) a launcher.
pub async fn a11y_bus_owner(session: &zbus::Connection) -> Result<Option<u32>, BusError> {
    let dbus = zbus::fdo::DBusProxy::new(session).await?;
    let name =
        zbus::names::BusName::try_from("org.a11y.Bus").map_err(|e| BusError::Zbus(e.into()))?;
    let owned = dbus
        .name_has_owner(name.clone())
        .await
        .map_err(zbus::Error::from)?;
    if !owned {
        return Ok(None);
    }
    Ok(dbus.get_connection_unix_process_id(name).await.ok())
}

/// The registry's root accessible on an accessibility-bus connection.
pub async fn registry_root(conn: &zbus::Connection) -> Result<AccessibleProxy<'static>, BusError> {
    Ok(AccessibleProxy::builder(conn)
        .destination("org.a11y.atspi.Registry")?
        .path("/org/a11y/atspi/accessible/root")?
        .cache_properties(CacheProperties::No)
        .build()
        .await?)
}

/// How many applications are registered (activates the registry if needed).
pub async fn registry_app_count(conn: &zbus::Connection) -> Result<usize, BusError> {
    Ok(registry_root(conn).await?.child_count().await?.max(0) as usize)
}

/// An application registered on the accessibility bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredApp {
    /// Accessible name of the application (empty when it does not answer).
    pub name: String,
    /// Its unique bus name.
    pub bus_name: String,
    /// Its process id, when the bus knows it.
    pub pid: Option<u32>,
    /// How many top-level children (windows) it has.
    pub windows: usize,
    /// False when the application did not say its name within
    /// [`PER_APP_TIMEOUT`]: it is busy or hung.
    pub answering: bool,
}

/// How long one application may take to say its name, window count and pid.
pub const PER_APP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Lists registered applications with their pid and window count. All
/// applications are asked at once; one that does not answer within
/// [`PER_APP_TIMEOUT`] is listed with `answering: false`.
pub async fn registered_apps(conn: &zbus::Connection) -> Result<Vec<RegisteredApp>, BusError> {
    let root = registry_root(conn).await?;
    let dbus = zbus::fdo::DBusProxy::new(conn).await?;
    let children = root.get_children().await?;
    let asks = children.iter().map(|child| {
        let bus_name = child.name_as_str().unwrap_or_default().to_owned();
        let path = child.path_as_str().to_owned();
        let dbus = &dbus;
        async move {
            let pid = match zbus::names::BusName::try_from(bus_name.as_str()) {
                Ok(n) => {
                    tokio::time::timeout(PER_APP_TIMEOUT, dbus.get_connection_unix_process_id(n))
                        .await
                        .ok()
                        .and_then(Result::ok)
                }
                Err(_) => None,
            };
            let app = AccessibleProxy::builder(conn)
                .destination(bus_name.clone())
                .and_then(|b| b.path(path))
                .map(|b| b.cache_properties(CacheProperties::No));
            let Ok(app) = app else { return None };
            let Ok(app) = app.build().await else {
                return None;
            };
            // An app can vanish or hang between the listing and these calls.
            let per_app = async { futures::join!(app.name(), app.child_count()) };
            let (name, windows, answering) =
                match tokio::time::timeout(PER_APP_TIMEOUT, per_app).await {
                    Ok((Ok(name), windows)) => (name, windows.unwrap_or(0).max(0) as usize, true),
                    // Gone meanwhile: not listed.
                    Ok((Err(_), _)) => return None,
                    Err(_) => (String::new(), 0, false),
                };
            Some(RegisteredApp {
                name,
                bus_name,
                pid,
                windows,
                answering,
            })
        }
    });
    Ok(futures::future::join_all(asks)
        .await
        .into_iter()
        .flatten()
        .collect())
}
