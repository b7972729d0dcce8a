//! Images as Pillow holds them, for the checkers that reproduce Pillow's
//! arithmetic (`images`, `gimp`): the modes `L`, `LA`, `P`, `RGB`,
//! `RGBA` with 8-bit bands, PNG's transparency key, and the operations
//! OSWorld's metrics call — `convert`, `point`, `resize` (Lanczos,
//! bicubic, nearest; premultiplied alpha for `LA`/`RGBA`, as Pillow does),
//! `crop`, `transpose`, the alpha band's bounding box — each to the bit.
//!
//! PNG is read with the `png` crate, undecoded (palette indices, the
//! `tRNS` chunk), as Pillow reads it; 8-bit and (for colour types with
//! three or four channels, as Pillow's `RGB;16B`) 16-bit samples, 1-, 2-,
//! 4- and 8-bit palettes. Other formats go through `image` (JPEG, WebP) as
//! `L`, `LA`, `RGB` or `RGBA`. Anything else (1-bit, 16-bit gray, CMYK)
//! is refused.

use std::path::Path;

/// A grayscale image (Pillow's `L` mode, as the resize and SSIM take it): `w × h` bytes, row by row.
pub(super) struct Gray {
    /// Width.
    pub(super) w: usize,
    /// Height.
    pub(super) h: usize,
    /// The samples, row by row.
    pub(super) px: Vec<u8>,
}

/// Pillow's resampling filters (the ones OSWorld's metrics use).
#[derive(Clone, Copy, Debug)]
pub(super) enum Filter {
    /// `LANCZOS` (support 3).
    Lanczos,
    /// `BICUBIC` (support 2, a = -0.5), `resize`'s default.
    Bicubic,
}

/// Pillow's bicubic kernel.
fn bicubic(x: f64) -> f64 {
    const A: f64 = -0.5;
    let x = x.abs();
    if x < 1.0 {
        ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        (((x - 5.0) * x + 8.0) * x - 4.0) * A
    } else {
        0.0
    }
}

/// Pillow's Lanczos kernel (support 3).
fn lanczos(x: f64) -> f64 {
    fn sinc(x: f64) -> f64 {
        if x == 0.0 {
            1.0
        } else {
            let x = x * std::f64::consts::PI;
            x.sin() / x
        }
    }
    if (-3.0..3.0).contains(&x) {
        sinc(x) * sinc(x / 3.0)
    } else {
        0.0
    }
}

/// Pillow's 22-bit fixed-point precision for 8-bit images.
const PRECISION_BITS: u32 = 32 - 8 - 2;

/// Pillow's `precompute_coeffs` + `normalize_coeffs_8bpc`: for each output
/// index, the first input index and the fixed-point weights.
fn coefficients(in_size: usize, out_size: usize, filter: Filter) -> Vec<(usize, Vec<i32>)> {
    let (kernel, support): (fn(f64) -> f64, f64) = match filter {
        Filter::Lanczos => (lanczos, 3.0),
        Filter::Bicubic => (bicubic, 2.0),
    };
    let scale = in_size as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = support * filterscale;
    (0..out_size)
        .map(|xx| {
            let center = (xx as f64 + 0.5) * scale;
            let ss = 1.0 / filterscale;
            let xmin = ((center - support + 0.5) as i64).max(0) as usize;
            let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize;
            let n = xmax.saturating_sub(xmin);
            let mut k: Vec<f64> = (0..n)
                .map(|x| kernel(((x + xmin) as f64 - center + 0.5) * ss))
                .collect();
            let ww: f64 = k.iter().sum();
            if ww != 0.0 {
                for v in &mut k {
                    *v /= ww;
                }
            }
            let one = f64::from(1u32 << PRECISION_BITS);
            let fixed = k
                .iter()
                .map(|&v| {
                    if v < 0.0 {
                        (-0.5 + v * one) as i32
                    } else {
                        (0.5 + v * one) as i32
                    }
                })
                .collect();
            (xmin, fixed)
        })
        .collect()
}

/// Pillow's `clip8`.
fn clip8(v: i64) -> u8 {
    if v >= (1i64 << PRECISION_BITS << 8) {
        255
    } else if v <= 0 {
        0
    } else {
        (v >> PRECISION_BITS) as u8
    }
}

