//! `ufo bench service`: how many devices one agent server holds, and the
//! round trip of a command batch at that load.
//!
//! The server runs in this process (so its memory is this process's). The
//! devices run in a child process (`ufo bench service-devices`): each is the
//! real device client ([`ufo_aip::client::run`]) over its own WebSocket,
//! registering, sending heartbeats and answering COMMAND frames, with a
//! dispatcher that answers without a desktop. The baseline, in the same run,
//! is the floor under any protocol: a bare WebSocket echo over loopback with
//! the same frame size.

use crate::error::CliError;
use crate::output::{outln, print_json};
use async_trait::async_trait;
use clap::Args;
use futures::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::json;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip::client::{ClientOptions, DispatcherFactory};
use ufo_aip_server::{Limits, Server, ServerOptions};
use ufo_core::{ActionResult, Command, Diagnostic, ErrorReport};

/// Arguments of `ufo bench service`.
#[derive(Debug, Args)]
pub(crate) struct ServiceArgs {
    /// Simulated devices to connect.
    #[arg(long, default_value_t = 1000)]
    devices: usize,
    /// Command batches to time (each one COMMAND → COMMAND_RESULTS).
    #[arg(long, default_value_t = 5000)]
    commands: usize,
    /// Batches in flight at once, on different devices.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of the hidden `ufo bench service-devices` (the child process).
#[derive(Debug, Args)]
pub(crate) struct DevicesArgs {
    /// The server's WebSocket URL.
    #[arg(long)]
    url: String,
    /// How many devices.
    #[arg(long)]
    n: usize,
}

const BENCH_KEY: &str = "bench-key";

/// A device's dispatcher without a desktop: every command succeeds at once.
struct Answering;

#[async_trait]
impl ufo_agent::CommandDispatcher for Answering {
    async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult> {
        commands
            .into_iter()
            .map(|c| ActionResult::success(json!({"tool": c.tool_name})).with_call_id(c.call_id))
            .collect()
    }

