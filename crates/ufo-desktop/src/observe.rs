//! One observation of a window — tree, labelled controls, screenshot,
//! set-of-marks annotation and PNG encoding — with the time each phase took.
//! Used by `ufo inspect`/`ufo screenshot` and by the perception benchmark.

use crate::annotate::{Annotated, AnnotationStyle, annotate};
use crate::backend::{Backend, ScreenshotTarget};
use crate::encode::{PngCompression, encode_png};
use crate::filter::{FilterConfig, label_controls};
use crate::screenshot::Screenshot;
use crate::{Result, TreeBudget};
use serde::Serialize;
use std::time::Instant;
use ufo_core::{Control, UiTree, WindowInfo};

/// Milliseconds spent in each phase of one observation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PhaseTimes {
    /// Tree capture over the accessibility API.
    pub tree: f64,
    /// Filtering and labelling controls.
    pub filter: f64,
    /// Taking the window screenshot.
    pub screenshot: f64,
    /// Drawing the set-of-marks annotation.
    pub annotate: f64,
    /// PNG-encoding the annotated image.
    pub encode: f64,
}

impl PhaseTimes {
    /// Tree + filter + screenshot + annotation (what an agent step needs before
    /// the model is asked; encoding is reported separately).
    pub fn observation(&self) -> f64 {
        self.tree + self.filter + self.screenshot + self.annotate
    }
}

/// Everything one observation produced.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The captured tree.
    pub tree: UiTree,
    /// Controls labelled 1..N.
    pub controls: Vec<Control>,
    /// The clean window screenshot.
    pub screenshot: Screenshot,
    /// The annotated screenshot and its label boxes.
    pub annotated: Annotated,
    /// The annotated screenshot as PNG bytes.
    pub annotated_png: Vec<u8>,
    /// Phase timings.
    pub times: PhaseTimes,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Observes `window` once.
pub async fn observe(
    backend: &dyn Backend,
    window: &WindowInfo,
    budget: &TreeBudget,
    filter: &FilterConfig,
    style: &AnnotationStyle,
    png: PngCompression,
) -> Result<Observation> {
    let mut times = PhaseTimes::default();
    let t = Instant::now();
    let tree = backend.capture_tree(window, budget).await?;
    times.tree = ms(t);
    let t = Instant::now();
    let controls = label_controls(&tree, filter, None);
    times.filter = ms(t);
    let t = Instant::now();
    let screenshot = backend
        .screenshot(&ScreenshotTarget::Window(tree.window.clone()))
        .await?;
    times.screenshot = ms(t);
    let t = Instant::now();
    let annotated = annotate(&screenshot, &controls, style)?;
    times.annotate = ms(t);
    let t = Instant::now();
    let annotated_png = encode_png(&annotated.image, png)?;
    times.encode = ms(t);
    Ok(Observation {
        tree,
        controls,
        screenshot,
        annotated,
        annotated_png,
        times,
    })
}