/// Pillow's `Image.resize(size, filter)` on one 8-bit band.
pub(super) fn resample(img: &Gray, w: usize, h: usize, filter: Filter) -> Gray {
    if (img.w, img.h) == (w, h) {
        return Gray {
            w,
            h,
            px: img.px.clone(),
        };
    }
    let horiz = coefficients(img.w, w, filter);
    let vert = coefficients(img.h, h, filter);
    let need_h = w != img.w;
    let need_v = h != img.h;
    let mut cur = Gray {
        w: img.w,
        h: img.h,
        px: img.px.clone(),
    };
    let mut first_row = 0;
    if need_h {
        // Only the rows the vertical pass reads.
        let (y0, _) = vert[0];
        let (yl, kl) = &vert[h - 1];
        let y1 = yl + kl.len();
        let mut out = vec![0u8; w * (y1 - y0)];
        for (oy, y) in (y0..y1).enumerate() {
            let row = &img.px[y * img.w..(y + 1) * img.w];
            for (xx, (xmin, k)) in horiz.iter().enumerate() {
                let mut ss: i64 = 1 << (PRECISION_BITS - 1);
                for (i, kv) in k.iter().enumerate() {
                    ss += i64::from(row[xmin + i]) * i64::from(*kv);
                }
                out[oy * w + xx] = clip8(ss);
            }
        }
        cur = Gray {
            w,
            h: y1 - y0,
            px: out,
        };
        first_row = y0;
    }
    if need_v {
        let mut out = vec![0u8; cur.w * h];
        for (yy, (ymin, k)) in vert.iter().enumerate() {
            let ymin = ymin - first_row;
            for xx in 0..cur.w {
                let mut ss: i64 = 1 << (PRECISION_BITS - 1);
                for (i, kv) in k.iter().enumerate() {
                    ss += i64::from(cur.px[(ymin + i) * cur.w + xx]) * i64::from(*kv);
                }
                out[yy * cur.w + xx] = clip8(ss);
            }
        }
        cur = Gray {
            w: cur.w,
            h,
            px: out,
        };
    }
    cur
}

/// A Pillow image mode (8 bits per band).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Gray.
    L,
    /// Gray and alpha.
    La,
    /// Palette indices.
    P,
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
}

impl Mode {
    /// Bands per pixel.
    pub(super) fn bands(self) -> usize {
        match self {
            Mode::L | Mode::P => 1,
            Mode::La => 2,
            Mode::Rgb => 3,
            Mode::Rgba => 4,
        }
    }

    /// Whether the last band is alpha.
    fn has_alpha(self) -> bool {
        matches!(self, Mode::La | Mode::Rgba)
    }
}

/// A PNG transparency key (Pillow's `info["transparency"]`).
#[derive(Clone, Debug)]
pub(super) enum Key {
    /// A gray value that is transparent.
    Gray(u8),
    /// A colour that is transparent.
    Rgb([u8; 3]),
    /// Alphas of the first palette entries.
    Alphas(Vec<u8>),
}

/// An image as Pillow holds it.
#[derive(Clone, Debug)]
pub(super) struct Pil {
    /// The mode.
    pub(super) mode: Mode,
    /// Width.
    pub(super) w: usize,
    /// Height.
    pub(super) h: usize,
    /// The bands, interleaved, row by row (palette indices for `P`).
    pub(super) px: Vec<u8>,
    /// The palette (`P`): 256 entries, unset ones black.
    pub(super) palette: Vec<[u8; 3]>,
    /// The transparency key, when the PNG has one.
    pub(super) key: Option<Key>,
}

/// Pillow's RGB to L.
pub(super) fn l24(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8
}

/// Pillow's `MULDIV255`.
fn muldiv255(a: u8, b: u8) -> u8 {
    let t = u32::from(a) * u32::from(b) + 128;
    (((t >> 8) + t) >> 8) as u8
}

