//! GIMP image checks (`gimp.py`): a picture drawn here and its edits —
//! darker, brighter, more and less saturated, more and less contrasted,
//! mirrored, resized, cropped by transparency, reduced to a palette, on a
//! green background — in every mode Pillow gives a PNG (L, LA, P with and
//! without a transparency key, RGB, RGBA), against the original; plus
//! different pictures, images too small, not images and missing files.

use std::path::Path;

use image::{GrayAlphaImage, GrayImage, ImageBuffer, LumaA, Rgb, RgbImage, Rgba, RgbaImage};
use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};
use crate::images::picture;

/// Saves an image made by `f` as `name`.
fn save(dir: &Path, name: &str, f: impl FnOnce(&Path)) -> Got {
    let p = dir.join(name);
    f(&p);
    Got::File(p)
}

fn rgb(dir: &Path, name: &str, img: &RgbImage) -> Got {
    save(dir, name, |p| img.save(p).unwrap())
}

/// Every pixel's channels mapped by `f`.
fn map(img: &RgbImage, f: impl Fn([u8; 3]) -> [u8; 3]) -> RgbImage {
    ImageBuffer::from_fn(img.width(), img.height(), |x, y| {
        Rgb(f(img.get_pixel(x, y).0))
    })
}

fn clamp(v: f64) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// Channels scaled by `k`.
fn scale(img: &RgbImage, k: f64) -> RgbImage {
    map(img, |p| p.map(|v| clamp(f64::from(v) * k)))
}

/// Saturation changed by `k` (each channel pushed from the pixel's mean).
fn saturate(img: &RgbImage, k: f64) -> RgbImage {
    map(img, |p| {
        let m = p.iter().map(|&v| f64::from(v)).sum::<f64>() / 3.0;
        p.map(|v| clamp(m + (f64::from(v) - m) * k))
    })
}

/// Contrast changed by `k` around 128.
fn contrast(img: &RgbImage, k: f64) -> RgbImage {
    map(img, |p| {
        p.map(|v| clamp(128.0 + (f64::from(v) - 128.0) * k))
    })
}

fn flip(img: &RgbImage) -> RgbImage {
    image::imageops::flip_horizontal(img)
}

fn resized(img: &RgbImage, w: u32, h: u32) -> RgbImage {
    image::imageops::resize(img, w, h, image::imageops::FilterType::Triangle)
}

fn gray(img: &RgbImage) -> GrayImage {
    image::imageops::grayscale(img)
}

/// With alpha: opaque inside `margin` of the border, transparent outside
/// (or a ramp when `margin` is 0).
fn rgba(img: &RgbImage, margin: u32) -> RgbaImage {
    let (w, h) = img.dimensions();
    ImageBuffer::from_fn(w, h, |x, y| {
        let p = img.get_pixel(x, y).0;
        let inside = x >= margin && y >= margin && x + margin < w && y + margin < h;
        let a = if margin == 0 {
            (x * 255 / w.max(1)) as u8 | 1
        } else if inside {
            255
        } else {
            0
        };
        Rgba([p[0], p[1], p[2], a])
    })
}

fn la(img: &RgbImage) -> GrayAlphaImage {
    let g = gray(img);
    ImageBuffer::from_fn(img.width(), img.height(), |x, y| {
        LumaA([g.get_pixel(x, y).0[0], if x % 5 == 0 { 128 } else { 255 }])
    })
}

/// A palette PNG: the picture's colours reduced to `levels` per channel,
/// with a transparency table when `trns` (entry 0 fully transparent, the
/// others opaque).
fn palette_of(dir: &Path, name: &str, img: &RgbImage, levels: u8, trns: bool) -> Got {
    let step = 255 / (levels - 1);
    let level = |v: u8| ((u16::from(v) + u16::from(step) / 2) / u16::from(step)) as u8;
    let n = levels * levels * levels;
    let mut table = Vec::new();
    for i in 0..n {
        let (r, g, b) = (i / (levels * levels), (i / levels) % levels, i % levels);
        table.extend([r * step, g * step, b * step]);
    }
    let idx: Vec<u8> = img
        .pixels()
        .map(|p| level(p.0[0]) * levels * levels + level(p.0[1]) * levels + level(p.0[2]))
        .collect();
    save(dir, name, |p| {
        let f = std::fs::File::create(p).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), img.width(), img.height());
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(table);
        if trns {
            let mut t = vec![255u8; usize::from(n)];
            t[0] = 0;
            enc.set_trns(t);
        }
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&idx).unwrap();
    })
}

