//! Getters that ask the desktop or an application: the screen and a
//! window's size, the wallpaper, VLC's web interface, the default video
//! player, VS Code's settings files; and the rule getters computed here
//! (`rule_relativeTime`, `time_diff_range`).

use super::files::{copy_out, need};
use super::{GetContext, GetError};
use crate::checkers::Got;
use crate::command::{COMMAND_TIMEOUT, Cmd, run};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The standard output of `words` run on the task's desktop; `None` when
/// it could not run.
async fn output(cx: &GetContext<'_>, words: &[&str]) -> Option<String> {
    let cmd = Cmd::Words(words.iter().map(|w| (*w).to_owned()).collect());
    run(cx.desktop, cx.places, &cmd, COMMAND_TIMEOUT)
        .await
        .ok()
        .map(|o| o.stdout)
}

/// `Width:` and `Height:` of `xwininfo`'s report.
fn xwininfo_size(text: &str) -> Option<(u64, u64)> {
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(k))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some((field("Width:")?, field("Height:")?))
}

/// `vm_screen_size`: `{width, height}` of the desktop's screen (X's root
/// window, as OSWorld's Xlib `width_in_pixels`).
pub(super) async fn screen_size(cx: &GetContext<'_>) -> Got {
    match output(cx, &["xwininfo", "-root"])
        .await
        .as_deref()
        .and_then(xwininfo_size)
    {
        Some((w, h)) => Got::Json(json!({"width": w, "height": h})),
        None => Got::Missing,
    }
}

