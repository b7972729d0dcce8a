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

use crate::error::{BenchError, bad, current_exe};
use crate::memory_kib;
use async_trait::async_trait;
use futures::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::json;
use std::fmt;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip::client::{ClientOptions, DispatcherFactory};
use ufo_aip_server::{Limits, Server, ServerOptions};
use ufo_core::{ActionResult, Command, Diagnostic, ErrorReport};
use ufo_desktop::tools::Tool;

/// What `ufo bench service` is asked.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// Simulated devices to connect.
    pub devices: usize,
    /// Command batches to time (each one COMMAND → COMMAND_RESULTS).
    pub commands: usize,
    /// Batches in flight at once, on different devices.
    pub concurrency: usize,
}

const BENCH_KEY: &str = "bench-key";

/// A device's dispatcher without a desktop: every command succeeds at once.
struct Answering;

#[async_trait]
impl ufo_desktop::dispatch::CommandDispatcher for Answering {
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

/// The simulated devices (the hidden `ufo bench service-devices`, started
/// by [`run`]): `n` device clients connected to `url`, until stdin closes.
pub async fn devices(url: &str, n: usize) {
    raise_open_files();
    let factory: DispatcherFactory =
        Arc::new(|| Arc::new(Answering) as Arc<dyn ufo_desktop::dispatch::CommandDispatcher>);
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let mut o = ClientOptions::new(url, &format!("bench-{i}"));
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
}

/// Round-trip percentiles in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Slowest.
    pub max_ms: f64,
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

/// The report of `ufo bench service` (its `--json` shape).
#[derive(Debug, Clone, Serialize)]
pub struct ServiceReport {
    /// Devices asked for.
    pub devices_asked: usize,
    /// Devices the server held.
    pub devices_held: usize,
    /// Seconds until they were connected.
    pub connect_s: f64,
    /// Batches timed.
    pub batches: usize,
    /// Batches that failed (the command exits non-zero when any did).
    pub failed_batches: usize,
    /// Batches in flight at once.
    pub concurrency: usize,
    /// Batches per second.
    pub throughput_per_s: f64,
    /// Round trips with `concurrency` in flight.
    pub round_trip: Latency,
    /// Round trips one at a time.
    pub round_trip_one_in_flight: Latency,
    /// The baseline: a bare WebSocket echo of the same frame size.
    pub baseline_ws_echo: Latency,
    /// The server's RSS before the devices connected (KiB).
    pub server_rss_idle_kib: u64,
    /// Its RSS holding them (KiB).
    pub server_rss_held_kib: u64,
    /// Its peak RSS (KiB).
    pub server_rss_peak_kib: u64,
}

/// The floor: a bare WebSocket echo over loopback, `n` sequential round
/// trips of a frame the size of a COMMAND.
async fn echo_baseline(n: usize, frame: &str) -> Result<Latency, ufo_core::BoxError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
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
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/")).await?;
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        ws.send(tokio_tungstenite::tungstenite::Message::Text(frame.into()))
            .await?;
        let _ = ws.next().await;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    server.abort();
    Ok(latency(times))
}

/// One command batch: a `wait` of nothing.
fn batch() -> Vec<Command> {
    vec![Tool::Wait.command(json!({"seconds": 0}))]
}

/// The agent server on a loopback port, with room for `devices`; its
/// address and the sender that stops it.
async fn start_server(
    devices: usize,
) -> Result<
    (
        Server,
        std::net::SocketAddr,
        tokio::sync::oneshot::Sender<()>,
    ),
    ErrorReport,