/// A palette PNG of 64 colours.
fn palette(dir: &Path, name: &str, img: &RgbImage, trns: bool) -> Got {
    palette_of(dir, name, img, 4, trns)
}

fn text(dir: &Path, name: &str, content: &str) -> Got {
    save(dir, name, |p| std::fs::write(p, content).unwrap())
}

/// The original and the named images checked against it.
struct Corpus {
    gold: Got,
    images: Vec<(&'static str, Got)>,
}

/// The original picture (48×40) and its edits, in several modes.
fn corpus(d: &Path) -> Corpus {
    let base = picture(48, 40, 1, 0);
    let gold = rgb(d, "gold.png", &base);
    let mut noisy = base.clone();
    for (i, p) in noisy.pixels_mut().enumerate() {
        if i % 7 == 0 {
            p.0 = p.0.map(|v| v.saturating_add(9));
        }
    }
    let images = vec![
        ("same", rgb(d, "same.png", &base)),
        ("slightly noisy", rgb(d, "noisy.png", &noisy)),
        ("darker", rgb(d, "darker.png", &scale(&base, 0.8))),
        ("much darker", rgb(d, "dark.png", &scale(&base, 0.4))),
        ("brighter", rgb(d, "brighter.png", &scale(&base, 1.15))),
        ("more saturated", rgb(d, "sat.png", &saturate(&base, 1.4))),
        ("less saturated", rgb(d, "desat.png", &saturate(&base, 0.6))),
        ("more contrast", rgb(d, "con.png", &contrast(&base, 1.3))),
        ("less contrast", rgb(d, "lowcon.png", &contrast(&base, 0.7))),
        ("mirrored", rgb(d, "mirror.png", &flip(&base))),
        (
            "mirrored darker",
            rgb(d, "mirrordark.png", &scale(&flip(&base), 0.8)),
        ),
        ("other picture", rgb(d, "other.png", &picture(48, 40, 2, 0))),
        ("shifted", rgb(d, "shifted.png", &picture(48, 40, 1, 5))),
        (
            "darker, half size",
            rgb(d, "half.png", &resized(&scale(&base, 0.8), 24, 20)),
        ),
        ("resized up", rgb(d, "up.png", &resized(&base, 72, 60))),
        ("resized odd", rgb(d, "odd.png", &resized(&base, 31, 47))),
        (
            "gray",
            save(d, "gray.png", |p| gray(&base).save(p).unwrap()),
        ),
        (
            "gray darker",
            save(d, "graydark.png", |p| {
                gray(&scale(&base, 0.8)).save(p).unwrap()
            }),
        ),
        ("LA", save(d, "la.png", |p| la(&base).save(p).unwrap())),
        (
            "RGBA ramp",
            save(d, "ramp.png", |p| rgba(&base, 0).save(p).unwrap()),
        ),
        (
            "RGBA framed",
            save(d, "framed.png", |p| rgba(&base, 4).save(p).unwrap()),
        ),
        (
            "RGBA framed darker",
            save(d, "framed_dark.png", |p| {
                rgba(&scale(&base, 0.8), 4).save(p).unwrap()
            }),
        ),
        (
            "RGBA framed, bigger",
            save(d, "framed_big.png", |p| {
                rgba(&resized(&base, 56, 48), 4).save(p).unwrap()
            }),
        ),
        (
            "RGBA clear",
            save(d, "clear.png", |p| {
                RgbaImage::from_pixel(48, 40, Rgba([5, 5, 5, 0]))
                    .save(p)
                    .unwrap()
            }),
        ),
        ("palette", palette(d, "pal.png", &base, false)),
        (
            "palette darker",
            palette(d, "paldark.png", &scale(&base, 0.8), false),
        ),
        ("palette with key", palette(d, "palkey.png", &base, true)),
        (
            "palette of 216",
            palette_of(d, "pal216.png", &base, 6, false),
        ),
        (
            "palette of 216 mirrored",
            palette_of(d, "pal216m.png", &flip(&base), 6, false),
        ),
        ("mirrored, noisy", rgb(d, "mirrornoisy.png", &flip(&noisy))),
        (
            "palette, half size",
            palette(d, "palhalf.png", &resized(&base, 24, 20), false),
        ),
        ("tiny", rgb(d, "tiny.png", &picture(6, 6, 1, 0))),
        ("black", rgb(d, "black.png", &RgbImage::new(48, 40))),
        (
            "flat",
            rgb(
                d,
                "flat.png",
                &RgbImage::from_pixel(48, 40, Rgb([90, 120, 60])),
            ),
        ),
        ("not an image", text(d, "text.png", "not a png")),
        ("empty file", text(d, "empty.png", "")),
        ("missing file", Got::File(d.join("absent.png"))),
    ];
    Corpus { gold, images }
}

/// Each image against the original, and against a few others.
fn pairs(c: &Corpus) -> Vec<Case> {
    let mut cases = Vec::new();
    let n = c.images.len();
    for (i, (name, img)) in c.images.iter().enumerate() {
        cases.push(Case::new(
            format!("{name} vs original"),
            img.clone(),
            c.gold.clone(),
        ));
        let (other, oimg) = &c.images[(i * 5 + 2) % n];
        cases.push(Case::new(
            format!("{name} vs {other}"),
            img.clone(),
            oimg.clone(),
        ));
        cases.push(Case::new(
            format!("original vs {name}"),
            c.gold.clone(),
            img.clone(),
        ));
    }
    cases.push(Case::new("no result", Got::Missing, c.gold.clone()));
    cases
}

#[test]
fn check_brightness_decrease_and_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let mut cases = pairs(&c);
    for (name, img) in c.images.iter().take(6) {
        for t in [json!(0.001), json!(0.2)] {
            cases.push(
                Case::new(format!("{name} threshold {t}"), img.clone(), c.gold.clone())
                    .with(json!({ "threshold": t })),
            );
        }
    }
    compare(
        "gimp",
        "check_brightness_decrease_and_structure_sim",
        &cases,
    );
}

