//! Recording what a person does in an application, from AT-SPI events on the
//! accessibility bus: focus changes, presses of buttons and toggles (the
//! `pressed`/`checked` states, where the toolkit shows them), text changes
//! (with the control's whole text after the change) and window changes
//! (activated, created). `ufo record` turns them into a demonstration.
//!
//! The recorder registers the events with the registry
//! (`org.a11y.atspi.Registry.RegisterEvent`) so that applications emit them,
//! and listens with a match rule per event interface; each event's source is
//! described (application, name, control type) with one or two calls to it.

use crate::bus;
use crate::events::{event_detail, register, subscribe};
use crate::target::DesktopTarget;
use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::text::TextProxy;
use futures::StreamExt;
use std::collections::HashMap;
use std::time::Duration;
use ufo_desktop::DesktopError;
use zbus::proxy::CacheProperties;

const CALL: Duration = Duration::from_secs(3);
const EVENTS: &[&str] = &[
    "object:state-changed:focused",
    "object:state-changed:pressed",
    "object:state-changed:checked",
    "object:text-changed",
    "window:activate",
    "window:create",
];

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The control got the keyboard focus.
    Focus,
    /// A button or toggle was pressed or checked.
    Press,
    /// The control's text changed; its whole text now.
    Text(String),
    /// A window was activated.
    WindowActivated,
    /// A window was created.
    WindowCreated,
}

/// One recorded event and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedEvent {
    /// What happened.
    pub kind: EventKind,
    /// The application's accessible name.
    pub app: String,
    /// The control's (or window's) name.
    pub name: String,
    /// The control's type in UFO's terms (`Edit`, `Button`, `Window`, ...).
    pub control_type: String,
    /// The source's handle (`bus|path`), to tell controls apart.
    pub handle: String,
}

/// Listens to the accessibility bus of a desktop.
pub struct EventRecorder {
    conn: zbus::Connection,
    stream: futures::stream::SelectAll<zbus::MessageStream>,
    apps: HashMap<String, String>,
}

fn unreachable(e: impl std::error::Error + Send + Sync + 'static) -> DesktopError {
    DesktopError::unreachable_by("the accessibility bus", e)
}

impl EventRecorder {
    /// Connects to `target`'s accessibility bus and starts listening.
    pub async fn start(target: &DesktopTarget) -> Result<Self, DesktopError> {
        let session = target.session_bus.clone().ok_or_else(|| {
            DesktopError::unreachable("no session bus (DBUS_SESSION_BUS_ADDRESS)")
        })?;
        let session = bus::connect(&session).await.map_err(unreachable)?;
        let a11y = bus::a11y_address(&session).await.map_err(unreachable)?;
        let conn = bus::connect(&a11y).await.map_err(unreachable)?;
        let stream = subscribe(&conn, 4096).await?;
        for e in EVENTS {
            register(&conn, e).await?;
        }
        Ok(Self {
            conn,
            stream,
            apps: HashMap::new(),
        })
    }

    /// The next event of an application named `app` (any application when
    /// `None`); `None` when the bus closed.
    pub async fn next(&mut self, app: Option<&str>) -> Option<RecordedEvent> {
        loop {
            let msg = match self.stream.next().await? {
                Ok(m) => m,
                Err(_) => continue,
            };
            let header = msg.header();
            let (Some(member), Some(sender), Some(path)) =
                (header.member(), header.sender(), header.path())
            else {
                continue;
            };
            let (member, sender, path) = (member.to_string(), sender.to_string(), path.to_string());
            let Some((detail, d1)) = event_detail(&msg) else {
                continue;
            };
            let kind = match (member.as_str(), detail.as_str()) {
                ("StateChanged", "focused") if d1 == 1 => EventKind::Focus,
                ("StateChanged", "pressed" | "checked") if d1 == 1 => EventKind::Press,
                ("TextChanged", _) => EventKind::Text(String::new()),
                ("Activate", _) => EventKind::WindowActivated,
                ("Create", _) => EventKind::WindowCreated,
                _ => continue,
            };
            let app_name = self.app_name(&sender).await;
            if app.is_some_and(|a| !ufo_desktop::names::names_match(a, &app_name)) {
                continue;
            }
            let Ok(acc) = self.accessible(&sender, &path).await else {
                continue;
            };
            // Named as the agents see it: toolkit class names are no names.
            let name = timeout(acc.name())
                .await
                .filter(|n| !crate::labels::is_class_name(n))
                .unwrap_or_default();
            // Typed as a capture types it (an icon view's item is a list item).
            let (role, states) = futures::join!(timeout(acc.get_role()), timeout(acc.get_state()));
            let control_type = match role {
                Some(r) => crate::roles::control_type_of(r, states.unwrap_or_default())
                    .as_str()
                    .to_owned(),
                None => String::new(),
            };
            let kind = match kind {
                EventKind::Text(_) => match self.text(&sender, &path).await {
                    Ok(t) => {
                        let n = timeout(t.character_count()).await.unwrap_or(0);
                        EventKind::Text(timeout(t.get_text(0, n)).await.unwrap_or_default())
                    }
                    Err(_) => continue,
                },
                k => k,
            };
            return Some(RecordedEvent {
                kind,
                app: app_name,
                name,
                control_type,
                handle: format!("{sender}|{path}"),
            });
        }
    }

    async fn app_name(&mut self, sender: &str) -> String {
        if let Some(n) = self.apps.get(sender) {
            return n.clone();
        }
        let name = match self
            .accessible(sender, "/org/a11y/atspi/accessible/root")
            .await
        {
            Ok(p) => timeout(p.name()).await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        self.apps.insert(sender.to_owned(), name.clone());
        name
    }

    async fn accessible(
        &self,
        dest: &str,
        path: &str,
    ) -> Result<AccessibleProxy<'static>, DesktopError> {
        AccessibleProxy::builder(&self.conn)
            .destination(dest.to_owned())
            .and_then(|b| b.path(path.to_owned()))
            .map_err(unreachable)?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .map_err(unreachable)
    }

    async fn text(&self, dest: &str, path: &str) -> Result<TextProxy<'static>, DesktopError> {
        TextProxy::builder(&self.conn)
            .destination(dest.to_owned())
            .and_then(|b| b.path(path.to_owned()))
            .map_err(unreachable)?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .map_err(unreachable)
    }
}

async fn timeout<T>(f: impl Future<Output = zbus::Result<T>>) -> Option<T> {
    tokio::time::timeout(CALL, f).await.ok()?.ok()
}