/// The window ids of `xprop -root _NET_CLIENT_LIST`.
fn client_ids(text: &str) -> Vec<String> {
    text.split_once('#')
        .map(|(_, ids)| {
            ids.split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The strings of `xprop -id W WM_CLASS`: `WM_CLASS(STRING) = "a", "B"`.
fn wm_class(text: &str) -> Vec<String> {
    text.split_once('=')
        .map(|(_, v)| {
            v.split(',')
                .map(|s| s.trim().trim_matches('"').to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `vm_window_size`: `{width, height}` of the first managed window whose
/// `WM_CLASS` names `app_class_name` (any case); nothing when none does.
pub(super) async fn window_size(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let class = need(spec, "app_class_name")?.to_lowercase();
    let Some(list) = output(cx, &["xprop", "-root", "_NET_CLIENT_LIST"]).await else {
        return Ok(Got::Missing);
    };
    for id in client_ids(&list) {
        let Some(c) = output(cx, &["xprop", "-id", &id, "WM_CLASS"]).await else {
            continue;
        };
        if !wm_class(&c).iter().any(|n| n.to_lowercase() == class) {
            continue;
        }
        if let Some((w, h)) = output(cx, &["xwininfo", "-id", &id])
            .await
            .as_deref()
            .and_then(xwininfo_size)
        {
            return Ok(Got::Json(json!({"width": w, "height": h})));
        }
    }
    Ok(Got::Missing)
}

/// `vm_wallpaper`: the file GNOME's `picture-uri` names, copied out as
/// `dest`.
pub(super) async fn wallpaper(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let dest = need(spec, "dest")?;
    let uri = output(
        cx,
        &[
            "gsettings",
            "get",
            "org.gnome.desktop.background",
            "picture-uri",
        ],
    )
    .await;
    let Some(path) = uri.map(|u| u.trim().replace("file://", "").replace('\'', "")) else {
        return Ok(Got::Missing);
    };
    if path.is_empty() {
        return Ok(Got::Missing);
    }
    Ok(copy_out(cx, &path, Some(dest)))
}

/// `vlc_playing_info`: VLC's `status.xml` from its web interface
/// (password `password`, as OSWorld's VM configures it; on the port the
/// task's `vlcrc` names, 8080 on the VM, see [`crate::vm_home`]), saved as
/// `dest`.
pub(super) async fn vlc_status(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let dest = cx.out.join(super::files::dest_name(
        Some(need(spec, "dest")?.to_owned()),
        "".as_ref(),
    ));
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| GetError::Unsupported(format!("vlc_playing_info: no HTTP client: {e}")))?;
    let port = crate::vm_home::vlc_port(&cx.places.work);
    let resp = client
        .get(format!("http://localhost:{port}/requests/status.xml"))
        .basic_auth("", Some("password"))
        .send()
        .await;
    let body = match resp {
        Ok(r) if r.status().is_success() => r.bytes().await.ok(),
        _ => None,
    };
    let _ = std::fs::create_dir_all(cx.out);
    Ok(match body.map(|b| std::fs::write(&dest, b)) {
        Some(Ok(())) => Got::File(dest),
        _ => Got::Missing,
    })
}

/// The most common non-empty answer, the first seen winning a tie
/// (`Counter.most_common(1)`), or `unknown`.
fn most_common(answers: &[String]) -> String {
    let mut counts: Vec<(&String, usize)> = Vec::new();
    for a in answers.iter().filter(|a| !a.is_empty()) {
        match counts.iter_mut().find(|(k, _)| *k == a) {
            Some((_, n)) => *n += 1,
            None => counts.push((a, 1)),
        }
    }
    let best = counts
        .iter()
        .fold(None::<(&String, usize)>, |best, &(k, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((k, n)),
        });
    best.map_or_else(|| "unknown".to_owned(), |(k, _)| k.clone())
}

/// `default_video_player`: the desktop file `xdg-mime` names most often
/// for the video types (with its newline, as OSWorld's command output).
pub(super) async fn default_video_player(cx: &GetContext<'_>) -> Got {
    let mut answers = Vec::new();
    // OSWorld's list names every type twice but `x-ogm+ogg`.
    for t in crate::vm_home::VIDEO_TYPES {
        let mime = format!("video/{t}");
        let twice = !matches!(*t, "x-ogm+ogg");
        let Some(a) = output(cx, &["xdg-mime", "query", "default", &mime]).await else {
            continue;
        };
        answers.push(a.clone());
        if twice {
            answers.push(a);
        }
    }
    Got::Text(most_common(&answers))
}

/// `vscode_config`: OSWorld runs `vscode_extension_command` in VS Code's
/// command palette (Ctrl+Shift+P, the command, Enter) and then copies
/// `path` out as `dest`. VS Code is not installed here (its tasks are
/// `app_missing`); when a VS Code window is open the command runs as
/// OSWorld's does, and the file is read either way.
pub(super) async fn vscode_config(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let command = need(spec, "vscode_extension_command")?;
    let (path, dest) = (need(spec, "path")?, need(spec, "dest")?);
    let windows = cx.backend.list_windows().await.unwrap_or_default();
    if let Some(w) = windows
        .iter()
        .find(|w| w.app_name.to_lowercase().contains("code"))
    {
        let escaped: String = command
            .chars()
            .map(|c| match c {
                '+' | '^' | '%' | '~' | '(' | ')' | '{' | '}' | '[' | ']' => format!("{{{c}}}"),
                c => c.to_string(),
            })
            .collect();
        let keys = ufo_desktop::keyparse::parse_keys(&format!("^+p{escaped}{{ENTER}}"))
            .map_err(|e| GetError::Unsupported(format!("vscode_config: {e}")))?;
        let _ = cx.backend.activate_window(w).await;
        let _ = cx.backend.send_keys(&keys).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(copy_out(cx, path, Some(dest)))
}

/// `time_diff_range`: `diff_range_in_minutes` as it is.
pub(super) fn time_diff_range(spec: &Map<String, Value>) -> Got {
    spec.get("diff_range_in_minutes")
        .cloned()
        .map_or(Got::Missing, Got::Json)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn x_tools_reports_are_read() {
        let root = "xwininfo: Window id: 0x1 (the root window)\n  Width: 1920\n  Height: 1080\n";
        assert_eq!(xwininfo_size(root), Some((1920, 1080)));
        assert_eq!(xwininfo_size("nothing"), None);
        assert_eq!(
            client_ids("_NET_CLIENT_LIST(WINDOW): window id # 0x1200007, 0x1400003\n"),
            vec!["0x1200007", "0x1400003"]
        );
        assert!(client_ids("_NET_CLIENT_LIST:  not found.").is_empty());
        assert_eq!(
            wm_class("WM_CLASS(STRING) = \"gimp\", \"Gimp\"\n"),
            vec!["gimp", "Gimp"]
        );
    }

    #[test]
    fn the_most_common_player_wins_and_ties_go_to_the_first() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(most_common(&s(&["", ""])), "unknown");
        assert_eq!(
            most_common(&s(&["vlc.desktop\n", "totem\n", "totem\n"])),
            "totem\n"
        );
        assert_eq!(most_common(&s(&["vlc\n", "totem\n"])), "vlc\n");
    }
}
