//! One observation of the selected application's window, as an AppAgent
//! step makes it: the [`Observation`] (the window a person would work in
//! now, its labelled controls, tree and screenshot, with the time each phase
//! took) and the [`ModelImages`] made of it (the screenshot fitted to the
//! model's size, its set-of-marks annotation, both encoded once in the
//! model's format).
//!
//! [`observe`] takes one in this process over a [`Backend`] (what a local
//! dispatcher, `ufo inspect`, `ufo screenshot --annotate` and the benchmarks
//! run); a dispatcher's [`crate::dispatch::CommandDispatcher::observe`]
//! gives the same [`Observation`] of a device anywhere (over the wire, its
//! data-collection tools). [`Observation::model_images`] is what the agent
//! runs on either.

use crate::Result;
use crate::annotate::{Annotated, AnnotationStyle, annotate};
use crate::backend::Backend;
use crate::encode::{Encoded, ImageFormat, ModelImage};
use crate::screenshot::Screenshot;
use crate::tools::{ToolContext, controls_now, screenshot_now, ui_tree_now};
use serde::Serialize;
use serde_json::Value;
use std::time::Instant;
use ufo_core::{Control, Diagnostic, ErrorReport, UiTree};

/// What an observation takes besides the labelled controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObserveOptions {
    /// Take the window's screenshot (default: yes).
    pub screenshot: bool,
    /// Also read the full UI tree as `get_ui_tree` gives it (default: no).
    pub ui_tree: bool,
}

impl Default for ObserveOptions {
    fn default() -> Self {
        Self {
            screenshot: true,
            ui_tree: false,
        }
    }
}

/// One observation of the selected application's window.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The captured tree: its window (the one the controls belong to: the
    /// application's main window, or the dialog it has open) and whether a
    /// budget cut it short. Its nodes are there when the window was observed
    /// in this process; over the wire a device sends its labelled controls,
    /// not its tree, and `nodes` is empty.
    pub tree: UiTree,
    /// The labelled controls, ids `1..N`.
    pub controls: Vec<Control>,
    /// The window's screenshot, when it was taken; fitted to the model's
    /// size once [`Observation::model_images`] has run.
    pub screenshot: Option<Screenshot>,
    /// The same screenshot as PNG when it came encoded (over the wire):
    /// sent as is when PNG is what the model takes, never encoded again.
    pub screenshot_png: Option<Vec<u8>>,
    /// Why there is no screenshot, when one was asked for and could not be
    /// taken (the device's report, when it gave one).
    pub screenshot_error: Option<ErrorReport>,
    /// The full UI tree as `get_ui_tree` gives it, when asked for and
    /// available.
    pub ui_tree: Option<Value>,
    /// Milliseconds spent in each phase in this process (0 for a phase run
    /// elsewhere or not at all).
    pub times: PhaseTimes,
}

/// Milliseconds spent in each phase of one [`Observation`] and its
/// [`ModelImages`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PhaseTimes {
    /// Finding the window the application shows now (dialogs, popups).
    pub follow: f64,
    /// Capturing its tree (a live tree: only what changed is read).
    pub tree: f64,
    /// Filtering and labelling controls.
    pub filter: f64,
    /// Taking the window screenshot.
    pub screenshot: f64,
    /// Fitting the screenshot to the model's size and drawing the
    /// set-of-marks annotation.
    pub annotate: f64,
    /// Encoding the images sent to the model (clean and annotated).
    pub encode: f64,
}

impl PhaseTimes {
    /// The controls: follow + tree + filter.
    pub fn controls(&self) -> f64 {
        self.follow + self.tree + self.filter
    }

    /// Everything an agent step does before its prompt is built: follow +
    /// tree + filter + screenshot + annotation + encoding.
    pub fn observation(&self) -> f64 {
        self.controls() + self.screenshot + self.annotate + self.encode
    }
}

/// The images a step sends the model of one screenshot (the fitted
/// screenshot itself stays in the [`Observation`]).
#[derive(Debug, Clone)]
pub struct ModelImages {
    /// The annotated screenshot and its label boxes.
    pub annotated: Annotated,
    /// The clean screenshot, encoded.
    pub clean: Encoded,
    /// The annotated screenshot, encoded.
    pub marked: Encoded,
}

