#!/usr/bin/env bash
# The perception benchmark, ufo-rs and the pyatspi baseline side by side, in one
# private headless desktop, on gedit, gnome-calculator, gtk3-widget-factory,
# mousepad and LibreOffice Writer. Prints a Markdown table for docs/BENCHMARKS.md.
#
#   scripts/bench/perception.sh [RUNS]        (default 10 runs per app and tool)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-10}"
scripts/bootstrap.sh --bench --release >&2
ufo="$PWD/target/release/ufo"
export UFO_STATE_DIR="$(mktemp -d /tmp/ufo-bench.XXXXXX)"
"$ufo" desktop start --name bench >/dev/null
trap '"$ufo" desktop stop --name bench >&2; rm -rf "$UFO_STATE_DIR"' EXIT
eval "$("$ufo" desktop env --name bench)"

# command line                          | name on the AT-SPI registry
apps=("gedit|gedit"
      "gnome-calculator|gnome-calculator"
      "gtk3-widget-factory|gtk3-widget-factory"
      "mousepad|mousepad"
      "soffice --writer --norestore --nologo|soffice")

echo "| app | nodes (ufo / pyatspi) | controls | ufo tree | filter | screenshot | annotate | encode (fast) | **ufo observation** | pyatspi walk | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for entry in "${apps[@]}"; do
  cmd="${entry%%|*}"; name="${entry##*|}"
  # shellcheck disable=SC2086
  "$ufo" desktop launch --name bench --timeout 90 $cmd >&2
  sleep 1   # let the first window finish its layout
  ufo_json=$("$ufo" bench perception --desktop bench --app "$name" --runs "$runs" --json)
  title=$(printf '%s' "$ufo_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["window"])')
  py_json=$(/usr/bin/python3 scripts/bench/pyatspi_walk.py --app "$name" --window "$title" --runs "$runs" --json)
  UFO_JSON="$ufo_json" PY_JSON="$py_json" /usr/bin/python3 - <<'PY' || status=1
import json, os, sys
u = json.loads(os.environ["UFO_JSON"]); p = json.loads(os.environ["PY_JSON"])
m = u["median_ms"]; speed = p["median_ms"] / m["total"]
ok = speed >= 4.0 and u["nodes"] >= p["nodes"]
print(f"| {u['app']} | {u['nodes']} / {p['nodes']} | {u['controls']} | {m['tree']:.1f} | {m['filter']:.2f} | "
      f"{m['screenshot']:.1f} | {m['annotate']:.1f} | {m['encode']:.1f} | **{m['total']:.1f}** | {p['median_ms']:.1f} | "
      f"{speed:.1f}×{'' if ok else ' (below target)'} |")
sys.exit(0 if ok else 1)
PY
done
echo
echo "Medians in ms over $runs runs each, $(nproc) cores, $(date -u +%Y-%m-%d)."
echo "ufo observation = tree + filter + screenshot + annotate; pyatspi walk = the same window, reading role, name, states, extents and action names per node, with a cold client cache."
exit $status
