//! `compare_images` (`vlc.py`): PNG images drawn here — a base picture and
//! variants near and far from it, of other sizes (so both sides resize),
//! other pixel formats, too small, not an image — scored with and without
//! `reference_base_result`.

use std::path::Path;

use image::{GrayImage, ImageBuffer, Luma, Rgb, RgbImage, Rgba, RgbaImage};
use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// A deterministic picture: gradients, a few blocks and some noise.
pub(crate) fn picture(w: u32, h: u32, seed: u64, shift: i64) -> RgbImage {
    let mut x = seed;
    ImageBuffer::from_fn(w, h, |i, j| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let noise = ((x >> 59) as i64) - 16;
        let (fi, fj) = ((i as i64 - shift) as f64 / w as f64, j as f64 / h as f64);
        let block = if (0.2..0.5).contains(&fi) && (0.3..0.7).contains(&fj) {
            90
        } else {
            0
        };
        let c = |base: f64| (base + block as f64 + noise as f64).clamp(0.0, 255.0) as u8;
        Rgb([
            c(200.0 * fi),
            c(160.0 * fj + 40.0),
            c(120.0 * (1.0 - fi) + 30.0),
        ])
    })
}

fn save(dir: &Path, name: &str, f: impl FnOnce(&Path)) -> Got {
    let p = dir.join(name);
    f(&p);
    Got::File(p)
}

/// The base picture (as a file) and its named variants.
fn corpus(d: &Path) -> (Got, Vec<(&'static str, Got)>) {
    let base = picture(64, 48, 1, 0);
    let gold = save(d, "gold.png", |p| base.save(p).unwrap());
    let rgb = |name: &str, img: RgbImage| save(d, name, |p| img.save(p).unwrap());
    let mut few = base.clone();
    for k in 0..6 {
        few.put_pixel(10 + k, 20, Rgb([255, 255, 255]));
    }
    let brighter = ImageBuffer::from_fn(64, 48, |i, j| {
        let p = base.get_pixel(i, j).0;
        Rgb(p.map(|v| v.saturating_add(25)))
    });
    let gray: GrayImage = image::imageops::grayscale(&base);
    let rgba: RgbaImage = ImageBuffer::from_fn(64, 48, |i, j| {
        let p = base.get_pixel(i, j).0;
        Rgba([p[0], p[1], p[2], (i * 4) as u8])
    });
    let gray16: ImageBuffer<Luma<u16>, Vec<u16>> =
        ImageBuffer::from_fn(64, 48, |i, j| Luma([(i * 9 + j * 5) as u16 * 3]));
    let rgb16: ImageBuffer<Rgb<u16>, Vec<u16>> = ImageBuffer::from_fn(64, 48, |i, j| {
        let p = base.get_pixel(i, j).0;
        Rgb(p.map(|v| u16::from(v) * 257 + (i as u16 % 7)))
    });
    let variants = vec![
        ("same", rgb("same.png", base.clone())),
        ("a few pixels", rgb("few.png", few)),
        ("other noise", rgb("noise.png", picture(64, 48, 2, 0))),
        ("brighter", rgb("bright.png", brighter)),
        ("shifted", rgb("shifted.png", picture(64, 48, 1, 3))),
        ("narrower", rgb("narrow.png", picture(60, 48, 1, 0))),
        ("shorter", rgb("short.png", picture(64, 40, 1, 0))),
        (
            "narrower and taller",
            rgb("tall.png", picture(48, 80, 1, 0)),
        ),
        ("twice the size", rgb("big.png", picture(128, 96, 1, 0))),
        ("odd size", rgb("odd.png", picture(97, 61, 1, 0))),
        ("gray", save(d, "gray.png", |p| gray.save(p).unwrap())),
        (
            "with alpha",
            save(d, "alpha.png", |p| rgba.save(p).unwrap()),
        ),
        (
            "16-bit gray",
            save(d, "g16.png", |p| gray16.save(p).unwrap()),
        ),
        (
            "16-bit colour",
            save(d, "c16.png", |p| rgb16.save(p).unwrap()),
        ),
        (
            "JPEG",
            save(d, "photo.jpg", |p| {
                let mut out = std::fs::File::create(p).unwrap();
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
                    .encode_image(&base)
                    .unwrap();
            }),
        ),
        ("tiny", rgb("tiny.png", picture(5, 5, 1, 0))),
        (
            "flat",
            rgb(
                "flat.png",
                ImageBuffer::from_pixel(64, 48, Rgb([128, 128, 128])),
            ),
        ),
        (
            "not an image",
            save(d, "text.png", |p| std::fs::write(p, "not a png").unwrap()),
        ),
    ];
    (gold, variants)
}

#[test]
fn compare_images() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, variants) = corpus(dir.path());
    let options = [
        json!({}),
        json!({"reference_base_result": 0.5}),
        json!({"reference_base_result": 0.95}),
    ];
    // Our JPEG decoder (zune-jpeg, through `image`) and Pillow's
    // (libjpeg-turbo) round some pixels differently.
    let jpeg = |c: Case, a: &str, b: &str| {
        if a == "JPEG" || b == "JPEG" {
            c.known("JPEG decoders differ in rounding", 1e-4)
        } else {
            c
        }
    };
    let mut cases = Vec::new();
    for (i, (name, img)) in variants.iter().enumerate() {
        for o in &options {
            let c = Case::new(format!("{name} {o}"), img.clone(), gold.clone()).with(o.clone());
            cases.push(jpeg(c, name, ""));
        }
        let (other, oimg) = &variants[(i * 5 + 3) % variants.len()];
        let c = Case::new(format!("{name} vs {other}"), img.clone(), oimg.clone());
        cases.push(jpeg(c, name, other));
    }
    cases.push(Case::new("missing", Got::Missing, gold.clone()));
    compare("vlc", "compare_images", &cases);
}

