//! What one capture of a window shares: [`Capture`], the state every stage
//! of it reads. A capture is followed from one entry point,
//! [`Capture::new`] then `Capture::window` (`capture.rs`), through its
//! stages, each a method of it in a file of its own: the walk (`walk.rs`),
//! the finishing (`capture.rs`), GTK 4's popovers (`popovers.rs`) and the
//! naming of unnamed controls (`naming.rs`). Reading one element (`read.rs`,
//! `details.rs`, `children.rs`) is the backend's: actions and live
//! re-reads read elements outside any capture.
//!
//! Two things a capture might hold stay where they are, on purpose. The
//! route to an application (its private socket, or the bus) is looked up
//! per call in the backend's store (`stores.rs`), because the single reads
//! outside a capture take the same path; a capture holding its own copy
//! would make two. The walk's `labelled-by` relations come back in its
//! result (`Walked`) instead of being written into the capture: the
//! capture is shared read-only by its reads while they run concurrently,
//! and each stage hands the next what it found.
//!
//! It lives apart from the stages so that each of them can take it without
//! a module circle.

use super::cache::AppCache;
use super::objref::ObjRef;
use super::toolkit::Toolkit;
use super::{AtspiBackend, Result};
use std::time::Instant;
use ufo_core::WindowInfo;
use ufo_desktop::TreeBudget;

/// One capture of a window (or of a branch of it, read again): what its
/// reads share.
pub(super) struct Capture<'b> {
    /// The connection, X11, and what is known of applications.
    pub(super) backend: &'b AtspiBackend,
    /// The window captured.
    pub(super) window: &'b WindowInfo,
    /// The window's element.
    pub(super) root: ObjRef,
    /// The toolkit of the window's application.
    pub(super) toolkit: Toolkit,
    /// The capture's budgets.
    pub(super) budget: TreeBudget,
    /// The application's cache (role, states, interfaces of its objects);
    /// empty until it is read with the window, and for a branch.
    pub(super) cache: AppCache,
    /// Added to every reported position (GTK 4's window origin).
    pub(super) offset: (i32, i32),
    /// When the capture started.
    pub(super) started: Instant,
    /// When every read still in flight is given up.
    pub(super) deadline: tokio::time::Instant,
    /// Whether the cache may plan children (see [`AppCache::children_of`]):
    /// GTK 3's bridge only. GTK 4's cache holds a handful of elements and
    /// lists one of gnome-text-editor's containers with a child it no
    /// longer has (measured).
    pub(super) plan_children: bool,
}

impl<'b> Capture<'b> {
    /// A capture of `window` within `budget`, starting now. Its offset (see
    /// [`AtspiBackend::extents_offset`]) and its application's toolkit are
    /// asked first; nothing else is read yet.
    pub(super) async fn new(
        backend: &'b AtspiBackend,
        window: &'b WindowInfo,
        budget: &TreeBudget,
    ) -> Result<Self> {
        let started = Instant::now();
        let offset = backend.extents_offset(window).await?;
        let root = ObjRef::parse(&window.handle)?;
        let toolkit = backend.toolkit(root.bus()).await;
        let plan_children = toolkit == Toolkit::Gtk(3);
        Ok(
            Self::starting(backend, window, root, toolkit, budget, offset, started)
                .planning(plan_children),
        )
    }

    /// The capture that brings `window`'s kept capture up to date (see
    /// `live.rs`): the kept `offset`, no cache. `None` when the window's
    /// handle is no AT-SPI handle.
    pub(super) async fn kept(
        backend: &'b AtspiBackend,
        window: &'b WindowInfo,
        budget: &TreeBudget,
        offset: (i32, i32),
    ) -> Option<Self> {
        let started = Instant::now();
        let root = ObjRef::parse(&window.handle).ok()?;
        let toolkit = backend.toolkit(root.bus()).await;
        Some(Self::starting(
            backend, window, root, toolkit, budget, offset, started,
        ))
    }

    /// A capture of `window` begun at `started`, with no cache yet and no
    /// children planned from it.
    fn starting(
        backend: &'b AtspiBackend,
        window: &'b WindowInfo,
        root: ObjRef,
        toolkit: Toolkit,
        budget: &TreeBudget,
        offset: (i32, i32),
        started: Instant,
    ) -> Self {
        Capture {
            backend,
            window,
            root,
            toolkit,
            budget: *budget,
            cache: AppCache::default(),
            offset,
            started,
            deadline: tokio::time::Instant::from_std(started) + budget.deadline,
            plan_children: false,
        }
    }

    /// With children planned from the application's cache or not.
    fn planning(mut self, plan_children: bool) -> Self {
        self.plan_children = plan_children;
        self
    }

    /// A capture of one branch of this one, read again on its own within
    /// `budget`, starting now (see `rewalk.rs`): no cache, so no children
    /// planned from it.
    pub(super) fn branch(&self, budget: TreeBudget) -> Capture<'b> {
        Self::starting(
            self.backend,
            self.window,
            self.root.clone(),
            self.toolkit,
            &budget,
            self.offset,
            Instant::now(),
        )
    }

    /// The bus name of the window's application.
    pub(super) fn bus(&self) -> &str {
        self.root.bus()
    }

    /// The window's application is GTK 4.
    pub(super) fn gtk4(&self) -> bool {
        self.toolkit == Toolkit::Gtk(4)
    }
}
