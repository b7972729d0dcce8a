//! `ufo record`: records a person's work in an application from AT-SPI events
//! and writes a demonstration that is also a follower plan (`ufo run -m
//! follower -p demo.json` replays it; `ufo knowledge add-demo demo.json`
//! learns from it).
//!
//! Replayable steps: `select_application` first, then in order each press of a
//! button or toggle (`click_input` by name and type) and each edited text
//! control with its final text (`set_edit_text`; consecutive changes to one
//! control are one step). Every event, focus and window changes included, is
//! kept under `events` with a description.

use crate::desktop_conn::DesktopArgs;
use crate::output::outln;
use clap::Args;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use ufo_agent::AgentKind;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::tools::Tool;
use ufo_desktop_atspi::DesktopTarget;
use ufo_desktop_atspi::headless::default_state_root;
use ufo_desktop_atspi::record::{EventKind, EventRecorder, RecordedEvent};
use ufo_session::plan::{Plan, PlanAction, PlanEvent, PlanEventKind};

/// Arguments of `ufo record`.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// The application to record (its accessible name, e.g. mousepad).
    #[arg(long, short = 'a')]
    app: String,
    /// Where to write the demonstration.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// What the person is demonstrating (the plan's request).
    #[arg(long, short = 'r')]
    request: Option<String>,
    /// Stop after this many seconds (default: on Ctrl-C or SIGTERM).
    #[arg(long)]
    duration: Option<f64>,
    #[command(flatten)]
    desktop: DesktopArgs,
}