#[test]
fn check_saturation_increase_and_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let cases = pairs(&corpus(dir.path()));
    compare(
        "gimp",
        "check_saturation_increase_and_structure_sim",
        &cases,
    );
}

#[test]
fn check_contrast_increase_and_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let cases = pairs(&corpus(dir.path()));
    compare("gimp", "check_contrast_increase_and_structure_sim", &cases);
}

#[test]
fn check_image_mirror() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut cases = pairs(&corpus(d));
    let original = rgb(d, "blocks.png", &blocks(40, 30, 0));
    let mirrored = [
        (
            "mirrored blocks",
            rgb(d, "bm.png", &flip(&blocks(40, 30, 0))),
        ),
        (
            "mirrored blocks as a palette",
            exact_palette(d, "bmp.png", &flip(&blocks(40, 30, 0))),
        ),
        (
            "mirrored shifted blocks",
            rgb(d, "bms.png", &flip(&blocks(40, 30, 1))),
        ),
    ];
    for (name, img) in mirrored {
        cases.push(Case::new(
            format!("{name} vs blocks"),
            img.clone(),
            original.clone(),
        ));
        cases.push(Case::new(
            format!("blocks vs {name}"),
            original.clone(),
            img,
        ));
    }
    compare("gimp", "check_image_mirror", &cases);
}

#[test]
fn check_file_exists_and_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let cases = pairs(&corpus(dir.path()));
    compare("gimp", "check_file_exists_and_structure_sim", &cases);
}

#[test]
fn check_structure_sim_resized() {
    let dir = tempfile::tempdir().unwrap();
    let cases = pairs(&corpus(dir.path()));
    compare("gimp", "check_structure_sim_resized", &cases);
}

/// A picture of a few flat colours.
fn blocks(w: u32, h: u32, shift: u32) -> RgbImage {
    ImageBuffer::from_fn(w, h, |x, y| {
        let k = ((x + shift) / 6 + y / 5) % 5;
        Rgb([
            [200, 30, 30],
            [30, 200, 30],
            [30, 30, 200],
            [240, 240, 240],
            [10, 10, 10],
        ][k as usize])
    })
}

/// `img` as a palette PNG of exactly its colours (at most 256).
fn exact_palette(dir: &Path, name: &str, img: &RgbImage) -> Got {
    let mut colours: Vec<[u8; 3]> = Vec::new();
    let idx: Vec<u8> = img
        .pixels()
        .map(|p| match colours.iter().position(|c| *c == p.0) {
            Some(i) => i as u8,
            None => {
                colours.push(p.0);
                (colours.len() - 1) as u8
            }
        })
        .collect();
    save(dir, name, |p| {
        let f = std::fs::File::create(p).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), img.width(), img.height());
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(colours.concat());
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&idx).unwrap();
    })
}

