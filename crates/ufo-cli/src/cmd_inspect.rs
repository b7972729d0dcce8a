//! `ufo windows`, `ufo inspect`, `ufo screenshot`, `ufo act`: seeing what an
//! agent would see, and doing what it would do, by hand.

use crate::desktop_conn::{DesktopArgs, WindowArgs, connect, pick_window};
use crate::error::CliError;
use crate::output::outln;
use crate::output::print_json;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use ufo_core::{Command, Diagnostic, ErrorReport, ToolType};
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::encode::{PngCompression, encode_png};
use ufo_desktop::filter::full_json;
use ufo_desktop::observe::{ObserveOptions, observe};
use ufo_desktop::tools::Tool;
use ufo_desktop::tools::{ToolContext, catalog, execute};
use ufo_desktop::{Backend, ScreenshotTarget};

#[derive(Debug, Args)]
pub(crate) struct WindowsArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Print JSON (an array of controls with id, name, type, value, rect, ...).
    #[arg(long)]
    json: bool,
    /// Print the full accessibility tree instead of the filtered controls.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ScreenshotArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Draw the numbered set-of-marks labels.
    #[arg(long)]
    annotate: bool,
    /// The whole screen instead of one window.
    #[arg(long, conflicts_with_all = ["app", "window", "annotate"])]
    full: bool,
    /// Output PNG file.
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct ActArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// List the tools and their arguments instead of acting.
    #[arg(long)]
    list: bool,
    /// The tool, e.g. click_input.
    #[arg(required_unless_present = "list")]
    tool: Option<String>,
    /// The arguments as a JSON object, e.g. '{"id": "3", "name": "7"}'.
    #[arg(long, default_value = "{}")]
    args: String,
    /// The control by its handle, as `ufo inspect --json` printed it: its
    /// `id` (and `name`) in the observation this command makes are filled
    /// in. Ids are numbered afresh by every observation, so an id read from
    /// an earlier `ufo inspect` names another control once the window's
    /// tree has changed (a page still loading); a handle does not.
    #[arg(long)]
    handle: Option<String>,
}

