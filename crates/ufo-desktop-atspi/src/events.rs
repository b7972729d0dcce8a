//! What applications say happened: AT-SPI events on the accessibility bus.
//!
//! An [`EventWatch`] asks the registry to have applications emit their
//! `object:` and `window:` events (`org.a11y.atspi.Registry.RegisterEvent`),
//! listens to them on the backend's bus connection and keeps, per
//! application, a numbered log of what changed. Two things are built on it:
//!
//! - **settling** ([`EventWatch::settle`]): after an action, wait until the
//!   acting application has gone quiet instead of sleeping a fixed time;
//! - **incremental observation**: a captured tree stays valid while its
//!   application reports nothing, and only the elements it reports changed
//!   are read again (see `backend/live.rs`).
//!
//! The log is bounded: an application that reports more than
//! [`LOG_LIMIT`] changes between two observations is marked overflowed and
//! its next observation is a full capture.

use futures::StreamExt;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use ufo_desktop::DesktopError;

/// The event classes applications are asked to emit.
pub(crate) const REGISTERED: &[&str] = &["object:", "window:"];

/// Most changes remembered per application.
pub(crate) const LOG_LIMIT: usize = 4096;

/// How long a registry call may take.
const CALL: Duration = Duration::from_secs(3);

/// What one event says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// One element's own facts: states, name, value, text, caret.
    Node,
    /// An element moved or was resized (what it holds moved with it).
    Bounds,
    /// An element's children were added or removed.
    Children,
    /// What an element shows changed, its children perhaps among it
    /// (visible data, model, active descendant): the live tree takes it as
    /// [`Change::Children`].
    Data,
    /// A window was created, destroyed, shown, moved… (the window list).
    Window,
}

/// One logged change.
#[derive(Debug, Clone)]
pub(crate) struct Logged {
    /// Its number in the watch's sequence.
    pub seq: u64,
    /// The element's object path.
    pub path: String,
    /// What changed.
    pub change: Change,
    /// `state-changed:showing`/`visible`/`defunct`: `Some(true)` when the
    /// element appeared (what lies below it may need reading), `Some(false)`
    /// when it went.
    pub visibility: Option<bool>,
}

#[derive(Default)]
struct AppLog {
    entries: VecDeque<Logged>,
    /// The highest sequence number that fell off the log.
    dropped_upto: u64,
    /// When this application last reported anything, and its number.
    last: Option<(Instant, u64)>,
    /// The element it last said took the keyboard focus (`focused` turned
    /// on), by object path.
    focused: Option<String>,
}

#[derive(Default)]
struct State {
    seq: u64,
    apps: HashMap<String, AppLog>,
}

struct Shared {
    state: Mutex<State>,
    notify: tokio::sync::Notify,
    live: std::sync::atomic::AtomicBool,
}

/// Listens to the accessibility bus (see the module docs). Dropping it stops
/// the listener.
pub(crate) struct EventWatch {
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EventWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for EventWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventWatch")
            .field("live", &self.is_live())
            .finish_non_exhaustive()
    }
}

/// The changes an application reported since a point of the sequence.
#[derive(Debug, Default)]
pub(crate) struct Since {
    /// Every change, oldest first.
    pub changes: Vec<Logged>,
    /// Some changes were not kept (too many): nothing can be trusted.
    pub overflowed: bool,
}

