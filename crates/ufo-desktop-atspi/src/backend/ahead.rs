//! Calls asked ahead. A full capture of a window asks, in its first
//! round, beside the window, the application's cache and its open popups,
//! what the last capture of the same window asked after them: states,
//! names, descriptions and child counts, rectangles, texts, values,
//! relations, and the children of containers that do not manage their
//! descendants. The walk then takes each answer where it
//! would have asked. Every answer is of a call made during this capture,
//! so nothing read is older than it would have been; what the walk does
//! not ask (an element gone, a branch hidden since) is dropped unread, and
//! what it asks that was not asked ahead goes out as before.
//!
//! A round costs far more than a call: a lone call to a GTK 3 application
//! waits 200 to 600 µs for its answer (xfce4-terminal over its private
//! socket, measured), calls sent together are answered every 25 to 100 µs.
//! A small window's capture is two to four rounds, the first one with the
//! cache; asked ahead it is one.
//!
//! A managed container's children are never asked ahead (the list may
//! have grown to millions since), nor anything of a capture that reads a
//! branch again or brings a kept capture up to date. What a capture asks
//! is noted by application: a read made elsewhere while it runs (an
//! action's) may take an answer asked at its start, no older than the
//! capture itself, and two captures of one application at once share
//! their notes, which costs calls asked ahead in vain, never a stale
//! answer. When a capture ends, however it ends, every answer it left is
//! dropped (see [`AheadRun`]).
//!
//! Only what is still likely there is asked ahead: what the application
//! changed since the last capture began (children added or removed,
//! something shown or hidden, a window opened or closed) takes every call
//! of that branch out, and, when anything did, every call of an element
//! that capture did not hold (a hidden one). A call sent is answered
//! whether or not the walk takes it, before the calls the walk makes
//! after it: gtk3-widget-factory's capture after a page switch took 42 to
//! 48 ms with all of the last page's calls asked ahead, 32 to 37 without
//! any, 31 to 35 with the page's branch taken out (medians of twelve;
//! `tests/live.rs` keeps a switch from asking the other page's calls).
//! Without events nothing is asked ahead: what changed cannot be told.
//!
//! One task drives a capture's calls asked ahead. A task per call, each
//! woken by its answer while the application worked on the next, made
//! GTK 3's answers come two to three times further apart
//! (gtk3-widget-factory: a rectangle every 179 µs instead of 63; 100
//! with one task).

use super::AtspiBackend;
use super::Result;
use super::dbus::call;
use super::details::Extents;
use super::objref::ObjRef;
use crate::events::{Change, EventWatch};
use atspi::proxy::accessible::AccessibleProxy;
use atspi::{CoordType, ObjectRefOwned, StateSet};
use futures::future::{BoxFuture, join_all};
use futures::stream::{FuturesUnordered, StreamExt};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use ufo_core::UiNode;
use zbus::fdo::PropertiesProxy;

/// Most calls asked ahead for one capture: a window whose walk asks more
/// (a sheet) gains little from one round less.
const MOST_AHEAD: usize = 256;

/// What is asked ahead of an element.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Ask {
    /// Its rectangle on screen.
    Extents,
    /// Its children, of a container that does not manage its descendants
    /// (one that does may have grown to millions since).
    Children,
    /// Its text, up to this end (−1: all of it).
    Text(i32),
    /// Its current value.
    Value,
    /// Its relations.
    Relations,
    /// Its states.
    States,
    /// Its name, description and child count (`Properties.GetAll`).
    Properties,
    /// Its name alone.
    Name,
    /// Its child count alone.
    ChildCount,
}

/// The answer of one kind (`pick!(Answer::Text)`), for
/// [`AtspiBackend::asked_ahead_or`]: `None` for any other.
macro_rules! pick {
    ($kind:path) => {
        |a| match a {
            $kind(x) => Some(x),
            _ => None,
        }
    };
}

/// An answer asked ahead.
enum Answer {
    Extents(Result<Extents>),
    Children(Result<Vec<ObjectRefOwned>>),
    Text(Result<String>),
    Value(Result<f64>),
    Relations(Result<Relations>),
    States(Result<StateSet>),
    Properties(Result<Properties>),
    Name(Result<String>),
    ChildCount(Result<i32>),
}