/// Observes the current window of `ctx` in this process: follows the
/// application to the window a person would work in (unless the context is
/// pinned), captures and labels its controls (stored in the context for `id`
/// arguments) and, as `opts` asks, takes its screenshot (as pixels: nothing
/// is encoded) and reads its full tree. Fails only when the controls cannot
/// be listed; a missing screenshot is [`Observation::screenshot_error`].
pub async fn observe(
    backend: &dyn Backend,
    ctx: &mut ToolContext,
    opts: ObserveOptions,
) -> Result<Observation> {
    let (tree, controls, [follow, tree_ms, filter]) = controls_now(backend, ctx).await?;
    let mut times = PhaseTimes {
        follow,
        tree: tree_ms,
        filter,
        ..PhaseTimes::default()
    };
    let (mut screenshot, mut screenshot_error) = (None, None);
    if opts.screenshot {
        let t = Instant::now();
        match screenshot_now(backend, ctx).await {
            Ok(s) => screenshot = Some(s),
            Err(e) => screenshot_error = Some(e.report()),
        }
        times.screenshot = ms(t);
    }
    let ui_tree = match opts.ui_tree {
        true => match ui_tree_now(backend, ctx)
            .await
            .map(|t| serde_json::to_value(&t))
        {
            Ok(Ok(v)) => Some(v),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "the UI tree cannot be serialised");
                None
            }
            Err(e) => {
                tracing::debug!(error = %e, "no UI tree this step");
                None
            }
        },
        false => None,
    };
    Ok(Observation {
        tree,
        controls,
        screenshot,
        screenshot_png: None,
        screenshot_error,
        ui_tree,
        times,
    })
}

impl Observation {
    /// Prepares the model's images of the screenshot: fitted to
    /// `image.max_side` (the fitted screenshot replaces
    /// [`Observation::screenshot`]), annotated with the controls, both
    /// encoded once in `image.format` (the PNG that came over the wire is
    /// taken as it is when the model takes PNG at full size). Adds the
    /// annotate and encode times to [`Observation::times`]. Fails when there
    /// is no screenshot (with the reason it could not be taken) or the images
    /// cannot be made.
    pub fn model_images(
        &mut self,
        style: &AnnotationStyle,
        image: &ModelImage,
    ) -> std::result::Result<ModelImages, ErrorReport> {
        let Some(shot) = self.screenshot.take() else {
            return Err(self.screenshot_error.clone().unwrap_or_else(|| {
                crate::DesktopError::image("no screenshot was taken").report()
            }));
        };
        let t = Instant::now();
        let full_size = image
            .max_side
            .is_none_or(|m| shot.image.width().max(shot.image.height()) <= m);
        let shot = &*self.screenshot.insert(image.fit(shot));
        let annotated = annotate(shot, &self.controls, style).map_err(|e| e.report())?;
        self.times.annotate = ms(t);
        let t = Instant::now();
        let reuse =
            (self.screenshot_png.take()).filter(|_| image.format == ImageFormat::Png && full_size);
        let encoded = match reuse {
            Some(bytes) => image.encode(&annotated.image).map(|marked| {
                let clean = Encoded {
                    mime: "image/png",
                    bytes,
                };
                (clean, marked)
            }),
            // The two encodings are independent: one runs on another core.
            None => {
                let (clean, marked) = on_two_threads(
                    || image.encode(&shot.image),
                    || image.encode(&annotated.image),
                );
                clean.and_then(|c| Ok((c, marked?)))
            }
        };
        let (clean, marked) = encoded.map_err(|e| e.report())?;
        self.times.encode = ms(t);
        Ok(ModelImages {
            annotated,
            clean,
            marked,
        })
    }
}

/// Runs `a` on a scoped thread and `b` here.
fn on_two_threads<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|s| {
        let h = s.spawn(a);
        let rb = b();
        let ra = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (ra, rb)
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
