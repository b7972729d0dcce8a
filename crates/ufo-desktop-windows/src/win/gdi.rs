//! Screenshots through GDI: the screen's device context copied with
//! `BitBlt`, read back as 32-bit top-down pixels.
#![allow(unsafe_code)]

use image::RgbImage;
use ufo_core::geometry::Frame;
use ufo_core::{Point, Rect, Screen};
use ufo_desktop::{DesktopError, Result, Screenshot};
use windows::Win32::Graphics::Gdi as gdi;
use windows::Win32::UI::WindowsAndMessaging::{
    GetSystemMetrics, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN, SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN,
};

/// The virtual screen (all monitors).
pub(crate) fn virtual_screen() -> Rect<Screen> {
    // SAFETY: plain metric queries.
    unsafe {
        Rect::new(
            GetSystemMetrics(SM_XVIRTUALSCREEN),
            GetSystemMetrics(SM_YVIRTUALSCREEN),
            GetSystemMetrics(SM_CXVIRTUALSCREEN),
            GetSystemMetrics(SM_CYVIRTUALSCREEN),
        )
    }
}

/// Photographs a screen rectangle (clipped to the virtual screen).
pub(crate) fn capture(area: Rect<Screen>) -> Result<Screenshot> {
    let r = area
        .intersection(&virtual_screen())
        .filter(|r| r.width > 0 && r.height > 0)
        .ok_or_else(|| {
            DesktopError::backend(format!(
                "the area {}x{}+{}+{} is off the screen",
                area.width, area.height, area.x, area.y
            ))
        })?;
    let (w, h) = (r.width, r.height);
    let mut bgra = vec![0u8; (w as usize) * (h as usize) * 4];
    // SAFETY: every GDI object made here is released below whatever
    // happens; the pixel buffer is sized for w*h 32-bit pixels.
    let lines = unsafe {
        let screen = gdi::GetDC(None);
        let mem = gdi::CreateCompatibleDC(Some(screen));
        let bmp = gdi::CreateCompatibleBitmap(screen, w, h);
        let old = gdi::SelectObject(mem, bmp.into());
        let copied = gdi::BitBlt(mem, 0, 0, w, h, Some(screen), r.x, r.y, gdi::SRCCOPY).is_ok();
        gdi::SelectObject(mem, old);
        let mut info = gdi::BITMAPINFO {
            bmiHeader: gdi::BITMAPINFOHEADER {
                biSize: std::mem::size_of::<gdi::BITMAPINFOHEADER>() as u32,
                biWidth: w,
                biHeight: -h,
                biPlanes: 1,
                biBitCount: 32,
                biCompression: gdi::BI_RGB.0,
                ..Default::default()
            },
            ..Default::default()
        };
        let lines = if copied {
            gdi::GetDIBits(
                mem,
                bmp,
                0,
                h as u32,
                Some(bgra.as_mut_ptr().cast()),
                &mut info,
                gdi::DIB_RGB_COLORS,
            )
        } else {
            0
        };
        let _ = gdi::DeleteObject(bmp.into());
        let _ = gdi::DeleteDC(mem);
        gdi::ReleaseDC(None, screen);
        lines
    };
    if lines != h {
        return Err(DesktopError::backend(format!(
            "GDI copied {lines} of {h} lines of the screen"
        )));
    }
    let rgb: Vec<u8> = bgra
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0]])
        .collect();
    let image = RgbImage::from_raw(w as u32, h as u32, rgb)
        .ok_or_else(|| DesktopError::image("pixel buffer of the wrong size"))?;
    Ok(Screenshot {
        image,
        frame: Frame::at(Point::new(r.x, r.y)),
    })
}