impl Pil {
    /// `Image.open(path)` and its decoding.
    pub(super) fn open(path: &Path) -> Result<Pil, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Pil::decode(&bytes)
    }

    /// `Image.open(BytesIO(bytes))` and its decoding.
    pub(super) fn decode(bytes: &[u8]) -> Result<Pil, String> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return decode_png(bytes);
        }
        let img = image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| e.to_string())?
            .decode()
            .map_err(|e| e.to_string())?;
        let (w, h) = (img.width() as usize, img.height() as usize);
        let (mode, px) = match img {
            image::DynamicImage::ImageLuma8(i) => (Mode::L, i.into_raw()),
            image::DynamicImage::ImageLumaA8(i) => (Mode::La, i.into_raw()),
            image::DynamicImage::ImageRgb8(i) => (Mode::Rgb, i.into_raw()),
            image::DynamicImage::ImageRgba8(i) => (Mode::Rgba, i.into_raw()),
            other => return Err(format!("{:?} images are not supported", other.color())),
        };
        Ok(Pil {
            mode,
            w,
            h,
            px,
            palette: Vec::new(),
            key: None,
        })
    }

    /// Pixel `i`'s bands.
    fn pixel(&self, i: usize) -> &[u8] {
        let n = self.mode.bands();
        &self.px[i * n..(i + 1) * n]
    }

    /// A new image of `mode` from per-pixel bands.
    fn with(&self, mode: Mode, px: Vec<u8>) -> Pil {
        Pil {
            mode,
            w: self.w,
            h: self.h,
            px,
            palette: Vec::new(),
            key: None,
        }
    }

    /// `convert("L")`.
    pub(super) fn to_l(&self) -> Vec<u8> {
        (0..self.w * self.h)
            .map(|i| {
                let p = self.pixel(i);
                match self.mode {
                    Mode::L | Mode::La => p[0],
                    Mode::P => {
                        let [r, g, b] = self.palette[usize::from(p[0])];
                        l24(r, g, b)
                    }
                    Mode::Rgb | Mode::Rgba => l24(p[0], p[1], p[2]),
                }
            })
            .collect()
    }

    /// `convert("RGB")`, as RGB triples.
    pub(super) fn to_rgb(&self) -> Vec<[u8; 3]> {
        (0..self.w * self.h)
            .map(|i| {
                let p = self.pixel(i);
                match self.mode {
                    Mode::L | Mode::La => [p[0]; 3],
                    Mode::P => self.palette[usize::from(p[0])],
                    Mode::Rgb | Mode::Rgba => [p[0], p[1], p[2]],
                }
            })
            .collect()
    }

    /// `convert("RGBA")`, the transparency key becoming alpha.
    pub(super) fn to_rgba(&self) -> Vec<[u8; 4]> {
        (0..self.w * self.h)
            .map(|i| {
                let p = self.pixel(i);
                match (self.mode, &self.key) {
                    (Mode::La, _) => [p[0], p[0], p[0], p[1]],
                    (Mode::Rgba, _) => [p[0], p[1], p[2], p[3]],
                    (Mode::L, Some(Key::Gray(k))) => [p[0], p[0], p[0], 255 * u8::from(p[0] != *k)],
                    (Mode::L, _) => [p[0], p[0], p[0], 255],
                    (Mode::Rgb, Some(Key::Rgb(k))) => {
                        [p[0], p[1], p[2], 255 * u8::from(p[..3] != k[..])]
                    }
                    (Mode::Rgb, _) => [p[0], p[1], p[2], 255],
                    (Mode::P, key) => {
                        let [r, g, b] = self.palette[usize::from(p[0])];
                        let a = match key {
                            Some(Key::Alphas(a)) => {
                                a.get(usize::from(p[0])).copied().unwrap_or(255)
                            }
                            _ => 255,
                        };
                        [r, g, b, a]
                    }
                }
            })
            .collect()
    }

    /// `convert(mode)` among `L`, `LA`, `RGB`, `RGBA` (not to `P`, which
    /// quantizes: `None`).
    pub(super) fn convert(&self, mode: Mode) -> Option<Pil> {
        if mode == self.mode {
            return Some(self.clone());
        }
        let px: Vec<u8> = match mode {
            Mode::P => return None,
            Mode::L => self.to_l(),
            Mode::Rgb => self.to_rgb().concat(),
            Mode::Rgba => self.to_rgba().concat(),
            Mode::La => self
                .to_rgba()
                .iter()
                .flat_map(|&[r, g, b, a]| {
                    let l = if matches!(self.mode, Mode::L | Mode::La) {
                        r
                    } else {
                        l24(r, g, b)
                    };
                    [l, a]
                })
                .collect(),
        };
        Some(self.with(mode, px))
    }

    /// `convert("RGBA")` as an image.
    pub(super) fn rgba(&self) -> Pil {
        self.with(Mode::Rgba, self.to_rgba().concat())
    }

    /// `convert("HSV")`, as H, S, V planes (Pillow's `rgb2hsv`).
    pub(super) fn to_hsv(&self) -> [Gray; 3] {
        let hsv: Vec<[u8; 3]> = self.to_rgb().into_iter().map(rgb2hsv).collect();
        let plane = |c: usize| Gray {
            w: self.w,
            h: self.h,
            px: hsv.iter().map(|p| p[c]).collect(),
        };
        [plane(0), plane(1), plane(2)]
    }

    /// `point(lut)`: the table applied to every band (palette indices
    /// for `P`).
    pub(super) fn point(&self, lut: &[u8; 256]) -> Pil {
        Pil {
            px: self.px.iter().map(|&v| lut[usize::from(v)]).collect(),
            ..self.clone()
        }
    }

    /// `transpose(FLIP_LEFT_RIGHT)`.
    pub(super) fn flip_left_right(&self) -> Pil {
        let n = self.mode.bands();
        let mut px = Vec::with_capacity(self.px.len());
        for y in 0..self.h {
            for x in (0..self.w).rev() {
                px.extend_from_slice(self.pixel(y * self.w + x));
            }
        }
        debug_assert_eq!(px.len(), self.w * self.h * n);
        Pil { px, ..self.clone() }
    }

    /// The bounding box `(x0, y0, x1, y1)` of the pixels whose band `band`
    /// is not 0 (`getbbox()` of that band); `None` when there are none.
    pub(super) fn band_bbox(px: &[u8], w: usize, bands: usize, band: usize) -> Option<[usize; 4]> {
        let mut bbox: Option<[usize; 4]> = None;
        for (i, p) in px.chunks_exact(bands).enumerate() {
            if p[band] != 0 {
                let (x, y) = (i % w, i / w);
                bbox = Some(match bbox {
                    None => [x, y, x + 1, y + 1],
                    Some([x0, y0, x1, y1]) => [x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1)],
                });
            }
        }
        bbox
    }

    /// `crop(box)` (inside the image).
    pub(super) fn crop(&self, [x0, y0, x1, y1]: [usize; 4]) -> Pil {
        let mut px = Vec::new();
        for y in y0..y1 {
            for x in x0..x1 {
                px.extend_from_slice(self.pixel(y * self.w + x));
            }
        }
        Pil {
            w: x1 - x0,
            h: y1 - y0,
            px,
            ..self.clone()
        }
    }

    /// `resize((w, h), filter)`: a copy at the same size; `NEAREST` for
    /// `P` whatever the filter; `LA` and `RGBA` resampled premultiplied
    /// by alpha (`La`, `RGBa`), as Pillow does.
    pub(super) fn resize(&self, w: usize, h: usize, filter: Filter) -> Pil {
        if (w, h) == (self.w, self.h) {
            return self.clone();
        }
        if self.mode == Mode::P {
            return self.nearest(w, h);
        }
        let n = self.mode.bands();
        let alpha = self.mode.has_alpha();
        let mut src = self.px.clone();
        if alpha {
            for p in src.chunks_exact_mut(n) {
                let a = p[n - 1];
                for v in &mut p[..n - 1] {
                    *v = muldiv255(*v, a);
                }
            }
        }
        let planes: Vec<Gray> = (0..n)
            .map(|c| {
                let band = Gray {
                    w: self.w,
                    h: self.h,
                    px: src.iter().skip(c).step_by(n).copied().collect(),
                };
                resample(&band, w, h, filter)
            })
            .collect();
        let mut px = vec![0u8; w * h * n];
        for (c, plane) in planes.iter().enumerate() {
            for (i, v) in plane.px.iter().enumerate() {
                px[i * n + c] = *v;
            }
        }
        if alpha {
            for p in px.chunks_exact_mut(n) {
                let a = p[n - 1];
                if a != 0 && a != 255 {
                    for v in &mut p[..n - 1] {
                        *v = (255 * u32::from(*v) / u32::from(a)).min(255) as u8;
                    }
                }
            }
        }
        Pil {
            w,
            h,
            px,
            ..self.clone()
        }
    }

    /// Pillow's nearest-neighbour scaling (`ImagingScaleAffine`: the source
    /// coordinate accumulated from the first pixel's centre).
    fn nearest(&self, w: usize, h: usize) -> Pil {
        let coords = |out: usize, inp: usize| -> Vec<usize> {
            let step = inp as f64 / out as f64;
            let mut at = step * 0.5;
            (0..out)
                .map(|_| {
                    let c = (at as usize).min(inp - 1);
                    at += step;
                    c
                })
                .collect()
        };
        let (xs, ys) = (coords(w, self.w), coords(h, self.h));
        let mut px = Vec::with_capacity(w * h * self.mode.bands());
        for &y in &ys {
            for &x in &xs {
                px.extend_from_slice(self.pixel(y * self.w + x));
            }
        }
        Pil {
            w,
            h,
            px,
            ..self.clone()
        }
    }

    /// The image's bands as numpy's `np.array(img)` has them per pixel
    /// (palette indices for `P`).
    pub(super) fn rows(&self) -> impl Iterator<Item = &[u8]> {
        self.px.chunks_exact(self.mode.bands())
    }
}