/// What `Properties.GetAll` answers.
pub(super) type Properties = HashMap<String, zbus::zvariant::OwnedValue>;

/// What GetRelationSet answers.
type Relations = Vec<(atspi::RelationType, Vec<ObjectRefOwned>)>;

/// The calls each window's last capture made, those asked ahead for the
/// capture running, and those a capture running has made so far.
#[derive(Default)]
pub(super) struct AskedAhead {
    /// By window handle: what its last capture asked.
    last: Mutex<HashMap<String, LastAsked>>,
    /// By bus name: what the capture running in that application has
    /// asked (by object path).
    asked: Mutex<HashMap<String, Vec<(Ask, String)>>>,
    /// By bus name, object path and call: an answer asked ahead.
    ahead: Mutex<HashMap<(String, String, Ask), oneshot::Receiver<Answer>>>,
    /// By bus name: the task that drives the calls asked ahead there.
    drivers: Mutex<HashMap<String, JoinHandle<()>>>,
    /// How many answers asked ahead captures have taken.
    taken: AtomicU64,
    /// How many calls captures have asked ahead.
    sent: AtomicU64,
}

impl AskedAhead {
    /// Notes that a capture running in `h`'s application asks `ask` of
    /// `h` (nothing when none runs there), and takes the answer asked
    /// ahead, if any.
    fn take(&self, h: &ObjRef, ask: Ask) -> Option<oneshot::Receiver<Answer>> {
        if let Ok(mut asked) = self.asked.lock()
            && let Some(calls) = asked.get_mut(h.bus())
            && calls.len() < MOST_AHEAD
        {
            calls.push((ask, h.path().to_owned()));
        }
        let key = (h.bus().to_owned(), h.path().to_owned(), ask);
        let task = self.ahead.lock().ok()?.remove(&key)?;
        self.taken.fetch_add(1, Ordering::Relaxed);
        Some(task)
    }
}

/// What one window's last capture asked, and what tells which of it is
/// still worth asking.
struct LastAsked {
    /// Its calls, in the order asked.
    calls: Vec<(Ask, String)>,
    /// The event sequence when it began.
    mark: u64,
    /// Object path → its parent's, of every element it held.
    parents: HashMap<String, String>,
}

impl LastAsked {
    /// The calls still worth asking of `root`'s window, by what `events`
    /// logged of its application since [`Self::mark`]: none of an element
    /// in a branch whose children changed, that was shown or hidden, or of
    /// a window opened or closed (`root` excepted: a window moved or
    /// activated holds what it held), none of an element the capture did
    /// not hold once anything changed, nor of `root` itself (its calls go
    /// out in the first round anyway). `None` when the log lost some of it.
    fn still_likely(&self, events: &EventWatch, root: &ObjRef) -> Option<Vec<(Ask, String)>> {
        let since = events.since(root.bus(), self.mark);
        if since.overflowed {
            return None;
        }
        let changed: HashSet<&str> = since
            .changes
            .iter()
            .filter(|c| match c.change {
                Change::Children => true,
                Change::Window => c.path != root.path(),
                Change::Node | Change::Bounds | Change::Data => c.visibility.is_some(),
            })
            .map(|c| c.path.as_str())
            .collect();
        tracing::trace!(?changed, "branches changed since the last capture");
        let mut verdict = HashMap::new();
        let likely = self.calls.iter().filter(|(_, p)| {
            p != root.path()
                && (changed.is_empty()
                    || self.parents.contains_key(p)
                        && !self.branch_changed(p, &changed, &mut verdict))
        });
        Some(likely.cloned().collect())
    }

    /// Whether `path` or one of its ancestors is in `changed`; `verdict`
    /// keeps each path's answer, so a branch is climbed once.
    fn branch_changed<'a>(
        &'a self,
        path: &'a str,
        changed: &HashSet<&str>,
        verdict: &mut HashMap<&'a str, bool>,
    ) -> bool {
        let mut chain = Vec::new();
        let mut at = Some(path);
        let found = loop {
            let Some(p) = at else { break false };
            if let Some(&v) = verdict.get(p) {
                break v;
            }
            if changed.contains(p) {
                break true;
            }
            chain.push(p);
            at = self.parents.get(p).map(String::as_str);
        };
        for p in chain {
            verdict.insert(p, found);
        }
        found
    }
}