#[test]
fn check_palette_and_structure_sim() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut cases = pairs(&corpus(d));
    let rgb_blocks = rgb(d, "blocks.png", &blocks(40, 30, 0));
    let exact = [
        (
            "blocks as a palette",
            exact_palette(d, "bp.png", &blocks(40, 30, 0)),
        ),
        (
            "shifted blocks as a palette",
            exact_palette(d, "bs.png", &blocks(40, 30, 3)),
        ),
        (
            "smaller blocks as a palette",
            exact_palette(d, "bsm.png", &blocks(36, 30, 0)),
        ),
        ("blocks in RGB", rgb(d, "b2.png", &blocks(40, 30, 0))),
    ];
    for (name, img) in exact {
        cases.push(Case::new(
            format!("{name} vs blocks"),
            img,
            rgb_blocks.clone(),
        ));
    }
    compare("gimp", "check_palette_and_structure_sim", &cases);
}

#[test]
fn compare_image_list() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let mut cases = pairs(&c);
    let path = |g: &Got| match g {
        Got::File(p) => json!(p.display().to_string()),
        _ => json!(null),
    };
    let named = |n: &str| c.images.iter().find(|(k, _)| *k == n).unwrap().1.clone();
    let lists = [
        ("two same", vec!["same", "gray"], vec!["same", "gray"]),
        (
            "second differs",
            vec!["same", "darker"],
            vec!["same", "gray"],
        ),
        ("shorter result", vec!["same"], vec!["same", "darker"]),
        (
            "longer result",
            vec!["same", "darker", "x"],
            vec!["same", "gray"],
        ),
        ("an empty path", vec!["same", ""], vec!["same", "gray"]),
        (
            "modes differ",
            vec!["gray", "RGBA framed"],
            vec!["same", "RGBA ramp"],
        ),
    ];
    for (name, pred, gold) in lists {
        let list = |names: &[&str]| -> serde_json::Value {
            names
                .iter()
                .map(|n| match *n {
                    "" => json!(""),
                    "x" => json!("/nonexistent.png"),
                    n => path(&named(n)),
                })
                .collect()
        };
        cases.push(Case::new(
            name,
            Got::Json(list(&pred)),
            Got::Json(list(&gold)),
        ));
    }
    // Converting to an expected palette image quantizes (Pillow's web
    // palette, dithered): refused here, not reproduced.
    let cases = cases
        .into_iter()
        .map(|c| {
            let (pred, gold) = c.name.split_once(" vs ").unwrap_or(("", ""));
            if gold.starts_with("palette") && !pred.starts_with("palette") {
                c.known(
                    "refused: converting to a palette image is not reproduced",
                    1.0,
                )
            } else {
                c
            }
        })
        .collect::<Vec<_>>();
    compare("gimp", "compare_image_list", &cases);
}

#[test]
fn check_green_background() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An object (black) in the middle of a background.
    let scene = |w: u32, h: u32, bg: [u8; 3], stray: bool| -> RgbImage {
        ImageBuffer::from_fn(w, h, |x, y| {
            let object = (w / 4..3 * w / 4).contains(&x) && (h / 4..3 * h / 4).contains(&y);
            if object {
                Rgb([0, 0, 0])
            } else if stray && x == 2 && y == h - 3 {
                Rgb([200, 200, 200])
            } else {
                Rgb(bg)
            }
        })
    };
    let white = [255, 255, 255];
    let green = [30, 200, 40];
    let images = [
        (
            "white square",
            rgb(d, "w.png", &scene(20, 20, white, false)),
        ),
        (
            "green square",
            rgb(d, "g.png", &scene(20, 20, green, false)),
        ),
        (
            "green square, a stray pixel",
            rgb(d, "gs.png", &scene(20, 20, green, true)),
        ),
        (
            "yellow-green square",
            rgb(d, "yg.png", &scene(20, 20, [200, 200, 40], false)),
        ),
        ("green wide", rgb(d, "gw.png", &scene(24, 20, green, false))),
        ("white wide", rgb(d, "ww.png", &scene(24, 20, white, false))),
        ("green tall", rgb(d, "gt.png", &scene(20, 24, green, false))),
        ("white tall", rgb(d, "wt.png", &scene(20, 24, white, false))),
        (
            "green square RGBA",
            save(d, "ga.png", |p| {
                rgba(&scene(20, 20, green, false), 0).save(p).unwrap()
            }),
        ),
        (
            "gray square",
            save(d, "gg.png", |p| {
                gray(&scene(20, 20, white, false)).save(p).unwrap()
            }),
        ),
        (
            "LA square",
            save(d, "gla.png", |p| {
                la(&scene(20, 20, white, false)).save(p).unwrap()
            }),
        ),
        ("black square", rgb(d, "b.png", &RgbImage::new(20, 20))),
        ("not an image", text(d, "t.png", "x")),
    ];
    let mut cases = Vec::new();
    for (rn, r) in &images {
        for (en, e) in &images {
            cases.push(Case::new(format!("{rn} on {en}"), r.clone(), e.clone()));
        }
    }
    compare("gimp", "check_green_background", &cases);
}

