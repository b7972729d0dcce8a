//! An AppAgent step's data collection: the observation, the images the
//! model is shown and the PNGs the log keeps.

use super::AppAgent;
use crate::error::AgentError;
use crate::step::{ImageKind, Phase, StepImages, StepRecord};
use std::time::Instant;
use ufo_desktop::Screenshot;
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::compose::concat_side_by_side;
use ufo_desktop::encode::{PngCompression, encode_png};
use ufo_desktop::observe::{ModelImages, Observation, ObserveOptions};

/// What the model is shown of a step's [`Observation`], and the log's images
/// of it.
#[derive(Default)]
pub(super) struct Shown {
    /// The images for the model: (label key, data URL).
    pub(super) image_urls: Vec<(String, String)>,
    /// The clean screenshot's data URL (a screenshot the model may save).
    pub(super) clean_url: Option<String>,
    /// The log's PNGs, encoded while the model thinks.
    pub(super) log_images: Option<tokio::task::JoinHandle<StepImages>>,
}

impl AppAgent {
    /// Data collection: observes the application through the dispatcher and
    /// prepares its screenshot for the model (clean and annotated, or
    /// side by side; the last step's selected controls first when asked).
    /// The observation's screenshot is the one the model saw (fitted), or
    /// none when it could not be prepared. Boxed: the step's frames stay
    /// small (a real desktop's tree capture runs on the same stack).
    pub(super) async fn observe(
        &self,
        rec: &mut StepRecord,
    ) -> Result<(Box<Observation>, Shown), AgentError> {
        let t = Instant::now();
        let opts = ObserveOptions {
            ui_tree: self.settings.save_ui_tree,
            ..ObserveOptions::default()
        };
        let mut seen = match self.dispatcher.observe(opts).await {
            Ok(o) => Box::new(o),
            Err(e) => {
                rec.time(Phase::DataCollection, t);
                return Err(AgentError::Observation(e));
            }
        };
        rec.control_count = seen.controls.len();
        rec.ui_tree = seen.ui_tree.take();
        let mut shown = Shown::default();
        if seen.screenshot.is_some() {
            match seen.model_images(&AnnotationStyle::default(), &self.settings.image) {
                Ok(mi) => {
                    if let Some(shot) = &seen.screenshot {
                        self.show(rec, shot, &mi, &mut shown);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e.message, "the screenshot could not be prepared for the model");
                    seen.screenshot = None;
                }
            }
        }
        rec.time(Phase::DataCollection, t);
        Ok((seen, shown))
    }

    /// The images of a prepared screenshot `shot`: those the model is shown
    /// (in visual mode) and the log's PNGs.
    fn show(&self, rec: &mut StepRecord, shot: &Screenshot, mi: &ModelImages, shown: &mut Shown) {
        let concat = self
            .settings
            .concat_screenshot
            .then(|| concat_side_by_side(&shot.image, &mi.annotated.image));
        let concat_model = concat
            .as_ref()
            .and_then(|c| self.settings.image.encode(c).ok());
        shown.clean_url = Some(mi.clean.data_url());
        if self.settings.visual_mode {
            if self.settings.include_last_screenshot
                && let Some((step, url)) = &self.last_selected
            {
                shown.image_urls.push(("last".into(), url.clone()));
                rec.screenshots
                    .insert("last".into(), ImageKind::Selected.file(*step));
            }
            match &concat_model {
                Some(c) => shown.image_urls.push(("concat".into(), c.data_url())),
                None if self.settings.concat_screenshot => {}
                None => {
                    shown.image_urls.push(("clean".into(), mi.clean.data_url()));
                    shown
                        .image_urls
                        .push(("annotated".into(), mi.marked.data_url()));
                }
            }
        }
        // The log's PNGs are encoded while the model thinks (the same bytes
        // when the model takes PNG).
        shown.log_images = Some(log_pngs(
            shot,
            mi,
            concat.map(|c| (c, concat_model)),
            self.settings.png,
        ));
    }
}

/// Encodes a step's log images as PNG on a blocking thread: the clean and
/// annotated screenshots (reused as they are when the model was sent PNG)
/// and, when asked, the side-by-side concatenation.
fn log_pngs(
    shot: &Screenshot,
    mi: &ModelImages,
    concat: Option<(image::RgbImage, Option<ufo_desktop::encode::Encoded>)>,
    png: PngCompression,
) -> tokio::task::JoinHandle<StepImages> {
    let as_png =
        |e: &ufo_desktop::encode::Encoded| (e.mime == "image/png").then(|| e.bytes.clone());
    let clean = as_png(&mi.clean).ok_or_else(|| shot.image.clone());
    let annotated = as_png(&mi.marked).ok_or_else(|| mi.annotated.image.clone());
    let concat = concat.map(|(img, enc)| enc.as_ref().and_then(as_png).ok_or(img));
    tokio::task::spawn_blocking(move || {
        let done = |x: Result<Vec<u8>, image::RgbImage>| match x {
            Ok(bytes) => Some(bytes),
            Err(img) => encode_png(&img, png).ok(),
        };
        StepImages {
            clean: done(clean),
            annotated: done(annotated),
            concat: concat.and_then(done),
            selected: None,
        }
    })
}
