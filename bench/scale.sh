#!/usr/bin/env bash
# bench/scale.sh — F10 of issue 27 measured again: how a run keeps its pace
# as it grows, and what a big state costs.
#
#   bench/scale.sh [PHASES [SECONDS [STATE_MB]]]
#
# 1. A skill of PHASES (default 100000) phases of one bash `true` step
#    (benchgen phases) runs for SECONDS (default 120); every 20 s it
#    prints the steps completed in that window, the sizes of
#    skill-state.yaml, state.json and events.jsonl, and the runner's RSS.
# 2. A skill whose JS step sets a string of STATE_MB (default 200) MB in
#    the state, then runs two more steps: wall time, peak RSS (GNU time)
#    and the sizes of what the run wrote.
#
# It prints a markdown table for bench/RESULTS.md ("Scale"); the machine
# may be shared, so read the per-window pace against itself.
set -euo pipefail
cd "$(dirname "$0")/.."
phases=${1:-100000}
seconds=${2:-120}
state_mb=${3:-200}
tmp=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
say() { echo "scale: $*" >&2; }

go build -o "$tmp/skillkit" ./cmd/skillkit
go build -o "$tmp/benchgen" ./bench/benchgen
sk=$tmp/skillkit

size() { if [ -f "$1" ]; then stat -c %s "$1"; else echo 0; fi; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
completed() { if [ -f "$1" ]; then grep -c '"step":.*"to":"completed"' "$1" || true; else echo 0; fi; }

# ---------------------------------------------------------------- phases
say "writing a skill of $phases phases"
"$tmp/benchgen" phases -n "$phases" -out "$tmp/skills/many"
mkdir -p "$tmp/p1"
(cd "$tmp/p1" && exec "$sk" run "$tmp/skills/many" >/dev/null 2>"$tmp/many.err") &
pid=$!
start=$(date +%s.%N)
echo "| after (s) | steps done | steps in the last 20 s | skill-state.yaml (MB) | state.json (KB) | events.jsonl (MB) | RSS (MB) |"
echo "|---|---|---|---|---|---|---|"
prev=0
for ((t = 20; t <= seconds; t += 20)); do
  sleep 20
  run=$(ls -d "$tmp"/p1/.skillkit/runs/many/*/ 2>/dev/null | head -1 || true)
  if [ -z "$run" ]; then echo "| $t | 0 | 0 | | | | |"; continue; fi
  done_=$(completed "$run/events.jsonl")
  rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || echo "")
  echo "| $t | $done_ | $((done_ - prev)) | $(mb "$(size "$run/skill-state.yaml")") | $(( $(size "$run/state.json") / 1024 )) | $(mb "$(size "$run/events.jsonl")") | $rss |"
  prev=$done_
  kill -0 "$pid" 2>/dev/null || break
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=

# ---------------------------------------------------------------- big state
say "a state of $state_mb MB"
mkdir -p "$tmp/skills/big/phases" "$tmp/p2"
printf -- '---\nname: big\ndescription: Sets a big string in the state, then runs two steps.\n---\n# Big\n' >"$tmp/skills/big/SKILL.md"
printf '# Phase 1: Big\n\n## Execution Steps\n\n### Step 1: Fill\n\n```js\nstate.big = "x".repeat(%d * 1000 * 1000)\n```\n\n### Step 2: Next\n\n```bash\ntrue\n```\n\n### Step 3: Last\n\n```bash\ntrue\n```\n' "$state_mb" >"$tmp/skills/big/phases/01-big.md"
(cd "$tmp/p2" && /usr/bin/time -v "$sk" run "$tmp/skills/big" >/dev/null 2>"$tmp/big.err") || say "the run failed: $(tail -3 "$tmp/big.err")"
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tmp/big.err")
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp/big.err")
run=$(ls -d "$tmp"/p2/.skillkit/runs/big/*/ | head -1)
echo
echo "| state | wall (m:s) | peak RSS (MB) | events.jsonl (MB) | state.json (MB) | skill-state.yaml (KB) | threads/ (MB) |"
echo "|---|---|---|---|---|---|---|"
echo "| $state_mb MB string | $wall | $rss | $(mb "$(size "$run/events.jsonl")") | $(mb "$(size "$run/state.json")") | $(( $(size "$run/skill-state.yaml") / 1024 )) | $(mb "$(du -sb "$run/threads" 2>/dev/null | cut -f1 || echo 0)") |"