> {
    let limits = Limits {
        max_connections: devices + 16,
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
                source: e,
            }
            .report()
        })?;
    let addr = listener.local_addr().map_err(|e| {
        ufo_aip::AipError::Bind {
            addr: "127.0.0.1:0".into(),
            source: e,
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
    Ok((server, addr, stop_tx))
}

/// `commands` batches, `concurrency` at a time on different devices: the
/// round trips of those that succeeded, batches per second, and failures.
async fn time_batches(
    server: &Server,
    ids: &Arc<Vec<String>>,
    commands: usize,
    concurrency: usize,
) -> (Vec<f64>, f64, usize) {
    let mut timed = Vec::with_capacity(commands);
    let mut failed = 0;
    let t0 = Instant::now();
    let mut next = 0usize;
    while next < commands {
        let wave: Vec<_> = (next..(next + concurrency).min(commands))
            .map(|i| {
                let d = server.dispatcher(&ids[i % ids.len()]);
                let cmds = batch();
                tokio::spawn(async move {
                    let d = d?;
                    let t = Instant::now();
                    let r = ufo_desktop::dispatch::CommandDispatcher::execute(&d, cmds).await;
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
    (timed, commands as f64 / t0.elapsed().as_secs_f64(), failed)
}

/// Serves the agents in this process, connects `opts.devices` simulated
/// devices from a child process and times command batches, then the echo
/// baseline.
pub async fn run(opts: &ServiceOptions) -> Result<ServiceReport, ErrorReport> {
    let args = opts;
    if args.devices == 0 || args.commands == 0 || args.concurrency == 0 {
        return Err(bad(
            "--devices/--commands/--concurrency",
            "must be at least 1".into(),
            "e.g. --devices 1000 --commands 5000 --concurrency 32",
        ));
    }
    raise_open_files();
    let (server, addr, stop_tx) = start_server(args.devices).await?;
    let (rss_idle, _) = memory_kib();

    let exe = current_exe()?;
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
            BenchError::Read {
                what: "the device process".into(),
                message: e.to_string(),
                source: Some(e.into()),
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
        return Err(bad(
            "--devices",
            "no simulated device could connect".into(),
            "check the open-files limit (ulimit -n)",
        ));
    }

    let ids = Arc::new(ids);
    let (timed, throughput, mut failed) =
        time_batches(&server, &ids, args.commands, args.concurrency).await;
    // One batch at a time, comparable with the echo baseline.
    let mut sequential = Vec::new();
    for i in 0..args.commands.min(2000) {
        if let Some(d) = server.dispatcher(&ids[i % ids.len()]) {
            let t = Instant::now();
            let r = ufo_desktop::dispatch::CommandDispatcher::execute(&d, batch()).await;
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
            BenchError::Read {
                what: "the echo baseline".into(),
                message: e.to_string(),
                source: Some(e),
                help: "rerun; loopback sockets must be available",
            }
            .report()
        })?;
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    let _ = stop_tx.send(());

    Ok(ServiceReport {
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
    })
}

impl fmt::Display for ServiceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "devices held: {}/{} (connected in {:.1} s)",
            r.devices_held, r.devices_asked, r.connect_s
        )?;
        writeln!(
            f,
            "command round trip ({} batches, {} in flight, {} failed): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {:.0} batches/s",
            r.batches,
            r.concurrency,
            r.failed_batches,
            r.round_trip.p50_ms,
            r.round_trip.p99_ms,
            r.round_trip.max_ms,
            r.throughput_per_s
        )?;
        writeln!(
            f,
            "one batch in flight: p50 {:.3} ms, p99 {:.3} ms; baseline (bare WebSocket echo, same frame size): p50 {:.3} ms, p99 {:.3} ms",
            r.round_trip_one_in_flight.p50_ms,
            r.round_trip_one_in_flight.p99_ms,
            r.baseline_ws_echo.p50_ms,
            r.baseline_ws_echo.p99_ms
        )?;
        write!(
            f,
            "server RSS: {:.1} MiB idle, {:.1} MiB holding the devices, peak {:.1} MiB ({:.1} KiB per device)",
            r.server_rss_idle_kib as f64 / 1024.0,
            r.server_rss_held_kib as f64 / 1024.0,
            r.server_rss_peak_kib as f64 / 1024.0,
            (r.server_rss_held_kib.saturating_sub(r.server_rss_idle_kib)) as f64
                / r.devices_held.max(1) as f64
        )
    }
}