    fn describe(&self) -> String {
        "bench".into()
    }
}

/// Lifts the soft open-files limit to the hard one (each device is a socket).
fn raise_open_files() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

/// `VmRSS` and `VmHWM` of this process in KiB.
/// This process's resident memory now and at its peak (`VmRSS`, `VmHWM`),
/// in KiB.
pub(crate) fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

pub(crate) async fn devices(args: DevicesArgs) -> Result<ExitCode, ErrorReport> {
    raise_open_files();
    let factory: DispatcherFactory =
        Arc::new(|| Arc::new(Answering) as Arc<dyn ufo_agent::CommandDispatcher>);
    let mut tasks = Vec::with_capacity(args.n);
    for i in 0..args.n {
        let mut o = ClientOptions::new(&args.url, &format!("bench-{i}"));
        o.api_key = Some(BENCH_KEY.into());
        o.max_retries = 3;
        let f = factory.clone();
        tasks.push(tokio::spawn(ufo_aip::client::run(o, f)));
        // Connect in waves so the accept queue keeps up.
        if i % 100 == 99 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    // Runs until the parent closes our stdin (or kills us).
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut line = String::new();
    let _ = stdin.read_line(&mut line).await;
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Serialize)]
struct Latency {
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

fn latency(mut v: Vec<f64>) -> Latency {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Latency {
        p50_ms: at(0.5),
        p99_ms: at(0.99),
        max_ms: v.last().copied().unwrap_or(0.0),
    }
}

#[derive(Debug, Serialize)]
struct Report {
    devices_asked: usize,
    devices_held: usize,
    connect_s: f64,
    batches: usize,
    failed_batches: usize,
    concurrency: usize,
    throughput_per_s: f64,
    round_trip: Latency,
    round_trip_one_in_flight: Latency,
    baseline_ws_echo: Latency,
    server_rss_idle_kib: u64,
    server_rss_held_kib: u64,
    server_rss_peak_kib: u64,
}

/// The floor: a bare WebSocket echo over loopback, `n` sequential round
/// trips of a frame the size of a COMMAND.
async fn echo_baseline(n: usize, frame: &str) -> Result<Latency, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let server = tokio::spawn(async move {
        let Ok((tcp, _)) = listener.accept().await else {
            return;
        };
        if let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await {
            while let Some(Ok(m)) = ws.next().await {
                if m.is_text() && ws.send(m).await.is_err() {
                    break;
                }
            }
        }
    });
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
        .await
        .map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        ws.send(tokio_tungstenite::tungstenite::Message::Text(frame.into()))
            .await
            .map_err(|e| e.to_string())?;
        let _ = ws.next().await;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    server.abort();
    Ok(latency(times))
}

pub(crate) async fn run(args: ServiceArgs) -> Result<ExitCode, ErrorReport> {
    if args.devices == 0 || args.commands == 0 || args.concurrency == 0 {
        return Err(CliError::BadOption {
            option: "--devices/--commands/--concurrency",
            message: "must be at least 1".into(),
            help: "e.g. --devices 1000 --commands 5000 --concurrency 32",
        }
        .report());
    }
    raise_open_files();
    let limits = Limits {
        max_connections: args.devices + 16,
        frames_per_second: 10_000,
        ..Limits::default()
    };
    let server = Server::new(
        ServerOptions {
            key: ApiKey::required(BENCH_KEY),
            hosts: HostCheck::for_bind([127, 0, 0, 1].into(), &[]),
            limits,
        },
        None,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| {
            ufo_aip::AipError::Bind {
                addr: "127.0.0.1:0".into(),
                message: e.to_string(),
            }
            .report()
        })?;
    let addr = listener.local_addr().map_err(|e| {
        ufo_aip::AipError::Bind {
            addr: "127.0.0.1:0".into(),
            message: e.to_string(),
        }
        .report()
    })?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let srv = server.clone();
    tokio::spawn(async move {
        let _ = srv
            .serve(listener, async {
                let _ = stop_rx.await;
            })
            .await;
    });
    let (rss_idle, _) = memory_kib();

    let exe = std::env::current_exe().map_err(|e| {
        CliError::Read {
            what: "the ufo executable's path".into(),
            message: e.to_string(),
            help: "run ufo from its installed path",
        }
        .report()
    })?;
    let mut child = tokio::process::Command::new(exe)
        .args(["bench", "service-devices", "--url"])
        .arg(format!("ws://{addr}/ws"))
        .arg("--n")
        .arg(args.devices.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            CliError::Read {
                what: "the device process".into(),
                message: e.to_string(),
                help: "check that ufo can start itself",
            }
            .report()
        })?;
    let started = Instant::now();
    let mut held = 0;
    while started.elapsed() < Duration::from_secs(120) {
        held = server.devices().len();
        if held >= args.devices {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let connect_s = started.elapsed().as_secs_f64();
    let ids = server.devices();
    if ids.is_empty() {
        return Err(CliError::BadOption {
            option: "--devices",
            message: "no simulated device could connect".into(),
            help: "check the open-files limit (ulimit -n)",
        }
        .report());
    }

    // Warm-up, then the timed batches, `concurrency` at a time on different devices.
    let ids = Arc::new(ids);
    let batch = || vec![Command::action("wait", json!({"seconds": 0}))];
    let mut timed = Vec::with_capacity(args.commands);
    let mut failed = 0;
    let t0 = Instant::now();
    let mut next = 0usize;
    while next < args.commands {
        let wave: Vec<_> = (next..(next + args.concurrency).min(args.commands))
            .map(|i| {
                let d = server.dispatcher(&ids[i % ids.len()]);
                let cmds = batch();
                tokio::spawn(async move {
                    let d = d?;
                    let t = Instant::now();
                    let r = ufo_agent::CommandDispatcher::execute(&d, cmds).await;
                    let ok = r.iter().all(ActionResult::is_success);
                    Some((t.elapsed().as_secs_f64() * 1000.0, ok))
                })
            })
            .collect();
        next += wave.len();
        for h in wave {
            match h.await.ok().flatten() {
                Some((ms, true)) => timed.push(ms),
                _ => failed += 1,
            }
        }
    }
    let throughput = args.commands as f64 / t0.elapsed().as_secs_f64();
    // One batch at a time, comparable with the echo baseline.
    let mut sequential = Vec::new();
    for i in 0..args.commands.min(2000) {
        if let Some(d) = server.dispatcher(&ids[i % ids.len()]) {
            let t = Instant::now();
            let r = ufo_agent::CommandDispatcher::execute(&d, batch()).await;
            match r.iter().all(ActionResult::is_success) {
                true => sequential.push(t.elapsed().as_secs_f64() * 1000.0),
                false => failed += 1,
            }
        }
    }
    let (rss_held, rss_peak) = memory_kib();
    let sample = serde_json::to_string(&json!({
        "type": "command", "status": "continue", "actions": [Command::action("wait", json!({"seconds": 0}))],
        "session_id": "00000000-0000-0000-0000-000000000000", "task_name": "direct",
        "response_id": "00000000-0000-0000-0000-000000000000", "timestamp": "2026-01-01T00:00:00Z"
    }))
    .unwrap_or_default();
    let baseline = echo_baseline(args.commands.min(5000), &sample)
        .await
        .map_err(|e| {
            CliError::Read {
                what: "the echo baseline".into(),
                message: e,
                help: "rerun; loopback sockets must be available",
            }
            .report()
        })?;
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    let _ = stop_tx.send(());

    let report = Report {
        devices_asked: args.devices,
        devices_held: held,
        connect_s,
        batches: args.commands,
        failed_batches: failed,
        concurrency: args.concurrency,
        throughput_per_s: throughput,
        round_trip: latency(timed),
        round_trip_one_in_flight: latency(sequential),
        baseline_ws_echo: baseline,
        server_rss_idle_kib: rss_idle,
        server_rss_held_kib: rss_held,
        server_rss_peak_kib: rss_peak,
    };
    if args.json {
        print_json(&report)?;
    } else {
        outln!(
            "devices held: {}/{} (connected in {:.1} s)",
            report.devices_held,
            report.devices_asked,
            report.connect_s
        );
        outln!(
            "command round trip ({} batches, {} in flight, {} failed): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {:.0} batches/s",
            report.batches,
            report.concurrency,
            report.failed_batches,
            report.round_trip.p50_ms,
            report.round_trip.p99_ms,
            report.round_trip.max_ms,
            report.throughput_per_s
        );
        outln!(
            "one batch in flight: p50 {:.3} ms, p99 {:.3} ms; baseline (bare WebSocket echo, same frame size): p50 {:.3} ms, p99 {:.3} ms",
            report.round_trip_one_in_flight.p50_ms,
            report.round_trip_one_in_flight.p99_ms,
            report.baseline_ws_echo.p50_ms,
            report.baseline_ws_echo.p99_ms
        );
        outln!(
            "server RSS: {:.1} MiB idle, {:.1} MiB holding the devices, peak {:.1} MiB ({:.1} KiB per device)",
            rss_idle as f64 / 1024.0,
            rss_held as f64 / 1024.0,
            rss_peak as f64 / 1024.0,
            (rss_held.saturating_sub(rss_idle)) as f64 / held.max(1) as f64
        );
    }
    Ok(match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}
