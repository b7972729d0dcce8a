//! One observation of a window as an AppAgent step makes it: the
//! application followed to the window a person would work in, its tree
//! (live: only what changed is read), labelled controls and screenshot
//! ([`crate::tools::observe_app`], what a local dispatcher runs), then the
//! images the model is sent ([`model_images`], what the agent runs: fitted to
//! the model's size, set-of-marks annotation, encoded once in the model's
//! format), with the time each phase took. Used by `ufo inspect`,
//! `ufo screenshot --annotate` and `ufo bench perception`.

use crate::Result;
use crate::annotate::{Annotated, AnnotationStyle, annotate};
use crate::backend::Backend;
use crate::encode::{Encoded, ImageFormat, ModelImage};
use crate::screenshot::Screenshot;
use crate::tools::{ToolContext, observe_app};
use serde::Serialize;
use std::time::Instant;
use ufo_core::{Control, UiTree};

/// Milliseconds spent in each phase of one observation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PhaseTimes {
    /// Finding the window the application shows now.
    pub follow: f64,
    /// Tree capture over the accessibility API.
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
    /// Everything an agent step does before its prompt is built: follow +
    /// tree + filter + screenshot + annotation + encoding.
    pub fn observation(&self) -> f64 {
        self.follow + self.tree + self.filter + self.screenshot + self.annotate + self.encode
    }
}

/// The images a step sends the model of one screenshot.
#[derive(Debug, Clone)]
pub struct ModelImages {
    /// The screenshot as the model sees it (scaled down to the model's size
    /// when asked; its frame says how).
    pub shot: Screenshot,
    /// The annotated screenshot and its label boxes.
    pub annotated: Annotated,
    /// The clean screenshot, encoded.
    pub clean: Encoded,
    /// The annotated screenshot, encoded.
    pub marked: Encoded,
    /// Milliseconds fitting + annotating, and encoding.
    pub times: (f64, f64),
}

/// Prepares the model's images of `shot`: fitted to `image.max_side`,
/// annotated with `controls`, both encoded once in `image.format`. `wire_png`
/// is the clean screenshot as it already came encoded (over the wire), reused
/// when the model takes PNG at full size.
pub fn model_images(
    shot: Screenshot,
    controls: &[Control],
    style: &AnnotationStyle,
    image: &ModelImage,
    wire_png: Option<Vec<u8>>,
) -> Result<ModelImages> {
    let t = Instant::now();
    let full_size = image
        .max_side
        .is_none_or(|m| shot.image.width().max(shot.image.height()) <= m);
    let shot = image.fit(shot);
    let annotated = annotate(&shot, controls, style)?;
    let fit_annotate = ms(t);
    let t = Instant::now();
    let reuse = wire_png.filter(|_| image.format == ImageFormat::Png && full_size);
    let (clean, marked) = match reuse {
        Some(bytes) => (
            Encoded {
                mime: "image/png",
                bytes,
            },
            image.encode(&annotated.image)?,
        ),
        // The two encodings are independent: one runs on another core.
        None => {
            let (clean, marked) = on_two_threads(
                || image.encode(&shot.image),
                || image.encode(&annotated.image),
            );
            (clean?, marked?)
        }
    };
    Ok(ModelImages {
        shot,
        annotated,
        clean,
        marked,
        times: (fit_annotate, ms(t)),
    })
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

/// Everything one observation produced.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The captured tree.
    pub tree: UiTree,
    /// Controls labelled 1..N.
    pub controls: Vec<Control>,
    /// The images sent to the model (the fitted screenshot among them).
    pub images: ModelImages,
    /// Phase timings.
    pub times: PhaseTimes,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Observes the current window of `ctx` once, as a step does.
pub async fn observe(
    backend: &dyn Backend,
    ctx: &mut ToolContext,
    style: &AnnotationStyle,
    image: &ModelImage,
) -> Result<Observation> {
    let o = observe_app(backend, ctx).await?;
    let shot = match (o.screenshot, o.screenshot_error) {
        (Some(s), _) => s,
        (None, Some(e)) => return Err(e),
        (None, None) => {
            return Err(crate::DesktopError::image("no screenshot was taken"));
        }
    };
    let images = model_images(shot, &o.controls, style, image, None)?;
    let times = PhaseTimes {
        follow: o.times.follow,
        tree: o.times.tree,
        filter: o.times.filter,
        screenshot: o.times.screenshot,
        annotate: images.times.0,
        encode: images.times.1,
    };
    Ok(Observation {
        tree: o.tree,
        controls: o.controls,
        images,
        times,
    })
}
