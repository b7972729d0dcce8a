//! An AppAgent step's data collection: the observation, the images the
//! model is shown and the PNGs the log keeps.

use super::AppAgent;
use crate::error::AgentError;
use crate::step::{ImageKind, Phase, StepImages, StepRecord};
use std::time::Instant;
use ufo_core::Control;
use ufo_desktop::Screenshot;
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::compose::concat_side_by_side;
use ufo_desktop::dispatch::Observation;
use ufo_desktop::encode::{PngCompression, encode_png};
use ufo_desktop::observe::{ModelImages, model_images};

/// What an AppAgent step saw.
pub(super) struct Seen {
    /// The labelled controls.
    pub(super) controls: Vec<Control>,
    /// The window they belong to.
    pub(super) window: Option<ufo_core::WindowInfo>,
    /// The screenshot (for the selected-controls image).
    pub(super) shot: Option<Screenshot>,
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
    pub(super) async fn observe(&self, rec: &mut StepRecord) -> Result<Seen, AgentError> {
        let t = Instant::now();
        let observed = (self.dispatcher.observe(self.settings.save_ui_tree).await)
            .map_err(AgentError::Observation);
        let Observation {
            controls,
            window,
            screenshot: shot,
            screenshot_png,
            ui_tree,
        } = match observed {
            Ok(o) => o,
            Err(e) => {
                rec.time(Phase::DataCollection, t);
                return Err(e);
            }
        };
        rec.control_count = controls.len();
        rec.ui_tree = ui_tree;
        let mut seen = Seen {
            controls: Vec::new(),
            window,
            shot: None,
            image_urls: Vec::new(),
            clean_url: None,
            log_images: None,
        };
        let prepared = shot.map(|s| {
            model_images(
                s,
                &controls,
                &AnnotationStyle::default(),
                &self.settings.image,
                screenshot_png,
            )
        });
        seen.shot = match prepared {
            Some(Ok(mi)) => Some(self.show(rec, mi, &mut seen)),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the screenshot could not be prepared for the model");
                None
            }
            None => None,
        };
        seen.controls = controls;
        rec.time(Phase::DataCollection, t);
        Ok(seen)
    }

    /// The images of a prepared screenshot: those the model is shown (in
    /// visual mode) and the log's PNGs; returns the screenshot.
    fn show(&self, rec: &mut StepRecord, mi: ModelImages, seen: &mut Seen) -> Screenshot {
        let concat = self
            .settings
            .concat_screenshot
            .then(|| concat_side_by_side(&mi.shot.image, &mi.annotated.image));
        let concat_model = concat
            .as_ref()
            .and_then(|c| self.settings.image.encode(c).ok());
        seen.clean_url = Some(mi.clean.data_url());
        if self.settings.visual_mode {
            if self.settings.include_last_screenshot
                && let Some((step, url)) = &self.last_selected
            {
                seen.image_urls.push(("last".into(), url.clone()));
                rec.screenshots
                    .insert("last".into(), ImageKind::Selected.file(*step));
            }
            match &concat_model {
                Some(c) => seen.image_urls.push(("concat".into(), c.data_url())),
                None if self.settings.concat_screenshot => {}
                None => {
                    seen.image_urls.push(("clean".into(), mi.clean.data_url()));
                    seen.image_urls
                        .push(("annotated".into(), mi.marked.data_url()));
                }
            }
        }
        // The log's PNGs are encoded while the model thinks (the same bytes
        // when the model takes PNG).
        seen.log_images = Some(log_pngs(
            &mi,
            concat.map(|c| (c, concat_model)),
            self.settings.png,
        ));
        mi.shot
    }
}

/// Encodes a step's log images as PNG on a blocking thread: the clean and
/// annotated screenshots (reused as they are when the model was sent PNG)
/// and, when asked, the side-by-side concatenation.
fn log_pngs(
    mi: &ModelImages,
    concat: Option<(image::RgbImage, Option<ufo_desktop::encode::Encoded>)>,
    png: PngCompression,
) -> tokio::task::JoinHandle<StepImages> {
    let as_png =
        |e: &ufo_desktop::encode::Encoded| (e.mime == "image/png").then(|| e.bytes.clone());
    let clean = as_png(&mi.clean).ok_or_else(|| mi.shot.image.clone());
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