/// `call`, boxed, for the one task that drives a capture's calls asked
/// ahead.
fn boxed(call: impl Future<Output = Answer> + Send + 'static) -> BoxFuture<'static, Answer> {
    Box::pin(call)
}

/// Object path → its parent's, of every node of a capture's `nodes`.
fn parents_of(nodes: &[UiNode]) -> HashMap<String, String> {
    let path = |n: &UiNode| Some(ObjRef::parse(&n.handle).ok()?.path().to_owned());
    nodes
        .iter()
        .filter_map(|n| {
            let parent = nodes.get(n.parent?)?;
            Some((path(n)?, path(parent)?))
        })
        .collect()
}

/// One capture's use of calls asked ahead, from [`AtspiBackend::begin_ahead`]
/// until it is dropped: then what it asked is kept for the next capture of
/// its window (when [`AheadRun::ended`] was called) and every answer left
/// is dropped, however the capture ended (failed, or given up at a
/// deadline).
pub(super) struct AheadRun<'b> {
    backend: &'b AtspiBackend,
    window: String,
    bus: String,
    /// What the window's last capture asked after its first round.
    calls: Vec<(Ask, String)>,
    /// The event sequence when this capture began (`None`: no events).
    mark: Option<u64>,
    /// Object path → parent's of the nodes of the tree it ended with.
    ended: Option<HashMap<String, String>>,
}

impl AheadRun<'_> {
    /// Asks ahead what the window's last capture asked: each call goes out
    /// now, its answer kept for the walk to take. Called once the calls of
    /// the capture's first round are out, so that the application answers
    /// those first.
    pub(super) async fn send(&mut self) {
        let calls = std::mem::take(&mut self.calls);
        self.backend.send_ahead(&self.bus, calls).await;
    }

    /// The capture ended with a tree (`nodes`): what it asked is what the
    /// next one asks ahead, of the branches that did not change since.
    pub(super) fn ended(mut self, nodes: &[UiNode]) {
        // Without events the next capture asks nothing ahead: no map.
        if self.mark.is_some() {
            self.ended = Some(parents_of(nodes));
        }
    }
}

impl Drop for AheadRun<'_> {
    fn drop(&mut self) {
        let last = self.mark.zip(self.ended.take());
        self.backend.end_ahead(&self.window, &self.bus, last);
    }
}

impl AtspiBackend {
    /// How many answers captures have taken from calls asked ahead so far
    /// (see the module docs): a way to tell that they are.
    pub fn answers_asked_ahead(&self) -> u64 {
        self.ahead.taken.load(Ordering::Relaxed)
    }

    /// How many calls captures have asked ahead so far: beside
    /// [`Self::answers_asked_ahead`], what they asked in vain.
    pub fn calls_asked_ahead(&self) -> u64 {
        self.ahead.sent.load(Ordering::Relaxed)
    }

