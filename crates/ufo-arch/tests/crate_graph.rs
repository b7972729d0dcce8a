//! The crate graph keeps its boundaries: what a device links (the AIP
//! client, the MCP server) carries no agents, models or search index; the
//! vocabulary and the backend contract carry no OS API. Read from
//! `cargo metadata`'s resolved graph (normal, build and dev edges of the
//! crate itself; normal and build edges below it), so a new dependency that
//! breaks a boundary fails here with the path that brought it in.
//!
//! The graph is asked for the two platforms ufo is built for (Linux and
//! Windows): a plain `cargo metadata` wants every package of every target in
//! the local registry (android, wasm, …), which a fresh machine never fetched.
//! Without `--offline`, whatever those two platforms still lack is fetched.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::process::Command;

/// The resolved graph: package name → (dependency name, kinds of the edge).
struct Graph {
    deps: BTreeMap<String, Vec<(String, BTreeSet<String>)>>,
}

fn graph() -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", "x86_64-unknown-linux-gnu"])
        .args(["--filter-platform", "x86_64-pc-windows-gnu"])
        .arg("--manifest-path")
        .arg(root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut deps = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let name = names[node["id"].as_str().unwrap()].to_owned();
        let edges = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let kinds = d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k["kind"].as_str().unwrap_or("normal").to_owned())
                    .collect();
                (names[d["pkg"].as_str().unwrap()].to_owned(), kinds)
            })
            .collect();
        deps.insert(name, edges);
    }
    Graph { deps }
}

impl Graph {
    /// Every crate `root` links, its tests included, with the path to each.
    fn reach(&self, root: &str) -> BTreeMap<String, Vec<String>> {
        assert!(
            self.deps.contains_key(root),
            "{root} is not in the workspace"
        );
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut queue = VecDeque::from([(root.to_owned(), vec![root.to_owned()], true)]);
        while let Some((name, path, is_root)) = queue.pop_front() {
            for (dep, kinds) in self.deps.get(&name).into_iter().flatten() {
                let follows = is_root || kinds.iter().any(|k| k != "dev");
                if !follows || seen.contains_key(dep) {
                    continue;
                }
                let mut p = path.clone();
                p.push(dep.clone());
                seen.insert(dep.clone(), p.clone());
                queue.push_back((dep.clone(), p, false));
            }
        }
        seen
    }

    fn assert_free_of(&self, root: &str, banned: &[&str]) {
        let reach = self.reach(root);
        let found: Vec<String> = banned
            .iter()
            .filter_map(|b| reach.get(*b).map(|p| p.join(" → ")))
            .collect();
        assert!(
            found.is_empty(),
            "{root} must not link these:\n  {}",
            found.join("\n  ")
        );
    }
}

const AGENT_SIDE: &[&str] = &[
    "ufo-agent",
    "ufo-llm",
    "ufo-session",
    "ufo-knowledge",
    "ufo-eval",
    "tantivy",
    "reqwest",
];
const OS_APIS: &[&str] = &["atspi", "zbus", "x11rb", "windows", "ufo-desktop-atspi"];

#[test]
fn a_device_links_no_agents_models_or_index() {
    let g = graph();
    for device_side in ["ufo-aip", "ufo-mcp"] {
        let banned: Vec<&str> = AGENT_SIDE
            .iter()
            .copied()
            // The device's tests talk to servers over HTTP like anyone else.
            .filter(|b| *b != "reqwest")
            .collect();
        g.assert_free_of(device_side, &banned);
    }
}

#[test]
fn the_vocabulary_and_the_contract_know_no_os_or_agent() {
    let g = graph();
    let core: Vec<String> = g
        .reach("ufo-core")
        .into_keys()
        .filter(|n| n.starts_with("ufo-"))
        .collect();
    assert!(core.is_empty(), "ufo-core depends on {core:?}");
    let banned: Vec<&str> = OS_APIS.iter().chain(AGENT_SIDE).copied().collect();
    for contract in ["ufo-core", "ufo-desktop"] {
        let reach = g.reach(contract);
        let found: Vec<String> = banned
            .iter()
            .filter_map(|b| reach.get(*b).map(|p| p.join(" → ")))
            // Tests may read screenshots over a real desktop.
            .filter(|p| !p.contains("ufo-testkit"))
            .collect();
        assert!(found.is_empty(), "{contract} links {found:#?}");
    }
}

#[test]
fn the_agents_do_not_know_the_backend_or_the_transport() {
    let g = graph();
    let banned = [
        "atspi",
        "zbus",
        "x11rb",
        "ufo-desktop-atspi",
        "ufo-aip",
        "ufo-aip-server",
    ];
    for agents in ["ufo-agent", "ufo-llm"] {
        let reach = g.reach(agents);
        let found: Vec<String> = banned
            .iter()
            .filter_map(|b| reach.get(*b).map(|p| p.join(" → ")))
            .filter(|p| !p.contains("ufo-testkit"))
            .collect();
        assert!(found.is_empty(), "{agents} links {found:#?}");
    }
}

#[test]
fn galaxy_links_no_agent_model_or_transport() {
    // Galaxy's data model, editing core and orchestrator: everything above
    // it (the ConstellationAgent, the AIP client, the CLI) may use it, so
    // it links no agent, model, transport or OS API. An async runtime is
    // fine (the orchestrator runs on tokio); devices are reached through a
    // trait the AIP client implements, not through a socket of its own.
    let g = graph();
    let mut banned: Vec<&str> = OS_APIS.iter().chain(AGENT_SIDE).copied().collect();
    banned.extend([
        "ufo-aip",
        "ufo-aip-server",
        "ufo-desktop",
        "ufo-mcp",
        "tokio-tungstenite",
        "hyper",
    ]);
    g.assert_free_of("ufo-galaxy", &banned);
    let ours: Vec<String> = g
        .reach("ufo-galaxy")
        .into_keys()
        .filter(|n| n.starts_with("ufo-"))
        .collect();
    assert_eq!(ours, ["ufo-core"], "ufo-galaxy depends on {ours:?}");
}

#[test]
fn the_reach_follows_a_chain_and_names_it() {
    // The check itself can fail: the CLI links the agents through a path.
    let g = graph();
    let reach = g.reach("ufo-cli");
    let path = reach.get("ufo-agent").expect("ufo-cli links ufo-agent");
    assert_eq!(path.first().map(String::as_str), Some("ufo-cli"));
    assert_eq!(path.last().map(String::as_str), Some("ufo-agent"));
    assert!(reach.contains_key("tantivy"), "{:?}", reach.keys());
}