/// Runs `ufo record`.
pub(crate) async fn run(args: RecordArgs) -> Result<ExitCode, ErrorReport> {
    let root = args
        .desktop
        .state_dir
        .clone()
        .unwrap_or_else(default_state_root);
    let target =
        DesktopTarget::resolve(args.desktop.desktop.as_deref(), &root).map_err(|e| e.report())?;
    let mut rec = EventRecorder::start(&target)
        .await
        .map_err(|e| e.report())?;
    outln!(
        "Recording {}: work in the application, then press Ctrl-C to stop.",
        args.app
    );
    let mut events: Vec<RecordedEvent> = Vec::new();
    let until = async {
        match args.duration {
            Some(s) => tokio::time::sleep(Duration::from_secs_f64(s.max(0.0))).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(until);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let sigterm = async move {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::pin!(sigterm);
    loop {
        tokio::select! {
            e = rec.next(Some(&args.app)) => match e {
                Some(e) => events.push(e),
                None => break,
            },
            _ = tokio::signal::ctrl_c() => break,
            _ = &mut sigterm => break,
            _ = &mut until => break,
        }
    }
    let request = args
        .request
        .clone()
        .unwrap_or_else(|| format!("Demonstration in {}", args.app));
    let demo = demonstration(&request, &args.app, &events);
    let n = demo.actions.as_ref().map_or(0, Vec::len);
    let text = serde_json::to_string_pretty(&demo).unwrap_or_default();
    std::fs::write(&args.output, text).map_err(|e| ErrorReport {
        code: "ufo::cli::io".into(),
        message: format!("cannot write {}: {e}", args.output.display()),
        help: Some("check that the folder exists and is writable".into()),
        causes: Vec::new(),
    })?;
    outln!(
        "Wrote {} ({} events, {} replayable steps). Replay: ufo run -m follower -p {0}; learn: ufo knowledge add-demo {0}",
        args.output.display(),
        events.len(),
        n
    );
    Ok(ExitCode::SUCCESS)
}

fn describe(e: &RecordedEvent) -> String {
    let what = match (e.control_type.as_str(), e.name.as_str()) {
        (t, "") => format!("the {t}"),
        (t, n) => format!("the {t} \"{n}\""),
    };
    match &e.kind {
        EventKind::Focus => format!("focused {what}"),
        EventKind::Press => format!("clicked {what}"),
        EventKind::Text(t) => format!("typed into {what}; it now reads {t:?}"),
        EventKind::WindowActivated => format!("switched to the window \"{}\"", e.name),
        EventKind::WindowCreated => format!("a window opened: \"{}\"", e.name),
    }
}

/// The demonstration of `events`: a follower plan with `request`, `app`,
/// replayable `actions` (each with its `description`) and every event.
pub(crate) fn demonstration(request: &str, app: &str, events: &[RecordedEvent]) -> Plan {
    let step = |agent, action: &str, parameters: Value, description: String| PlanAction {
        agent,
        action: action.to_owned(),
        parameters: match parameters {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        description: Some(description),
    };
    let mut actions = vec![step(
        AgentKind::HostAgent,
        "select_application",
        json!({"app_name": app}),
        format!("opened {app}"),
    )];
    // The step editing a control, while it is the last step.
    let mut editing: Option<String> = None;
    for e in events {
        match &e.kind {
            EventKind::Text(t) => {
                let s = step(
                    AgentKind::AppAgent,
                    Tool::SetEditText.name(),
                    json!({"name": e.name, "control_type": e.control_type, "text": t}),
                    describe(e),
                );
                match (&editing, actions.last_mut()) {
                    (Some(h), Some(last)) if *h == e.handle => *last = s,
                    _ => actions.push(s),
                }
                editing = Some(e.handle.clone());
            }
            EventKind::Press => {
                actions.push(step(
                    AgentKind::AppAgent,
                    Tool::ClickInput.name(),
                    json!({"name": e.name, "control_type": e.control_type}),
                    describe(e),
                ));
                editing = None;
            }
            _ => {}
        }
    }
    let recorded = events
        .iter()
        .map(|e| PlanEvent {
            event: match e.kind {
                EventKind::Focus => PlanEventKind::Focus,
                EventKind::Press => PlanEventKind::Press,
                EventKind::Text(_) => PlanEventKind::Text,
                EventKind::WindowActivated => PlanEventKind::WindowActivate,
                EventKind::WindowCreated => PlanEventKind::WindowCreate,
            },
            name: e.name.clone(),
            control_type: e.control_type.clone(),
            description: describe(e),
        })
        .collect();
    Plan {
        task: Some(request.to_owned()),
        request: Some(request.to_owned()),
        app: Some(app.to_owned()),
        actions: Some(actions),
        events: recorded,
        ..Plan::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ev(kind: EventKind, name: &str, ty: &str, handle: &str) -> RecordedEvent {
        RecordedEvent {
            kind,
            app: "mousepad".into(),
            name: name.into(),
            control_type: ty.into(),
            handle: handle.into(),
        }
    }

    #[test]
    fn text_changes_to_one_control_are_one_step_and_presses_split_them() {
        let t = |s: &str, h: &str| ev(EventKind::Text(s.into()), "", "Edit", h);
        let events = [
            ev(EventKind::WindowActivated, "Untitled 1", "Window", "w"),
            ev(EventKind::Focus, "", "Edit", "a"),
            t("h", "a"),
            t("hi", "a"),
            t("x", "b"),
            t("hi!", "a"),
            ev(EventKind::Press, "Save", "Button", "s"),
            t("hi!!", "a"),
        ];
        let d = demonstration("say hi", "mousepad", &events);
        let actions = d.actions.clone().unwrap();
        let steps: Vec<(&str, &Map<String, Value>)> = actions
            .iter()
            .map(|a| (a.action.as_str(), &a.parameters))
            .collect();
        let texts: Vec<&str> = steps
            .iter()
            .filter(|(a, _)| *a == "set_edit_text")
            .map(|(_, p)| p["text"].as_str().unwrap())
            .collect();
        assert_eq!(steps[0].0, "select_application");
        assert_eq!(actions[0].agent, AgentKind::HostAgent);
        assert_eq!(steps[0].1["app_name"], "mousepad");
        assert_eq!(texts, ["hi", "x", "hi!", "hi!!"]);
        assert_eq!(steps[4].0, "click_input");
        assert_eq!(
            Value::Object(steps[4].1.clone()),
            json!({"name": "Save", "control_type": "Button"})
        );
        assert_eq!(d.events.len(), 8);
        assert_eq!(
            d.events[0].description,
            "switched to the window \"Untitled 1\""
        );
        // The file, as written, is a follower plan that reads back whole.
        let text = serde_json::to_string_pretty(&d).unwrap();
        let plan = Plan::parse(&text).unwrap();
        assert_eq!(plan, d);
        assert_eq!(plan.actions.unwrap().len(), 6);
        assert_eq!(plan.request.as_deref(), Some("say hi"));
    }
}
