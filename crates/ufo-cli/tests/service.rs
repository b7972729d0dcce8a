//! Service mode as a user runs it: `ufo serve` (the agents) and `ufo client`
//! (a device on a private desktop) as separate processes talking UFO's AIP
//! over a real WebSocket, requests sent with `POST /api/dispatch` or by the
//! device itself, and the effect read back from the application.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::service::{
    KEY, Proc, api, app_finish, click, device, dispatch, host_assign, host_finish, online, result,
    serve, ufo,
};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use ufo_testkit::scripted::{ScriptedModel, reply};
use ufo_testkit::{calculator_display, desktop_env, desktop_with_apps};

/// `ufo serve` refuses, before it listens, a key of a few characters, a
/// device key that is short or is the API key itself, and a certificate it
/// cannot read; each with its code and what to do.
#[test]
fn serve_refuses_weak_keys_and_unreadable_certificates() {
    let run = |key: &str, args: &[&str]| {
        let out = ufo()
            .env("UFO_API_KEY", key)
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run("x", &[]);
    assert!(err.contains("error[ufo::aip::weak_key]"), "{err}");
    assert!(
        err.contains("at least 16") && err.contains("urandom"),
        "{err}"
    );
    let err = run(KEY, &["--device-key", "pc1=short"]);
    assert!(err.contains("error[ufo::aip::bad_device_key]"), "{err}");
    let err = run(KEY, &["--device-key", &format!("pc1={KEY}")]);
    assert!(err.contains("the server's API key"), "{err}");
    let err = run(
        KEY,
        &[
            "--tls-cert",
            "/nonexistent/c.pem",
            "--tls-key",
            "/nonexistent/k.pem",
        ],
    );
    assert!(err.contains("error[ufo::aip::tls]"), "{err}");
    assert!(err.contains("/nonexistent/c.pem"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_and_client_run_dispatched_and_own_requests_on_the_device() {
    let (desktop, backend) = desktop_with_apps("svc-e2e", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![
        // 1. dispatched over REST: HostAgent → AppAgent → HostAgent
        host_assign("gnome-calculator", "Compute 6*7"),
        click("6"),
        click("×"),
        click("7"),
        click("="),
        app_finish("42"),
        host_finish("6*7 = 42"),
        // 2. the device's own task, single-tier (linux_service) on the calculator
        click("+"),
        click("1"),
        click("="),
        app_finish("43"),
    ])
    .await;
    let (_server, addr) = serve(dir.path(), &model, 0);
    let _dev = Proc(device(&addr, "dev1", &env, &[]).spawn().unwrap());
    online(&addr, "dev1").await;

    let sent = dispatch(&addr, json!({"client_id": "dev1", "request": "compute 6*7 in the calculator", "task_name": "calc-1"})).await;
    assert_eq!(sent["status"], "dispatched");
    let r = result(&addr, "calc-1").await;
    assert_eq!(r["status"], "FINISH", "{r}");
    assert_eq!(r["result"], "6*7 = 42");
    assert_eq!(r["steps"], 7);
    // The effect is on the device's desktop.
    assert_eq!(calculator_display(&backend).await, "42");
    // Logs are on the server, in the usual layout, screenshots included
    // (they travelled as data).
    let logs = dir.path().join("logs").join("calc-1");
    let text = std::fs::read_to_string(logs.join("response.log")).unwrap();
    let steps: Vec<ufo_agent::StepRecord> = ufo_agent::read_response_log(&text)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(steps.len(), 7, "{text}");
    assert!(logs.join("action_step2.png").exists());
    let clients = api(&addr, "/api/clients").await;
    assert_eq!(clients["clients"][0]["platform"], "linux");
    assert_eq!(clients["clients"][0]["running_task"], Value::Null);

    // The device sends its own request and waits for TASK_END.
    let own = tokio::task::spawn_blocking({
        let env = env.clone();
        let addr = addr.clone();
        move || {
            device(
                &addr,
                "dev2",
                &env,
                &[
                    "-r",
                    "add 1",
                    "-t",
                    "own-1",
                    "-m",
                    "linux_service",
                    "--app",
                    "gnome-calculator",
                ],
            )
            .output()
            .unwrap()
        }
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&own.stdout);
    assert!(
        own.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&own.stderr)
    );
    assert!(stdout.contains("own-1: FINISH"), "{stdout}");
    assert!(stdout.contains("result: 43"), "{stdout}");
    assert_eq!(calculator_display(&backend).await, "43");
    assert_eq!(result(&addr, "own-1").await["steps"], 4);
    assert_eq!(model.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_killed_mid_task_fails_the_task_and_keeps_its_logs() {
    let (desktop, _backend) = desktop_with_apps("svc-kill", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let pid = Arc::new(AtomicU32::new(0));
    let victim = pid.clone();
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Compute 6*7"),
        // The AppAgent has observed the calculator; now its device dies.
        reply(move |r| {
            let id = r.control_id("6").unwrap();
            let _ = Command::new("kill")
                .args(["-9", &victim.load(Ordering::SeqCst).to_string()])
                .status();
            json!({"observation": "", "thought": "click 6",
                   "action": {"function": "click_input", "arguments": {"id": id, "name": "6"}, "status": "CONTINUE"}})
            .to_string()
        }),
    ])
    .await;
    let (_server, addr) = serve(dir.path(), &model, 0);
    let dev = Proc(device(&addr, "dev1", &env, &[]).spawn().unwrap());
    pid.store(dev.0.id(), Ordering::SeqCst);
    online(&addr, "dev1").await;
    dispatch(
        &addr,
        json!({"client_id": "dev1", "request": "compute 6*7", "task_name": "doomed"}),
    )
    .await;
    let r = result(&addr, "doomed").await;
    assert_ne!(r["status"], "FINISH", "{r}");
    let text = r.to_string();
    assert!(
        text.contains("ufo::aip::device_gone") || text.contains("disconnected"),
        "{r}"
    );
    // What happened up to the loss is on disk.
    let steps = std::fs::read_to_string(dir.path().join("logs/doomed/response.log")).unwrap();
    assert!(ufo_agent::read_response_log(&steps).count() >= 2, "{steps}");
    assert!(steps.contains("device_gone"), "{steps}");
    // And the server lives on.
    assert_eq!(api(&addr, "/api/health").await["status"], "healthy");
    assert_eq!(
        api(&addr, "/api/clients").await["online_clients"],
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_after_a_server_restart_and_keys_are_required() {
    let (desktop, _backend) = desktop_with_apps("svc-restart", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![host_finish("nothing to do")]).await;

    // No key: the server refuses to start; a wrong key: the device is refused.
    let out = ufo()
        .env_remove("UFO_API_KEY")
        .args(["serve", "--port", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::no_api_key"));
    let out = ufo()
        .env_remove("UFO_API_KEY")
        .args([
            "serve",
            "--port",
            "0",
            "--insecure-no-auth",
            "--host",
            "0.0.0.0",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::insecure_not_loopback"));

    let (server, addr) = serve(dir.path(), &model, 0);
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let out = device(&addr, "intruder", &env, &[])
        .env("UFO_API_KEY", "wrong")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::unauthorized"));

    let _dev = Proc(
        device(&addr, "dev1", &env, &["--max-retries", "10"])
            .spawn()
            .unwrap(),
    );
    online(&addr, "dev1").await;
    // A service manager stops the server with SIGTERM: it ends (telling the
    // device), and a new one on the same port gets the device back.
    let mut server = server;
    let stopped = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let start = Instant::now();
    while server.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "ufo serve ignored SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_server, addr) = serve(dir.path(), &model, port);
    online(&addr, "dev1").await;
    dispatch(&addr, json!({"client_id": "dev1", "request": "look at the desktop", "task_name": "after-restart"})).await;
    let r = result(&addr, "after-restart").await;
    assert_eq!(r["status"], "FINISH", "{r}");
    assert_eq!(r["result"], "nothing to do");
}