/// Pillow's `rgb2hsv` for one pixel (single-precision floats where the C
/// code has them).
fn rgb2hsv([r, g, b]: [u8; 3]) -> [u8; 3] {
    let maxc = r.max(g).max(b);
    let minc = r.min(g).min(b);
    if maxc == minc {
        return [0, 0, maxc];
    }
    let cr = f32::from(maxc - minc);
    let s = cr / f32::from(maxc);
    let rc = f32::from(maxc - r) / cr;
    let gc = f32::from(maxc - g) / cr;
    let bc = f32::from(maxc - b) / cr;
    let h: f32 = if r == maxc {
        bc - gc
    } else if g == maxc {
        (2.0 + f64::from(rc) - f64::from(bc)) as f32
    } else {
        (4.0 + f64::from(gc) - f64::from(rc)) as f32
    };
    let h = ((f64::from(h) / 6.0 + 1.0) % 1.0) as f32;
    let clip = |v: f64| (v as i32).clamp(0, 255) as u8;
    [clip(f64::from(h) * 255.0), clip(f64::from(s) * 255.0), maxc]
}

/// A PNG as Pillow decodes it.
fn decode_png(bytes: &[u8]) -> Result<Pil, String> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .map_err(|e| e.to_string())?;
    let size = reader.output_buffer_size().ok_or("the PNG is too large")?;
    let mut buf = vec![0u8; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let info = reader.info();
    let (w, h) = (frame.width as usize, frame.height as usize);
    let depth = frame.bit_depth as u8;
    let stride = frame.line_size;
    let trns = info.trns.as_deref().map(<[u8]>::to_vec);
    let palette: Vec<[u8; 3]> = {
        let mut p: Vec<[u8; 3]> = info
            .palette
            .as_deref()
            .unwrap_or(&[])
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        p.resize(256, [0, 0, 0]);
        p
    };
    let rows = buf.chunks(stride).take(h);
    use png::ColorType as C;
    let (mode, px, key) = match (frame.color_type, depth) {
        (C::Indexed, 1 | 2 | 4 | 8) => {
            let per = 8 / usize::from(depth);
            let mask = (1u16 << depth) - 1;
            let mut px = Vec::with_capacity(w * h);
            for row in rows {
                for x in 0..w {
                    let byte = row[x / per];
                    let shift = 8 - usize::from(depth) * (x % per + 1);
                    px.push(((u16::from(byte) >> shift) & mask) as u8);
                }
            }
            (Mode::P, px, trns.map(Key::Alphas))
        }
        (C::Grayscale, 8) => {
            let px = rows.flat_map(|r| r[..w].to_vec()).collect();
            let key = trns.and_then(|t| t.get(1).copied()).map(Key::Gray);
            (Mode::L, px, key)
        }
        (C::GrayscaleAlpha, 8) => (
            Mode::La,
            rows.flat_map(|r| r[..2 * w].to_vec()).collect(),
            None,
        ),
        (C::Rgb, 8) => {
            let px = rows.flat_map(|r| r[..3 * w].to_vec()).collect();
            let key = trns
                .filter(|t| t.len() >= 6)
                .map(|t| Key::Rgb([t[1], t[3], t[5]]));
            (Mode::Rgb, px, key)
        }
        (C::Rgba, 8) => (
            Mode::Rgba,
            rows.flat_map(|r| r[..4 * w].to_vec()).collect(),
            None,
        ),
        (C::GrayscaleAlpha | C::Rgb | C::Rgba, 16) if trns.is_none() => {
            let mode = match frame.color_type {
                C::GrayscaleAlpha => Mode::La,
                C::Rgb => Mode::Rgb,
                _ => Mode::Rgba,
            };
            let n = mode.bands() * w;
            let px = rows
                .flat_map(|r| r[..2 * n].iter().step_by(2).copied().collect::<Vec<_>>())
                .collect();
            (mode, px, None)
        }
        (ct, d) => return Err(format!("{ct:?} PNG images of {d} bits are not supported")),
    };
    Ok(Pil {
        mode,
        w,
        h,
        px,
        palette: if mode == Mode::P { palette } else { Vec::new() },
        key,
    })
}