    /// Starts the capture of `window` (element `root`): notes what it asks
    /// from now on, and returns that run with what the window's last
    /// capture asked after its first round (of other elements than the
    /// window), to ask ahead.
    pub(super) fn begin_ahead<'b>(&'b self, window: &str, root: &ObjRef) -> AheadRun<'b> {
        if let Ok(mut asked) = self.ahead.asked.lock() {
            asked.insert(root.bus().to_owned(), Vec::new());
        }
        let events = self.events.as_ref().filter(|e| e.is_live());
        let calls = events
            .zip(self.ahead.last.lock().ok())
            .and_then(|(events, last)| {
                let last = last.get(window)?;
                let likely = last.still_likely(events, root)?;
                tracing::debug!(
                    window,
                    last = last.calls.len(),
                    likely = likely.len(),
                    "calls to ask ahead"
                );
                Some(likely)
            })
            .unwrap_or_default();
        AheadRun {
            backend: self,
            window: window.to_owned(),
            bus: root.bus().to_owned(),
            calls,
            mark: events.map(EventWatch::mark),
            ended: None,
        }
    }

    /// Asks `calls` of elements of application `bus` ahead (see
    /// [`AheadRun::send`]).
    async fn send_ahead(&self, bus: &str, calls: Vec<(Ask, String)>) {
        let started = join_all(calls.into_iter().map(|(ask, path)| async move {
            let call = self.ahead_call(ObjRef::new(bus, &path), ask).await?;
            Some(((bus.to_owned(), path, ask), call))
        }))
        .await;
        let mut driven = FuturesUnordered::new();
        let mut answers = Vec::with_capacity(started.len());
        for (key, call) in started.into_iter().flatten() {
            let (tx, rx) = oneshot::channel();
            driven.push(async move {
                let _ = tx.send(call.await);
            });
            answers.push((key, rx));
        }
        let sent = answers.len() as u64;
        self.ahead.sent.fetch_add(sent, Ordering::Relaxed);
        // One task drives them all: a task per call, woken by its answer
        // while the application answers the next, made GTK 3's answers
        // three times slower (gtk3-widget-factory: 179 µs a rectangle
        // instead of 63).
        let driver = tokio::spawn(async move { while driven.next().await.is_some() {} });
        if let (Ok(mut ahead), Ok(mut drivers)) =
            (self.ahead.ahead.lock(), self.ahead.drivers.lock())
        {
            ahead.extend(answers);
            if let Some(old) = drivers.insert(bus.to_owned(), driver) {
                old.abort();
            }
        } else {
            driver.abort();
        }
    }

    /// The call `ask` of `h`, its proxy built, not yet sent (`None` when
    /// `h` lacks the interface).
    async fn ahead_call(&self, h: ObjRef, ask: Ask) -> Option<BoxFuture<'static, Answer>> {
        Some(match ask {
            Ask::Extents => {
                let c = self.component(&h).await.ok()?;
                boxed(async move {
                    let e = call(&h, "GetExtents", c.get_extents(CoordType::Screen)).await;
                    Answer::Extents(e.map(Extents::from))
                })
            }
            Ask::Children => {
                let acc = self.accessible(&h).await.ok()?;
                boxed(
                    async move { Answer::Children(call(&h, "GetChildren", acc.get_children()).await) },
                )
            }
            Ask::Text(end) => {
                let t = self.text(&h).await.ok()?;
                boxed(async move { Answer::Text(call(&h, "GetText", t.get_text(0, end)).await) })
            }
            Ask::Value => {
                let v = self.value(&h).await.ok()?;
                boxed(
                    async move { Answer::Value(call(&h, "CurrentValue", v.current_value()).await) },
                )
            }
            Ask::Relations => {
                let acc = self.accessible(&h).await.ok()?;
                boxed(async move {
                    Answer::Relations(call(&h, "GetRelationSet", acc.get_relation_set()).await)
                })
            }
            Ask::States => {
                let acc = self.accessible(&h).await.ok()?;
                boxed(async move { Answer::States(call(&h, "GetState", acc.get_state()).await) })
            }
            Ask::Properties => {
                let p = self.properties(&h).await.ok()?;
                boxed(async move { Answer::Properties(call(&h, "GetAll", get_all(&p)).await) })
            }
            Ask::Name => {
                let acc = self.accessible(&h).await.ok()?;
                boxed(async move { Answer::Name(call(&h, "Name", acc.name()).await) })
            }
            Ask::ChildCount => {
                let acc = self.accessible(&h).await.ok()?;
                boxed(
                    async move { Answer::ChildCount(call(&h, "ChildCount", acc.child_count()).await) },
                )
            }
        })
    }

    /// Ends the capture running in `bus`: when it `ended` (it was not
    /// given up), what it asked is what the next capture of `window` asks
    /// ahead; what it did not take is dropped, so that nothing asked for
    /// one capture is ever taken by a later read.
    fn end_ahead(&self, window: &str, bus: &str, ended: Option<(u64, HashMap<String, String>)>) {
        let asked = self.ahead.asked.lock().ok().and_then(|mut a| a.remove(bus));
        if let (Some(calls), Some((mark, parents)), Ok(mut last)) =
            (asked, ended, self.ahead.last.lock())
        {
            let last_asked = LastAsked {
                calls,
                mark,
                parents,
            };
            last.insert(window.to_owned(), last_asked);
        }
        if let Ok(mut ahead) = self.ahead.ahead.lock() {
            ahead.retain(|(b, _, _), _| b != bus);
        }
        if let Some(driver) = self
            .ahead
            .drivers
            .lock()
            .ok()
            .and_then(|mut d| d.remove(bus))
        {
            driver.abort();
        }
    }

    /// The answer to `ask` of `h` asked ahead, when there is one and it
    /// is `pick`'s kind, else `now`'s.
    async fn asked_ahead_or<T>(
        &self,
        h: &ObjRef,
        ask: Ask,
        pick: fn(Answer) -> Option<Result<T>>,
        now: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        if let Some(task) = self.ahead.take(h, ask)
            && let Ok(answer) = task.await
            && let Some(answer) = pick(answer)
        {
            return answer;
        }
        now.await
    }

    /// `h`'s rectangle on screen as the toolkit reports it (GTK 4's
    /// relative to its window).
    pub(super) async fn extents(&self, h: &ObjRef) -> Result<Extents> {
        let pick = pick!(Answer::Extents);
        self.asked_ahead_or(h, Ask::Extents, pick, async {
            let c = self.component(h).await?;
            let e = call(h, "GetExtents", c.get_extents(CoordType::Screen)).await;
            e.map(Extents::from)
        })
        .await
    }

    /// The children of `h`, a container that does not manage its
    /// descendants.
    pub(super) async fn unmanaged_children(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
    ) -> Result<Vec<ObjectRefOwned>> {
        let pick = pick!(Answer::Children);
        let now = call(h, "GetChildren", acc.get_children());
        self.asked_ahead_or(h, Ask::Children, pick, now).await
    }

    /// `h`'s text from 0 to `end` (−1: all of it).
    pub(super) async fn text_to(&self, h: &ObjRef, end: i32) -> Result<String> {
        let pick = pick!(Answer::Text);
        self.asked_ahead_or(h, Ask::Text(end), pick, async {
            let t = self.text(h).await?;
            call(h, "GetText", t.get_text(0, end)).await
        })
        .await
    }

    /// `h`'s current value.
    pub(super) async fn current_value(&self, h: &ObjRef) -> Result<f64> {
        let pick = pick!(Answer::Value);
        self.asked_ahead_or(h, Ask::Value, pick, async {
            let v = self.value(h).await?;
            call(h, "CurrentValue", v.current_value()).await
        })
        .await
    }

    /// `h`'s relations.
    pub(super) async fn relations(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
    ) -> Result<Relations> {
        let pick = pick!(Answer::Relations);
        let now = call(h, "GetRelationSet", acc.get_relation_set());
        self.asked_ahead_or(h, Ask::Relations, pick, now).await
    }

    /// `h`'s states.
    pub(super) async fn states(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
    ) -> Result<StateSet> {
        let pick = pick!(Answer::States);
        let now = call(h, "GetState", acc.get_state());
        self.asked_ahead_or(h, Ask::States, pick, now).await
    }

    /// `h`'s Accessible properties (name, description, child count …) in
    /// one `Properties.GetAll`.
    pub(super) async fn accessible_properties_all(&self, h: &ObjRef) -> Result<Properties> {
        let pick = pick!(Answer::Properties);
        self.asked_ahead_or(h, Ask::Properties, pick, async {
            let p = self.properties(h).await?;
            call(h, "GetAll", get_all(&p)).await
        })
        .await
    }

    /// `h`'s name.
    pub(super) async fn name(&self, h: &ObjRef, acc: &AccessibleProxy<'static>) -> Result<String> {
        let pick = pick!(Answer::Name);
        let now = call(h, "Name", acc.name());
        self.asked_ahead_or(h, Ask::Name, pick, now).await
    }

    /// `h`'s child count.
    pub(super) async fn child_count(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
    ) -> Result<i32> {
        let pick = pick!(Answer::ChildCount);
        let now = call(h, "ChildCount", acc.child_count());
        self.asked_ahead_or(h, Ask::ChildCount, pick, now).await
    }
}

/// `Properties.GetAll` of the Accessible interface, through `p`.
async fn get_all(p: &PropertiesProxy<'static>) -> zbus::Result<Properties> {
    let iface = zbus::names::InterfaceName::from_static_str_unchecked("org.a11y.atspi.Accessible");
    p.get_all(iface).await.map_err(zbus::Error::from)
}
