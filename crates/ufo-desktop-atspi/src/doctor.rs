//! Health checks of a desktop, each with a one-line fix.

use crate::bus;
use crate::target::DesktopTarget;
use crate::x11::X11;
use serde::Serialize;
use ufo_core::{Rect, Screen};

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// Works.
    Ok,
    /// Works, but something is off.
    Warn,
    /// Does not work.
    Fail,
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Short stable name (`display`, `session_bus`, ...).
    pub name: String,
    /// Verdict.
    pub status: CheckStatus,
    /// What was found.
    pub detail: String,
    /// How to fix it, for warn and fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    /// A passing check.
    pub fn ok(name: &str, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: CheckStatus::Ok,
            detail: detail.into(),
            fix: None,
        }
    }
    /// A warning with a fix.
    pub fn warn(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: CheckStatus::Warn,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
    /// A failure with a fix.
    pub fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: CheckStatus::Fail,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// How long one bus check may take before the bus counts as hung.
const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

async fn within<T>(
    f: impl std::future::Future<Output = Result<T, bus::BusError>>,
) -> Result<T, String> {
    match tokio::time::timeout(CHECK_TIMEOUT, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} s", CHECK_TIMEOUT.as_secs())),
    }
}

const START_FIX: &str =
    "start a private desktop with `ufo desktop start`, or run inside a graphical session";

/// Runs every desktop check against `target`. Later checks that depend on a
/// failed one are reported as failed with the same root cause.
pub async fn diagnose(target: &DesktopTarget) -> Vec<Check> {
    let mut out = Vec::new();

    display_checks(target.display.as_deref(), &mut out);

    // Session bus, accessibility bus, registry.
    let Some(session) = &target.session_bus else {
        out.push(Check::fail(
            "session_bus",
            "DBUS_SESSION_BUS_ADDRESS is not set",
            START_FIX,
        ));
        out.push(Check::fail("a11y_bus", "no session bus", START_FIX));
        out.push(Check::fail("registry", "no session bus", START_FIX));
        return out;
    };
    let session_conn = match within(bus::connect(session)).await {
        Ok(c) => {
            out.push(Check::ok("session_bus", session.clone()));
            c
        }
        Err(e) => {
            out.push(Check::fail(
                "session_bus",
                format!("{session}: {e}"),
                START_FIX,
            ));
            out.push(Check::fail("a11y_bus", "no session bus", START_FIX));
            out.push(Check::fail("registry", "no session bus", START_FIX));
            return out;
        }
    };
    let a11y_fix = "install at-spi2-core and make sure at-spi-bus-launcher runs on this session (`ufo desktop start` starts it)";
    let a11y = match within(bus::a11y_address(&session_conn)).await {
        Ok(a) => a,
        Err(e) => {
            out.push(Check::fail(
                "a11y_bus",
                format!("org.a11y.Bus does not answer: {e}"),
                a11y_fix,
            ));
            out.push(Check::fail("registry", "no accessibility bus", a11y_fix));
            return out;
        }
    };
    let conn = match within(bus::connect(&a11y)).await {
        Ok(c) => {
            out.push(Check::ok("a11y_bus", a11y.clone()));
            c
        }
        Err(e) => {
            out.push(Check::fail("a11y_bus", format!("{a11y}: {e}"), a11y_fix));
            out.push(Check::fail("registry", "no accessibility bus", a11y_fix));
            return out;
        }
    };
    registry_checks(&conn, a11y_fix, &mut out).await;
    out
}

/// The X display: it opens, has XTEST, and a screenshot can be taken.
fn display_checks(display: Option<&str>, out: &mut Vec<Check>) {
    match display {
        None => {
            out.push(Check::fail("display", "DISPLAY is not set", START_FIX));
            out.push(Check::fail("xtest", "no X display", START_FIX));
            out.push(Check::fail("screenshot", "no X display", START_FIX));
        }
        Some(d) => match X11::connect(d) {
            Err(e) => {
                out.push(Check::fail(
                    "display",
                    format!("cannot open {d}: {e}"),
                    format!("check that an X server runs on {d} (Xvfb {d}), or {START_FIX}"),
                ));
                out.push(Check::fail("xtest", "no X display", START_FIX));
                out.push(Check::fail("screenshot", "no X display", START_FIX));
            }
            Ok(x) => {
                let r = x.screen_rect();
                out.push(Check::ok(
                    "display",
                    format!("{d} ({}x{})", r.width, r.height),
                ));
                if x.has_xtest() {
                    out.push(Check::ok("xtest", "XTEST extension present"));
                } else {
                    out.push(Check::fail(
                        "xtest",
                        "the X server has no XTEST extension",
                        "start Xvfb with +extension XTEST (ufo desktop start does)",
                    ));
                }
                let probe: Rect<Screen> = Rect::new(0, 0, r.width.min(64), r.height.min(64));
                match x.capture(&probe) {
                    Ok((img, _)) => out.push(Check::ok(
                        "screenshot",
                        format!("captured {}x{} pixels", img.width(), img.height()),
                    )),
                    Err(e) => out.push(Check::fail(
                        "screenshot",
                        e.to_string(),
                        "run the X server at depth 24 (Xvfb -screen 0 1280x1024x24)",
                    )),
                }
            }
        },
    }
}

/// The registry: which applications it lists and whether they answer.
async fn registry_checks(conn: &zbus::Connection, a11y_fix: &str, out: &mut Vec<Check>) {
    match within(bus::registered_apps(conn)).await {
        Ok(apps) if apps.is_empty() => out.push(Check::warn(
            "registry",
            "the registry answers but lists no applications",
            "launch an application (`ufo desktop launch gnome-calculator`); make sure NO_AT_BRIDGE and GTK_A11Y are not set",
        )),
        Ok(apps) => {
            let names: Vec<String> = apps.iter().filter(|a| a.answering).map(|a| a.name.clone()).collect();
            out.push(Check::ok("registry", format!("{} application(s): {}", apps.len(), names.join(", "))));
            let hung: Vec<String> = apps
                .iter()
                .filter(|a| !a.answering)
                .map(|a| match a.pid {
                    Some(p) => format!("{} (pid {p}{})", a.bus_name, process_name(p).map(|n| format!(", {n}")).unwrap_or_default()),
                    None => a.bus_name.clone(),
                })
                .collect();
            if hung.is_empty() {
                out.push(Check::ok("apps", "every application answers"));
            } else {
                out.push(Check::warn(
                    "apps",
                    format!("{} application(s) do not answer within {} s: {}", hung.len(), bus::PER_APP_TIMEOUT.as_secs(), hung.join(", ")),
                    "the application is busy or hung: wait for it, or end it (`kill PID`); ufo leaves it out of window lists meanwhile",
                ));
            }
        }
        Err(e) => out.push(Check::fail("registry", format!("at-spi2-registryd does not answer: {e}"), a11y_fix)),
    }
}

/// The command name of a process (`/proc/PID/comm`), when readable.
fn process_name(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_owned())
}