pub(crate) async fn windows(args: WindowsArgs) -> Result<ExitCode, ErrorReport> {
    let b = connect(&args.desktop).await?;
    let list = b.list_windows().await.map_err(|e| e.report())?;
    if args.json {
        print_json(&list)?;
    } else {
        for w in &list {
            let r = w
                .rect
                .map(|r| format!("{}x{}+{}+{}", r.width, r.height, r.x, r.y))
                .unwrap_or_default();
            outln!(
                "{:<10} {:<22} pid {:<7} {:<16} {}{}",
                w.id,
                w.app_name,
                w.pid.map(|p| p.to_string()).unwrap_or_default(),
                r,
                if w.focused { "* " } else { "" },
                quoted(&w.title)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn inspect(args: InspectArgs) -> Result<ExitCode, ErrorReport> {
    let b = connect(&args.desktop).await?;
    let w = pick_window(&b, &args.window).await?;
    // The picked window's controls as a step observes them (no following to
    // a dialog, no screenshot).
    let mut ctx = ToolContext::for_window(w.clone(), Vec::new());
    ctx.pin_window = true;
    let opts = ObserveOptions {
        screenshot: false,
        ui_tree: false,
    };
    let o = observe(&b, &mut ctx, opts).await.map_err(|e| e.report())?;
    let tree = o.tree;
    if tree.truncated {
        eprintln!(
            "warning: the tree was truncated ({})",
            tree.truncation.clone().unwrap_or_default()
        );
    }
    if args.all {
        if args.json {
            print_json(&tree)?;
        } else {
            // Depth first, each node under its parent, as a tree reads.
            for i in depth_first(&tree) {
                let Some(n) = tree.nodes.get(i) else { continue };
                let r = n
                    .rect
                    .map(|r| format!("({},{},{},{})", r.x, r.y, r.width, r.height))
                    .unwrap_or_default();
                outln!(
                    "{}{} {} [{}] {} {}",
                    "  ".repeat(n.depth as usize),
                    n.role,
                    quoted(&n.name),
                    n.states.names().collect::<Vec<_>>().join(","),
                    r,
                    if n.actions.is_empty() {
                        String::new()
                    } else {
                        format!("actions={}", n.actions.join("|"))
                    }
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let controls = o.controls;
    if args.json {
        print_json(&full_json(&controls))?;
    } else {
        outln!(
            "{} ({}): {} controls of {} nodes",
            w.title,
            w.app_name,
            controls.len(),
            tree.nodes.len()
        );
        for c in &controls {
            let v = c
                .value
                .as_deref()
                .map(|v| format!(" = {}", quoted(v)))
                .unwrap_or_default();
            // The state the model is shown with the control, too.
            let st = c
                .visible_state()
                .map(|s| format!(" [{s}]"))
                .unwrap_or_default();
            // A cell's column, as the model is shown it.
            let col = c
                .column
                .as_deref()
                .map(|c| format!(" (column {})", quoted(c)))
                .unwrap_or_default();
            outln!(
                "[{:>3}] {:<12} {}{v}{col}{st}",
                c.id,
                c.control_type.as_str(),
                quoted(&c.name)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `s` in double quotes as a person reads it: quotes, backslashes and
/// control characters escaped, everything printable (no-break spaces,
/// accents, symbols) as it is.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The tree's node indices depth first from the root (parents before their
/// children, children in order); nodes no parent lists come last.
fn depth_first(tree: &ufo_core::UiTree) -> Vec<usize> {
    let n = tree.nodes.len();
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    let roots: Vec<usize> = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| node.parent.is_none())
        .map(|(i, _)| i)
        .collect();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        if i >= n || seen[i] {
            continue;
        }
        seen[i] = true;
        out.push(i);
        stack.extend(tree.nodes[i].children.iter().rev().copied());
    }
    out.extend((0..n).filter(|&i| !seen[i]));
    out
}

pub(crate) async fn screenshot(args: ScreenshotArgs) -> Result<ExitCode, ErrorReport> {
    let b = connect(&args.desktop).await?;
    let png = if args.full {
        let shot = b
            .screenshot(&ScreenshotTarget::Desktop)
            .await
            .map_err(|e| e.report())?;
        encode_png(&shot.image, PngCompression::Default).map_err(|e| e.report())?
    } else {
        let w = pick_window(&b, &args.window).await?;
        if args.annotate {
            let mut ctx = ufo_desktop::tools::ToolContext::for_window(w.clone(), Vec::new());
            ctx.app_window = Some(w);
            let image = ufo_desktop::encode::ModelImage {
                png: PngCompression::Default,
                ..Default::default()
            };
            let mut o = observe(&b, &mut ctx, ObserveOptions::default())
                .await
                .map_err(|e| e.report())?;
            o.model_images(&AnnotationStyle::default(), &image)?
                .marked
                .bytes
        } else {
            let shot = b
                .screenshot(&ScreenshotTarget::Window(w))
                .await
                .map_err(|e| e.report())?;
            encode_png(&shot.image, PngCompression::Default).map_err(|e| e.report())?
        }
    };
    std::fs::write(&args.output, &png).map_err(|e| {
        CliError::Write {
            path: args.output.display().to_string(),
            source: e,
        }
        .report()
    })?;
    eprintln!("wrote {} ({} bytes)", args.output.display(), png.len());
    Ok(ExitCode::SUCCESS)
}

/// Fills `params`' `id` and `name` with those of the control whose handle is
/// `handle` in the observation `ctx` holds.
fn by_handle(
    params: &mut serde_json::Value,
    ctx: &ToolContext,
    handle: &str,
) -> Result<(), ErrorReport> {
    let Some(c) = ctx.controls.iter().find(|c| c.handle.0 == handle) else {
        return Err(CliError::BadOption {
            option: "--handle",
            message: format!(
                "names no control of this observation ({} controls): the control is gone or \
                 no longer listed",
                ctx.controls.len()
            ),
            help: "run `ufo inspect --json` again and take the handle from it",
        }
        .report());
    };
    let Some(obj) = params.as_object_mut() else {
        return Err(CliError::BadOption {
            option: "--args",
            message: "is not a JSON object".into(),
            help: r#"pass a JSON object, e.g. --args '{"text": "hello"}'"#,
        }
        .report());
    };
    obj.insert("id".into(), serde_json::json!(c.id));
    obj.insert("name".into(), serde_json::json!(c.name));
    Ok(())
}

pub(crate) async fn act(args: ActArgs) -> Result<ExitCode, ErrorReport> {
    if args.list {
        for spec in catalog() {
            outln!("{} ({}): {}", spec.name, spec.namespace, spec.description);
            outln!(
                "    args: {}",
                spec.parameters
                    .get("properties")
                    .map(|p| p.to_string())
                    .unwrap_or_default()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let tool = args.tool.clone().unwrap_or_default();
    let params: serde_json::Value = serde_json::from_str(&args.args).map_err(|e| {
        CliError::BadOption {
            option: "--args",
            message: format!("is not JSON: {e}"),
            help: r#"pass a JSON object, e.g. --args '{"id": "3", "name": "7"}'"#,
        }
        .report()
    })?;
    let spec = catalog()
        .into_iter()
        .find(|s| s.name == tool)
        .ok_or_else(|| ufo_desktop::DesktopError::UnknownTool(tool.clone()).report())?;
    let b = connect(&args.desktop).await?;
    let mut ctx = ToolContext::default();
    // Observe first, as an agent would, so ids refer to the labelled controls.
    if spec.namespace == "HostUIExecutor" {
        let r = execute(
            &b,
            &mut ctx,
            &Tool::GetDesktopAppInfo.command(serde_json::json!({})),
        )
        .await;
        if !r.is_success() {
            print_json(&r)?;
            return Ok(ExitCode::FAILURE);
        }
    } else {
        let w = pick_window(&b, &args.window).await?;
        ctx.window = Some(w);
        // `--window` names one window; `--app` follows the application to the
        // dialog it has open.
        ctx.pin_window = args.window.window.is_some();
        let r = execute(
            &b,
            &mut ctx,
            &Tool::GetAppWindowControlsTargetInfo.command(serde_json::json!({})),
        )
        .await;
        if !r.is_success() {
            print_json(&r)?;
            return Ok(ExitCode::FAILURE);
        }
    }
    let mut params = params;
    if let Some(h) = &args.handle {
        by_handle(&mut params, &ctx, h)?;
    }
    let cmd = Command {
        tool_name: tool,
        parameters: params,
        tool_type: spec.tool_type,
        call_id: String::new(),
    };
    let mut result = execute(&b, &mut ctx, &cmd).await;
    if cmd.tool_type == ToolType::DataCollection {
        // Screenshots as data URLs are unreadable on a console; keep the size.
        if let Some(url) = result.result.get_mut("image_url") {
            let n = url.as_str().map_or(0, str::len);
            *url = serde_json::json!(format!("<{n} bytes of data URL>"));
        }
    }
    print_json(&result)?;
    Ok(if result.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_print_as_read() {
        assert_eq!(quoted("4.0\u{a0}KiB"), "\"4.0\u{a0}KiB\"");
        assert_eq!(quoted("a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
        assert_eq!(quoted("\u{1}"), "\"\\u{1}\"");
    }
}