impl EventWatch {
    /// Starts listening on `conn` (the accessibility bus). Fails when the
    /// registry refuses the registrations; callers then work without events.
    pub(crate) async fn start(conn: &zbus::Connection) -> Result<Self, DesktopError> {
        let streams = subscribe(conn, 8192).await?;
        for e in REGISTERED {
            register(conn, e).await?;
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            notify: tokio::sync::Notify::new(),
            live: std::sync::atomic::AtomicBool::new(true),
        });
        let s = shared.clone();
        let mut stream = streams;
        let task = tokio::spawn(async move {
            while let Some(msg) = stream.next().await {
                let Ok(msg) = msg else { continue };
                s.record(&msg);
            }
            s.live.store(false, std::sync::atomic::Ordering::Relaxed);
            s.notify.notify_waiters();
        });
        Ok(Self { shared, task })
    }

    /// False once the bus connection closed: nothing reported can be
    /// trusted any more.
    pub(crate) fn is_live(&self) -> bool {
        self.shared.live.load(std::sync::atomic::Ordering::Relaxed) && !self.task.is_finished()
    }

    /// The current point of the sequence.
    pub(crate) fn mark(&self) -> u64 {
        self.shared.state.lock().map(|s| s.seq).unwrap_or(0)
    }

    /// What application `bus` reported after `mark`.
    pub(crate) fn since(&self, bus: &str, mark: u64) -> Since {
        let Ok(s) = self.shared.state.lock() else {
            return Since {
                overflowed: true,
                ..Since::default()
            };
        };
        let Some(log) = s.apps.get(bus) else {
            return Since::default();
        };
        Since {
            changes: log
                .entries
                .iter()
                .filter(|e| e.seq > mark)
                .cloned()
                .collect(),
            overflowed: log.dropped_upto > mark,
        }
    }

    /// The element (object path) application `bus` last said took the
    /// keyboard focus while this watch listened, if it said so.
    pub(crate) fn focused(&self, bus: &str) -> Option<String> {
        let s = self.shared.state.lock().ok()?;
        s.apps.get(bus)?.focused.clone()
    }

    /// The elements of application `bus` that appeared (`showing` or
    /// `visible` turned on) after `mark` and did not go again, newest
    /// first, at most `max`.
    pub(crate) fn shown_since(&self, bus: &str, mark: u64, max: usize) -> Vec<String> {
        let mut gone: Vec<&str> = Vec::new();
        let mut out: Vec<String> = Vec::new();
        let since = self.since(bus, mark);
        for e in since.changes.iter().rev() {
            match e.visibility {
                Some(false) => gone.push(&e.path),
                Some(true) if !gone.contains(&e.path.as_str()) && !out.contains(&e.path) => {
                    out.push(e.path.clone());
                    if out.len() >= max {
                        break;
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Waits until application `bus` has reacted to an action taken at
    /// `mark`: returns once it has been quiet for `quiet` after its last
    /// report, or — when it reports nothing — `first` after the action, and
    /// never later than `bound`. Returns how many changes it reported.
    pub(crate) async fn settle(
        &self,
        bus: &str,
        mark: u64,
        first: Duration,
        quiet: Duration,
        bound: Duration,
    ) -> usize {
        let start = Instant::now();
        let end = start + bound;
        loop {
            let notified = self.shared.notify.notified();
            let last = self.last_report(Some(bus), mark);
            let now = Instant::now();
            let wake = match last {
                None => start + first,
                Some(at) => at + quiet,
            };
            if now >= end || now >= wake || !self.is_live() {
                let since = self.since(bus, mark);
                return since.changes.len() + usize::from(since.overflowed);
            }
            tokio::select! {
                _ = notified => {}
                _ = tokio::time::sleep_until(wake.min(end).into()) => {}
            }
        }
    }
}

impl EventWatch {
    /// When application `bus` (any application: `None`) last reported
    /// something after `mark`.
    fn last_report(&self, bus: Option<&str>, mark: u64) -> Option<Instant> {
        let s = self.shared.state.lock().ok()?;
        let after = |log: &AppLog| log.last.filter(|&(_, seq)| seq > mark).map(|(at, _)| at);
        match bus {
            Some(b) => s.apps.get(b).and_then(after),
            None => s.apps.values().filter_map(after).max(),
        }
    }

    /// Waits until every application has been quiet for `quiet` after its
    /// last report following `mark` — or, when none reported anything, for
    /// `first` after the call — and never longer than `bound`. Used between
    /// keystrokes, whose receiver is whatever has the keyboard focus.
    pub(crate) async fn settle_any(
        &self,
        mark: u64,
        first: Duration,
        quiet: Duration,
        bound: Duration,
    ) {
        let start = Instant::now();
        let end = start + bound;
        loop {
            let notified = self.shared.notify.notified();
            let wake = match self.last_report(None, mark) {
                None => start + first,
                Some(at) => at + quiet,
            };
            let now = Instant::now();
            if now >= end || now >= wake || !self.is_live() {
                return;
            }
            tokio::select! {
                _ = notified => {}
                _ = tokio::time::sleep_until(wake.min(end).into()) => {}
            }
        }
    }
}

impl Shared {
    fn record(&self, msg: &zbus::Message) {
        let header = msg.header();
        let (Some(member), Some(sender), Some(path)) =
            (header.member(), header.sender(), header.path())
        else {
            return;
        };
        let iface = header.interface().map(|i| i.as_str()).unwrap_or_default();
        let member = member.as_str();
        let mut focused = None;
        let (change, visibility) = if iface.ends_with("Window") {
            (Change::Window, None)
        } else {
            match member {
                "ChildrenChanged" => (Change::Children, None),
                "VisibleDataChanged" | "ModelChanged" | "ActiveDescendantChanged" => {
                    (Change::Data, None)
                }
                m if m.starts_with("Row") || m.starts_with("Column") => (Change::Children, None),
                "BoundsChanged" => (Change::Bounds, None),
                "StateChanged" => {
                    let (detail, on) = event_detail(msg).unwrap_or_default();
                    if (detail.as_str(), on) == ("focused", 1) {
                        focused = Some(path.to_string());
                    }
                    let shown = match detail.as_str() {
                        "showing" | "visible" => Some(on != 0),
                        "defunct" => Some(false),
                        _ => None,
                    };
                    (Change::Node, shown)
                }
                _ => (Change::Node, None),
            }
        };
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        s.seq += 1;
        let seq = s.seq;
        let log = s.apps.entry(sender.to_string()).or_default();
        log.last = Some((Instant::now(), seq));
        if focused.is_some() {
            log.focused = focused;
        }
        // Repeats of the same change on the same element add nothing.
        if !log
            .entries
            .back()
            .is_some_and(|e| e.path == path.as_str() && e.change == change && visibility.is_none())
        {
            log.entries.push_back(Logged {
                seq,
                path: path.to_string(),
                change,
                visibility,
            });
        } else if let Some(e) = log.entries.back_mut() {
            e.seq = seq;
        }
        while log.entries.len() > LOG_LIMIT {
            if let Some(e) = log.entries.pop_front() {
                log.dropped_upto = e.seq;
            }
        }
        drop(s);
        self.notify.notify_waiters();
    }
}

fn unreachable(e: impl std::error::Error + Send + Sync + 'static) -> DesktopError {
    DesktopError::unreachable_by("the accessibility bus", e)
}

/// The event's detail string and first number (`focused`, 1).
pub(crate) fn event_detail(msg: &zbus::Message) -> Option<(String, i32)> {
    let body = msg.body();
    if let Ok((d, d1, _d2, _v, _p)) = body.deserialize::<(
        String,
        i32,
        i32,
        zbus::zvariant::OwnedValue,
        HashMap<String, zbus::zvariant::OwnedValue>,
    )>() {
        return Some((d, d1));
    }
    body.deserialize::<(
        String,
        i32,
        i32,
        zbus::zvariant::OwnedValue,
        (String, zbus::zvariant::OwnedObjectPath),
    )>()
    .ok()
    .map(|(d, d1, ..)| (d, d1))
}

/// The object and window events arriving on `conn` (a match rule per event
/// interface), `capacity` messages buffered.
pub(crate) async fn subscribe(
    conn: &zbus::Connection,
    capacity: usize,
) -> Result<futures::stream::SelectAll<zbus::MessageStream>, DesktopError> {
    let mut streams = Vec::new();
    for iface in ["org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window"] {
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(iface)
            .map_err(unreachable)?
            .build();
        streams.push(
            zbus::MessageStream::for_match_rule(rule, conn, Some(capacity))
                .await
                .map_err(unreachable)?,
        );
    }
    Ok(futures::stream::select_all(streams))
}

/// Asks the registry to have applications emit `event`.
pub(crate) async fn register(conn: &zbus::Connection, event: &str) -> Result<(), DesktopError> {
    const DEST: &str = "org.a11y.atspi.Registry";
    const PATH: &str = "/org/a11y/atspi/registry";
    let body1 = (event,);
    let one = conn.call_method(Some(DEST), PATH, Some(DEST), "RegisterEvent", &body1);
    if tokio::time::timeout(CALL, one)
        .await
        .is_ok_and(|r| r.is_ok())
    {
        return Ok(());
    }
    // at-spi2-core >= 2.50: RegisterEvent(event, properties, app_bus_name).
    let body3 = (event, Vec::<String>::new(), "");
    let three = conn.call_method(Some(DEST), PATH, Some(DEST), "RegisterEvent", &body3);
    match tokio::time::timeout(CALL, three).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(DesktopError::unreachable_by(
            format!("cannot register {event}"),
            e,
        )),
        Err(_) => Err(DesktopError::unreachable(format!(
            "the registry does not answer RegisterEvent({event})"
        ))),
    }
}
