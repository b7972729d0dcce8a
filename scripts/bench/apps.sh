#!/usr/bin/env bash
# Observing the applications people use: LibreOffice Calc and Writer, Firefox
# (a local form), gnome-text-editor (GTK 4) and FeatherPad (Qt 5). Per
# application, `ufo bench perception` next to a pyatspi walk of the same window
# in the same desktop; for Calc also LibreOffice's memory after the same number
# of observations by each. Prints Markdown tables for docs/BENCHMARKS.md.
#
#   scripts/bench/apps.sh [RUNS]        (default 10 runs per app and tool)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-10}"
scripts/bootstrap.sh --release >&2
ufo="$PWD/target/release/ufo"
work="$(mktemp -d /tmp/ufo-bench-apps.XXXXXX)"
export UFO_STATE_DIR="$work/state"
"$ufo" desktop start --name apps >/dev/null
trap '"$ufo" desktop stop --name apps >&2; rm -rf "$work"' EXIT
eval "$("$ufo" desktop env --name apps)"

# The fixture tree the tests and `ufo bench apps` use: a LibreOffice profile
# without the tip of the day, a Firefox profile without first-run pages, and
# the form Firefox shows.
cp -r crates/ufo-testkit/fixtures/apps/. "$work/"
lo="-env:UserInstallation=file://$work/lo-profile"

# command | registry name | window title (part) | pyatspi --managed
apps=("soffice $lo --calc --norestore --nologo|soffice|LibreOffice Calc|skip"
      "soffice $lo --writer --norestore --nologo|soffice|LibreOffice Writer|skip"
      "firefox-esr --new-instance --no-remote --profile $work/ffprofile file://$work/form.html|Firefox|Signup|skip"
      "gnome-text-editor --standalone|gnome-text-editor||skip"
      "featherpad|FeatherPad||skip")

rss() { ps -o rss= -C soffice.bin | head -1 | tr -d ' '; }

echo "| app | nodes (ufo / pyatspi) | controls | ufo tree | filter | screenshot | annotate | **ufo observation** | pyatspi walk |"
echo "|---|---|---|---|---|---|---|---|---|"
calc_mem=""
for entry in "${apps[@]}"; do
  IFS='|' read -r cmd name title managed <<<"$entry"
  # shellcheck disable=SC2086
  "$ufo" desktop launch --name apps --timeout 120 $cmd >&2
  sleep 3   # let the first window finish its layout (Firefox loads the page)
  if [ -n "$title" ]; then sel=(--window "$title"); else sel=(--app "$name"); fi
  before=$(rss || true)
  ufo_json=$("$ufo" bench perception --desktop apps "${sel[@]}" --runs "$runs" --json)
  after_ufo=$(rss || true)
  window=$(printf '%s' "$ufo_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["window"])')
  py_json=$(/usr/bin/python3 scripts/bench/pyatspi_walk.py --app "$name" --window "$window" --runs "$runs" --managed "$managed" --json)
  if [ "$title" = "LibreOffice Calc" ]; then
    /usr/bin/python3 scripts/bench/pyatspi_walk.py --app "$name" --window "$window" --runs "$runs" --managed cells --json >/dev/null
    after_py=$(rss)
    calc_mem="| LibreOffice Calc | $before | $after_ufo (+$(( (after_ufo - before) / 1024 )) MiB) | $after_py (+$(( (after_py - after_ufo) / 1024 )) MiB) |"
  fi
  UFO_JSON="$ufo_json" PY_JSON="$py_json" /usr/bin/python3 - <<'PY'
import json, os
u = json.loads(os.environ["UFO_JSON"]); p = json.loads(os.environ["PY_JSON"])
m = u["median_ms"]
print(f"| {u['window']} | {u['nodes']} / {p['nodes']} | {u['controls']} | {m['tree']:.1f} | {m['filter']:.2f} | "
      f"{m['screenshot']:.1f} | {m['annotate']:.1f} | **{m['total']:.1f}** | {p['median_ms']:.1f} |")
PY
done
echo
echo "Medians in ms over $runs runs each (after one warm-up), $(nproc) cores, $(date -u +%Y-%m-%d)."
echo "pyatspi walk = the same window, reading role, name, states, extents and action names per node, cold client cache, skipping containers that manage their descendants (a plain walk of a Calc sheet never ends)."
echo
echo "| soffice RSS (KiB) | at start | after ufo: $((runs + 1)) observations | after pyatspi: $((runs + 1)) walks reading the visible cells afresh |"
echo "|---|---|---|---|"
echo "$calc_mem"