#[test]
fn check_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, mut variants) = corpus(dir.path());
    // Near the 0.9 threshold: the base with growing noise.
    for (k, amp) in [4u8, 12, 24, 40].into_iter().enumerate() {
        let mut img = picture(64, 48, 1, 0);
        let mut x = 99u64 + k as u64;
        for p in img.pixels_mut() {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let n = (x >> 56) as u8 % amp;
            p.0 = p.0.map(|v| v.saturating_add(n));
        }
        let name = ["noise 4", "noise 12", "noise 24", "noise 40"][k];
        variants.push((
            name,
            save(dir.path(), &format!("n{k}.png"), |p| img.save(p).unwrap()),
        ));
    }
    let mut cases = Vec::new();
    for (i, (name, img)) in variants.iter().enumerate() {
        cases.push(Case::new(
            format!("{name} vs base"),
            img.clone(),
            gold.clone(),
        ));
        let (other, oimg) = &variants[(i * 7 + 2) % variants.len()];
        cases.push(Case::new(
            format!("{name} vs {other}"),
            img.clone(),
            oimg.clone(),
        ));
    }
    cases.push(Case::new("missing", Got::Missing, gold.clone()));
    compare("gimp", "check_structure_sim", &cases);
}

#[test]
fn check_image_size() {
    use image::{GrayAlphaImage, LumaA};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 40×30 with opaque content in x 5..=24, y 3..=22 (20×20).
    let framed: RgbaImage = ImageBuffer::from_fn(40, 30, |x, y| {
        let inside = (5..25).contains(&x) && (3..23).contains(&y);
        Rgba([200, 10, 10, if inside { 255 } else { 0 }])
    });
    let clear: RgbaImage = ImageBuffer::from_pixel(40, 30, Rgba([0, 0, 0, 0]));
    let la: GrayAlphaImage =
        ImageBuffer::from_fn(40, 30, |x, _| LumaA([90, if x < 10 { 255 } else { 0 }]));
    // An RGB image with a transparency key (tRNS), written by Pillow.
    let keyed = d.join("keyed.png");
    ufo_testkit::deps::run(
        std::process::Command::new(crate::harness::python()).arg("-c").arg(format!(
            "from PIL import Image\nim = Image.new('RGB', (40, 30), (0, 0, 0))\nim.paste((9, 9, 9), (2, 2, 12, 7))\nim.save({:?}, transparency=(0, 0, 0))",
            keyed.display().to_string()
        )),
        "writing a PNG with a transparency key",
    );
    let images = [
        (
            "framed RGBA",
            save(d, "framed.png", |p| framed.save(p).unwrap()),
        ),
        (
            "clear RGBA",
            save(d, "clear.png", |p| clear.save(p).unwrap()),
        ),
        ("LA", save(d, "la.png", |p| la.save(p).unwrap())),
        (
            "RGB",
            save(d, "rgb.png", |p| picture(40, 30, 1, 0).save(p).unwrap()),
        ),
        ("keyed RGB", Got::File(keyed)),
    ];
    let rules = [
        json!({"width": 40, "height": 30}),
        json!({"width": 20, "height": 20, "ignore_transparent": true}),
        json!({"width": 40, "height": 30, "ignore_transparent": true}),
        json!({"width": 10, "ignore_transparent": true}),
        json!({"width": 10, "height": 5}),
        json!({"height": 30.0}),
        json!({"width": 0, "height": 0, "ignore_transparent": true}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (name, img) in &images {
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                img.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("gimp", "check_image_size", &cases);
}