#[test]
fn check_triangle_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A yellow triangle with its centroid at (cx, cy) on a blue background,
    // and an optional red square (a third colour).
    let draw = |w: u32, h: u32, cx: i64, cy: i64, square: bool| -> RgbImage {
        ImageBuffer::from_fn(w, h, |x, y| {
            let (dx, dy) = (x as i64 - cx, y as i64 - cy);
            let inside = (-8..=4).contains(&dy) && dx.abs() * 3 <= (dy + 8) * 2;
            if inside {
                Rgb([250, 220, 10])
            } else if square && x < 6 && y < 5 {
                Rgb([220, 20, 20])
            } else {
                Rgb([20, 40, 160])
            }
        })
    };
    let images = [
        ("middle", rgb(d, "m.png", &draw(60, 50, 30, 26, false))),
        ("off centre", rgb(d, "o.png", &draw(60, 50, 12, 14, false))),
        (
            "middle with a square",
            rgb(d, "ms.png", &draw(60, 50, 30, 26, true)),
        ),
        (
            "off centre with a square",
            rgb(d, "os.png", &draw(60, 50, 45, 10, true)),
        ),
        (
            "middle RGBA",
            save(d, "ma.png", |p| {
                rgba(&draw(60, 50, 30, 26, true), 3).save(p).unwrap()
            }),
        ),
        (
            "gray",
            save(d, "g.png", |p| {
                gray(&draw(60, 50, 30, 26, false)).save(p).unwrap()
            }),
        ),
        (
            "LA",
            save(d, "la.png", |p| {
                la(&draw(60, 50, 30, 26, false)).save(p).unwrap()
            }),
        ),
        (
            "palette",
            palette(d, "p.png", &draw(60, 50, 30, 26, false), false),
        ),
        (
            "one colour",
            rgb(d, "one.png", &RgbImage::from_pixel(30, 30, Rgb([1, 2, 3]))),
        ),
        ("not an image", text(d, "t.png", "x")),
        ("missing", Got::File(d.join("absent.png"))),
    ];
    let cases: Vec<Case> = images
        .iter()
        .map(|(name, img)| Case {
            name: (*name).to_owned(),
            result: img.clone(),
            expected: None,
            options: json!({}),
            known: None,
        })
        .collect();
    compare("gimp", "check_triangle_position", &cases);
}

#[test]
fn check_textbox_on_leftside() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text_at = |x0: u32, shade: u8| -> RgbImage {
        ImageBuffer::from_fn(100, 30, |x, y| {
            if (x0..x0 + 30).contains(&x) && (10..20).contains(&y) {
                Rgb([shade; 3])
            } else {
                Rgb([240, 240, 240])
            }
        })
    };
    let images = [
        ("text at 0", rgb(d, "a.png", &text_at(0, 10))),
        ("text at 4", rgb(d, "b.png", &text_at(4, 10))),
        ("text at 5", rgb(d, "c.png", &text_at(5, 10))),
        ("text at 30", rgb(d, "d.png", &text_at(30, 10))),
        ("gray text at 2", rgb(d, "e.png", &text_at(2, 127))),
        ("light text at 2", rgb(d, "f.png", &text_at(2, 128))),
        (
            "no text",
            rgb(d, "g.png", &RgbImage::from_pixel(100, 30, Rgb([200; 3]))),
        ),
        (
            "gray image",
            save(d, "h.png", |p| gray(&text_at(3, 0)).save(p).unwrap()),
        ),
        ("palette", palette(d, "i.png", &text_at(3, 0), false)),
        ("not an image", text(d, "t.png", "x")),
    ];
    let cases: Vec<Case> = images
        .iter()
        .map(|(name, img)| Case {
            name: (*name).to_owned(),
            result: img.clone(),
            expected: None,
            options: json!({}),
            known: None,
        })
        .collect();
    compare("gimp", "check_textbox_on_leftside", &cases);
}

#[test]
fn check_image_file_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = [
        ("100 bytes", text(d, "a.jpeg", &"x".repeat(100))),
        ("empty", text(d, "b.jpeg", "")),
        ("missing", Got::File(d.join("absent.jpeg"))),
    ];
    let rules = [
        json!({"max_size": 600000}),
        json!({"max_size": 100}),
        json!({"max_size": 101}),
        json!({"max_size": 100.5}),
        json!({"max_size": 0}),
        json!({"max_size": true}),
        json!({"max_size": "600000"}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (name, f) in &files {
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                f.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("gimp", "check_image_file_size", &cases);
}
