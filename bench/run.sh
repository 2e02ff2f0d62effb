#!/usr/bin/env bash
# bench/run.sh — skillkit measured against what users would pick instead,
# in one invocation, on the same files. Writes bench/RESULTS.md.
#
#   bench/run.sh          the full run: peers from npm, go-task from the Go
#                         module proxy, the corpus at 1x and 20x (minutes)
#   bench/run.sh -short   a smoke test on one skill, no registry, a few
#                         seconds; CI runs it so this script cannot rot. It
#                         prints its results and leaves RESULTS.md alone.
#
# Environment: CORPUS (default ../shared/corpus), RUNS (hyperfine runs at
# 1x, default 10), RUNS20 (at 20x, default 3), COPIES (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

short=0
case "${1:-}" in
  -short|--short) short=1 ;;
  "") ;;
  *) echo "usage: bench/run.sh [-short]" >&2; exit 2 ;;
esac

corpus=${CORPUS:-$repo/../shared/corpus}
runs=${RUNS:-10}
runs20=${RUNS20:-3}
copies=${COPIES:-20}
if [ "$short" = 1 ]; then runs=2; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bin
mkdir -p "$bin" "$tmp/reports" "$tmp/logs"
say() { echo "bench: $*" >&2; }

# ---------------------------------------------------------------- tools
say "building skillkit, parsefloor, appendfloor, benchgen"
go build -o "$bin/skillkit" ./cmd/skillkit
go build -o "$bin/parsefloor" ./bench/parsefloor
go build -o "$bin/appendfloor" ./bench/appendfloor
go build -o "$bin/benchgen" ./bench/benchgen
sk=$bin/skillkit
gen=$bin/benchgen

is_root() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_install() {
  is_root || return 1
  if [ -z "${apt_updated:-}" ]; then apt-get update -qq >/dev/null 2>&1 || true; apt_updated=1; fi
  apt-get install -y -qq "$@" >/dev/null 2>&1
}
command -v hyperfine >/dev/null 2>&1 || apt_install hyperfine || say "no hyperfine: timing with a repeat loop"
[ -x /usr/bin/time ] || apt_install time || say "no /usr/bin/time: peak memory not measured"
if [ "$short" = 0 ]; then
  command -v strace >/dev/null 2>&1 || apt_install strace || say "no strace: files read not measured"
fi

has_lint=0; "$sk" lint --help >/dev/null 2>&1 && has_lint=1
has_loop=0; "$sk" run --help 2>/dev/null | grep -q -- '--max-iterations' && has_loop=1

# ---------------------------------------------------------------- measuring
# time_cmd NAME RUNS CMD: mean and standard deviation of CMD's wall time in
# seconds, into $tmp/logs/NAME.time. CMD runs in the current directory.
time_cmd() {
  local name=$1 n=$2 cmd=$3
  if [ "$n" -le 1 ] && [ -x /usr/bin/time ]; then
    # One run of a slow tool: its wall time and peak memory together.
    /usr/bin/time -v -o "$tmp/logs/$name.tv" bash -c "$cmd" >/dev/null 2>&1 || true
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.6f 0\n", s}' "$tmp/logs/$name.tv" >"$tmp/logs/$name.time"
    awk -F': ' '/Maximum resident set size/ {printf "%.1f\n", $2/1024}' "$tmp/logs/$name.tv" >"$tmp/logs/$name.rss"
    return
  fi
  if command -v hyperfine >/dev/null 2>&1; then
    local warm=1
    if [ "$n" -le 1 ]; then warm=0; fi
    hyperfine --style none --ignore-failure --warmup "$warm" --runs "$n" \
      --export-json "$tmp/logs/$name.json" "$cmd" >"$tmp/logs/$name.hf" 2>&1 \
      || { cat "$tmp/logs/$name.hf" >&2; return 1; }
    "$gen" hyperfine "$tmp/logs/$name.json" >"$tmp/logs/$name.time"
  else
    local i t0 t1 ts=()
    for ((i = 0; i < n; i++)); do
      t0=$(date +%s%N); bash -c "$cmd" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      ts+=("$(( t1 - t0 ))")
    done
    printf '%s\n' "${ts[@]}" | awk '{s+=$1; q+=$1*$1} END {m=s/NR; v=q/NR-m*m; if (v<0) v=0; printf "%.6f %.6f\n", m/1e9, sqrt(v)/1e9}' >"$tmp/logs/$name.time"
  fi
}

# rss_cmd NAME CMD: peak resident memory in MB of CMD (the largest single
# process, as getrusage reports it), into $tmp/logs/NAME.rss.
rss_cmd() {
  local name=$1 cmd=$2
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$tmp/logs/$name.tv" bash -c "$cmd" >/dev/null 2>&1 || true
    awk -F': ' '/Maximum resident set size/ {printf "%.1f\n", $2/1024}' "$tmp/logs/$name.tv" >"$tmp/logs/$name.rss"
  else
    echo "n/a" >"$tmp/logs/$name.rss"
  fi
}

# files_cmd NAME ROOT CMD: how many of the markdown files under ROOT the
# command opened (strace), into $tmp/logs/NAME.files.
files_cmd() {
  local name=$1 root=$2 cmd=$3
  if command -v strace >/dev/null 2>&1; then
    strace -f -qq -e trace=open,openat -o "$tmp/logs/$name.strace" bash -c "$cmd" >/dev/null 2>&1 || true
    grep -v ENOENT "$tmp/logs/$name.strace" | grep -o '"[^"]*\.md"' | tr -d '"' \
      | sed -e "s#^$root/##" -e 's#^\./##' | grep '^\.claude/skills/' | sort -u | wc -l >"$tmp/logs/$name.files"
  else
    echo "n/a" >"$tmp/logs/$name.files"
  fi
}

val() { cat "$tmp/logs/$1" 2>/dev/null || echo "n/a"; }
mean() { val "$1.time" | awk '{print $1}'; }
sd() { val "$1.time" | awk '{print $2}'; }
fmt_ms() { awk -v s="$1" 'BEGIN { if (s == "" || s == "n/a") print "n/a"; else printf "%.0f", s*1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "n/a" || b == "n/a" || b+0 == 0) print "n/a"; else printf "%.2f", a/b }'; }

# ---------------------------------------------------------------- corpora
stage1=$tmp/c1
stage20=$tmp/c20
if [ "$short" = 1 ]; then
  if [ -d "$corpus" ]; then
    "$gen" stage -from "$corpus" -limit 1 -out "$stage1" >/dev/null
  else
    "$gen" stage -from "$repo/examples" -limit 1 -out "$stage1" >/dev/null
  fi
  sizes="1"
else
  [ -d "$corpus" ] || { echo "bench: corpus $corpus not found (set CORPUS)" >&2; exit 2; }
  "$gen" stage -from "$corpus" -out "$stage1" >/dev/null
  "$gen" stage -from "$corpus" -copies "$copies" -out "$stage20" >/dev/null
  sizes="1 20"
fi

describe() { # skills, markdown files, MB of markdown under a staged corpus
  local d=$1/.claude/skills
  local s m b
  s=$(find "$d" -mindepth 1 -maxdepth 1 -type d | wc -l)
  m=$(find "$d" -type f -name '*.md' | wc -l)
  b=$(find "$d" -type f -name '*.md' -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1048576}')
  echo "$s skills, $m markdown files, $b MB of markdown"
}

# ---------------------------------------------------------------- peers
npmdir=$tmp/npm
peers=()
if [ "$short" = 0 ]; then
  say "installing peers from npm into $npmdir"
  npm install --prefix "$npmdir" --no-audit --no-fund --loglevel=error \
    skill-check claude-code-lint skills-ref markdownlint-cli2 >"$tmp/logs/npm.log" 2>&1 \
    || { cat "$tmp/logs/npm.log" >&2; exit 1; }
  peers=(skill-check claudelint skills-ref markdownlint)
  if [ "$has_lint" = 1 ]; then peers=(skill-check claudelint claudelint-ign skills-ref markdownlint); fi
fi
nb=$npmdir/node_modules/.bin
jobs=$(nproc)

# tool_cmd TOOL REPORT: the shell command that lints .claude/skills of the
# current directory and writes TOOL's report to REPORT.
tool_cmd() {
  local rep=$2 size=${3:-1}
  case $1 in
    skillkit) echo "$sk lint --format json .claude/skills > $rep" ;;
    floor) echo "$bin/parsefloor .claude/skills > $rep" ;;
    floor1) echo "$bin/parsefloor -j 1 .claude/skills > $rep" ;;
    # The security scan is off: it runs an external scanner (uvx/pipx).
    # JSON goes to a file: written to a pipe it is truncated.
    skill-check) echo "$nb/skill-check check .claude/skills --format json --no-security-scan > $rep" ;;
    claudelint) echo "$nb/claudelint check-all --no-cache --no-config --format json -o $rep > /dev/null" ;;
    # claudelint's skill validator gives up at the first skill whose front
    # matter it cannot parse: this row ignores those (found by skillkit).
    claudelint-ign) echo "cp $tmp/reports/ignore-$size .claudelintignore; $nb/claudelint check-all --no-cache --no-config --format json -o $rep > /dev/null; rm -f .claudelintignore" ;;
    # One skill per call, as many calls at once as skillkit uses CPUs.
    skills-ref) echo "ls -d .claude/skills/*/ | xargs -P $jobs -n 1 $nb/skills-ref validate > $rep 2>&1" ;;
    markdownlint) echo "$nb/markdownlint-cli2 '.claude/skills/**/*.md' > $rep 2>&1" ;;
  esac
}

lint_tools=()
if [ "$has_lint" = 1 ]; then lint_tools+=(skillkit); fi
lint_tools+=(floor floor1)
lint_tools+=("${peers[@]}")

for size in $sizes; do
  dir=$tmp/c$size
  n=$runs
  if [ "$size" != 1 ]; then n=$runs20; fi
  cd "$dir"
  for t in "${lint_tools[@]}"; do
    say "lint ${size}x: $t"
    rep=$tmp/reports/$t-$size.out
    cmd=$(tool_cmd "$t" "$rep" "$size")
    tn=$n
    # skills-ref starts node once per skill and markdownlint-cli2 takes
    # seconds per 1x: at 20x one run of each takes minutes.
    case $t in
      skills-ref|markdownlint) if [ "$size" = 1 ]; then tn=$(( n < 3 ? n : 3 )); else tn=1; fi ;;
    esac
    time_cmd "$t-$size" "$tn" "$cmd"
    if [ "$tn" -gt 1 ]; then rss_cmd "$t-$size" "$cmd"; fi
    if [ "$size" = 1 ] && [ "$short" = 0 ]; then files_cmd "$t-$size" "$dir" "$cmd"; fi
    case $t in
      floor|floor1) echo "-" >"$tmp/logs/$t-$size.count" ;;
      claudelint-ign) "$gen" count claudelint "$rep" >"$tmp/logs/$t-$size.count" ;;
      *) "$gen" count "$t" "$rep" >"$tmp/logs/$t-$size.count" ;;
    esac
    if [ "$t" = skillkit ]; then "$gen" unparsable "$rep" >"$tmp/reports/ignore-$size"; fi
  done
  cd "$repo"
done

# syncs_cmd NAME CMD: how many fsync/fdatasync calls CMD made (strace),
# into $tmp/logs/NAME.syncs.
syncs_cmd() {
  local name=$1 cmd=$2
  if command -v strace >/dev/null 2>&1; then
    strace -f -qq -c -e trace=fsync,fdatasync -o "$tmp/logs/$name.sc" bash -c "$cmd" >/dev/null 2>&1 || true
    awk '$NF == "fsync" || $NF == "fdatasync" {n += $4} END {print n + 0}' "$tmp/logs/$name.sc" >"$tmp/logs/$name.syncs"
  else
    echo "n/a" >"$tmp/logs/$name.syncs"
  fi
}

# ---------------------------------------------------------------- runners
rundir=$tmp/runs
mkdir -p "$rundir"
nphases=100
if [ "$short" = 1 ]; then nphases=5; fi
"$gen" phases -n "$nphases" -out "$rundir/seq$nphases"
cd "$rundir"
# The floor: one durable append per operation, on the same disk, as many
# as the runs below make operations.
say "run: durable-append floor"
time_cmd "floor-phases" "$runs" "$bin/appendfloor -n $nphases -dir $rundir"
syncs_cmd "run-skillkit" "$sk run $rundir/seq$nphases > /dev/null"
say "run: skillkit, $nphases phases"
time_cmd "run-skillkit" "$runs" "$sk run $rundir/seq$nphases > /dev/null"
rss_cmd "run-skillkit" "$sk run $rundir/seq$nphases > /dev/null"
# A run that did not complete would time an early exit: check one.
"$sk" run "$rundir/seq$nphases" >"$tmp/logs/run-check.out" 2>&1 || { cat "$tmp/logs/run-check.out" >&2; exit 1; }
has_task=0
if [ "$short" = 0 ]; then
  say "installing go-task"
  # @latest first; v3.50.0 when a dependency of the newest release is not
  # served by the module proxy this machine reaches.
  if GOBIN=$tmp/gobin go install github.com/go-task/task/v3/cmd/task@latest >"$tmp/logs/task-install.log" 2>&1 ||
     GOBIN=$tmp/gobin go install github.com/go-task/task/v3/cmd/task@v3.50.0 >>"$tmp/logs/task-install.log" 2>&1; then
    has_task=1
    "$gen" taskfile -n "$nphases" -out "$rundir/task/Taskfile.yml"
    say "run: go-task, $nphases tasks"
    time_cmd "run-task" "$runs" "$tmp/gobin/task --silent -d $rundir/task"
    rss_cmd "run-task" "$tmp/gobin/task --silent -d $rundir/task"
  else
    say "go-task did not install: $(tail -1 "$tmp/logs/task-install.log")"
  fi
fi
if [ "$has_loop" = 1 ]; then
  niter=1000
  if [ "$short" = 1 ]; then niter=20; fi
  "$gen" loop -n "$niter" -out "$rundir/loop$niter"
  say "run: orchestrator loop, $niter iterations"
  "$sk" run "$rundir/loop$niter" --max-iterations "$niter" >"$tmp/logs/loop-check.out" 2>&1 || { cat "$tmp/logs/loop-check.out" >&2; exit 1; }
  time_cmd "floor-loop" "$runs" "$bin/appendfloor -n $niter -dir $rundir"
  syncs_cmd "run-loop" "$sk run $rundir/loop$niter --max-iterations $niter > /dev/null"
  time_cmd "run-loop" "$([ "$short" = 1 ] && echo 1 || echo 3)" "$sk run $rundir/loop$niter --max-iterations $niter > /dev/null"
  rss_cmd "run-loop" "$sk run $rundir/loop$niter --max-iterations $niter > /dev/null"
fi
# The loop as it grows: one run each at 100, 1,000 and 10,000 no-op
# iterations (20 and 200 with -short), its wall time and peak memory
# (GNU time) and the bytes it handed to write calls (wchar of the shell
# that waited for it), beside the durable-append floor of as many
# appends, measured right before it in the same run.
growth=""
if [ "$has_loop" = 1 ]; then
  growth="100 1000 10000"
  if [ "$short" = 1 ]; then growth="20 200"; fi
  for n in $growth; do
    "$gen" loop -n "$n" -out "$rundir/grow$n"
    say "run: the loop as it grows, $n iterations"
    time_cmd "floor-grow$n" "$runs" "$bin/appendfloor -n $n -dir $rundir"
    rm -rf "$rundir/.skillkit"
    /usr/bin/time -v -o "$tmp/logs/grow$n.tv" bash -c "$sk run $rundir/grow$n --max-iterations $n >/dev/null 2>&1; grep '^wchar' /proc/\$\$/io" >"$tmp/logs/grow$n.io" 2>/dev/null || true
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.6f 0\n", s}' "$tmp/logs/grow$n.tv" >"$tmp/logs/grow$n.time"
    awk -F': ' '/Maximum resident set size/ {printf "%.1f\n", $2/1024}' "$tmp/logs/grow$n.tv" >"$tmp/logs/grow$n.rss"
    awk '{print $2}' "$tmp/logs/grow$n.io" >"$tmp/logs/grow$n.wchar"
    grep -q '^runState: "\?completed' "$rundir"/.skillkit/runs/*/*/skill-state.yaml || { echo "bench: the $n-iteration loop did not complete" >&2; exit 1; }
  done
  rm -rf "$rundir/.skillkit"
fi
# A step that prints N bytes: the output streams to the step's log, so the
# peak memory must not grow with N.
outsizes="1 1024"
if [ "$short" = 1 ]; then outsizes="1 64"; fi
for mib in $outsizes; do
  mkdir -p "$rundir/out$mib/phases"
  printf -- '---\nname: out%s\ndescription: Prints %s MiB.\n---\n# Output\n' "$mib" "$mib" >"$rundir/out$mib/SKILL.md"
  printf -- '# Phase 1: Print\n## Execution Steps\n### Step 1: Print\n```bash\nhead -c %d /dev/zero | tr "\\0" x\n```\n' "$((mib << 20))" >"$rundir/out$mib/phases/01-print.md"
  say "run: a step printing $mib MiB"
  rss_cmd "run-out$mib" "$sk run $rundir/out$mib --workdir $rundir/out$mib-work > /dev/null"
  "$sk" status "$rundir/out$mib-work" 2>&1 | grep completed >/dev/null || { echo "bench: the $mib MiB step did not complete" >&2; exit 1; }
  rm -rf "$rundir/out$mib-work"
done
cd "$repo"

# ---------------------------------------------------------------- MCP
# stdio echo calls to server-everything once it runs: through skillkit's
# pool (internal/mcp) beside a bare client of the official Go SDK.
mcp_pool=n/a; mcp_sdk=n/a
tools=${SKILLKIT_TEST_REAL_TOOLS_DIR:-$repo/.ci/npm/node_modules/.bin}
if [ -x "$tools/mcp-server-everything" ]; then
  say "mcp: echo calls to server-everything, pool and bare SDK"
  mcp_out=$(SKILLKIT_TEST_REAL_TOOLS_DIR=$tools go test ./internal/mcp -run '^$' -bench Echo -benchtime "$([ "$short" = 1 ] && echo 50x || echo 2000x)" 2>&1) || say "mcp bench failed: $mcp_out"
  mcp_pool=$(echo "$mcp_out" | awk '/^BenchmarkEcho\/pool/ {print $(NF-1)}')
  mcp_sdk=$(echo "$mcp_out" | awk '/^BenchmarkEcho\/sdk/ {print $(NF-1)}')
else
  say "no mcp-server-everything in $tools (npm ci --prefix .ci/npm): MCP calls not measured"
fi

# ---------------------------------------------------------------- LSP
# Re-diagnosing a 2,000-line phase file after a one-word change: the
# server keeps its last lint's block parses (as in an editor), beside the
# same lint with nothing kept and the goldmark parse of that file alone.
# Five rounds each, interleaved; the median of each.
say "lsp: re-diagnose after a change, cold, goldmark floor"
lsp_out=$(go test ./internal/lsp -run '^$' -bench 'DiagnosticsAfterChange|DiagnosticsCold|GoldmarkFloor' \
  -benchtime "$([ "$short" = 1 ] && echo 20x || echo 300x)" -count "$([ "$short" = 1 ] && echo 1 || echo 5)" 2>&1) || say "lsp bench failed: $lsp_out"
lsp_median() { # NAME: the median ns/op of benchmark NAME in ms
  echo "$lsp_out" | awk -v n="^Benchmark$1-" '$0 ~ n {print $3}' | sort -n \
    | awk '{v[NR] = $1} END { if (NR == 0) print "n/a"; else printf "%.2f", v[int((NR + 1) / 2)] / 1e6 }'
}
lsp_inc=$(lsp_median DiagnosticsAfterChange); lsp_cold=$(lsp_median DiagnosticsCold); lsp_floor=$(lsp_median GoldmarkFloor)

# ---------------------------------------------------------------- tasks
# One-step bash tasks drained by 8 workers of one process (the worker's
# whole cost per task), beside claims alone by 8 claimers in bursts, each
# after a burst of the floor's commits (BenchmarkClaimsBesideFloor: on a
# shared machine a floor measured apart says little): SQLite always,
# PostgreSQL where SKILLKIT_TEST_DATABASE_URL names a server.
say "tasks: 8 workers, one-step bash tasks; 8 claimers alone, beside the floor"
ntasks=$([ "$short" = 1 ] && echo 20x || echo 400x)
tasks_out=$(go test ./internal/worker -run '^$' -bench '^BenchmarkTasks$' -benchtime "$ntasks" 2>&1) || say "tasks bench failed: $tasks_out"
claims_out=$(go test ./internal/runstore/sqlstore -run '^$' -bench '^BenchmarkClaimsBesideFloor$' -benchtime "$([ "$short" = 1 ] && echo 200x || echo 4000x)" 2>&1) || say "claims bench failed: $claims_out"
metric() { echo "$1" | awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }'; }

# ---------------------------------------------------------------- report
label() {
  case $1 in
    skillkit) echo "skillkit lint" ;;
    floor) echo "goldmark parse only, $jobs workers (floor)" ;;
    floor1) echo "goldmark parse only, 1 worker" ;;
    skill-check) echo "skill-check" ;;
    claudelint) echo "claudelint (claude-code-lint)" ;;
    claudelint-ign) echo "claudelint, skills it cannot parse in .claudelintignore" ;;
    skills-ref) echo "skills-ref validate, one call per skill, $jobs at once" ;;
    markdownlint) echo "markdownlint-cli2 (generic markdown)" ;;
  esac
}
reads() {
  case $1 in
    skillkit) echo "every file of the skill: SKILL.md, phases, actions, specs, templates" ;;
    floor|floor1) echo "every .md file" ;;
    skill-check) echo "SKILL.md (and files it links)" ;;
    claudelint) echo "SKILL.md; its skill validator stops at the first skill whose YAML it cannot parse" ;;
    claudelint-ign) echo "SKILL.md, and checks sibling file names" ;;
    skills-ref) echo "SKILL.md front matter only" ;;
    markdownlint) echo "every .md file, as generic markdown" ;;
  esac
}
version() {
  case $1 in
    # The commit measured; "-dirty" when files other than RESULTS.md differ.
    skillkit)
      local v dirty
      v=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo devel)
      dirty=$(git -C "$repo" status --porcelain -- . ':!bench/RESULTS.md' 2>/dev/null | head -1)
      echo "$v${dirty:+-dirty}" ;;
    floor|floor1) go list -m -f '{{.Version}}' github.com/yuin/goldmark 2>/dev/null | sed 's/^/goldmark /' ;;
    skill-check|skills-ref|markdownlint-cli2)
      node -p "require('$npmdir/node_modules/$1/package.json').version" 2>/dev/null || echo "?" ;;
    claudelint|claudelint-ign) node -p "require('$npmdir/node_modules/claude-code-lint/package.json').version" 2>/dev/null || echo "?" ;;
    markdownlint) version markdownlint-cli2 ;;
  esac
}

out=$repo/bench/RESULTS.md
if [ "$short" = 1 ]; then out=$tmp/RESULTS.md; fi
sk1=$(mean skillkit-1); sk20=$(mean skillkit-20)
{
  echo "# skillkit benchmarks"
  echo
  if [ "$short" = 1 ]; then
    echo "Smoke run (\`bench/run.sh -short\`): one skill, no peers; the numbers mean nothing."
  else
    echo "Written by \`bench/run.sh\` on $(date -u +%Y-%m-%d) in one invocation: every tool below ran on the same staged files, on this machine, one after another. Regenerate with \`bench/run.sh\`."
  fi
  echo
  echo "## Machine"
  echo
  echo "- CPUs: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || uname -m))"
  echo "- Memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || echo '?')"
  echo "- OS: $(uname -sr); $(go version | cut -d' ' -f3-)"
  echo "- Node: $(node --version 2>/dev/null || echo 'not installed')"
  echo "- Timing: $(command -v hyperfine >/dev/null 2>&1 && hyperfine --version || echo 'repeat loop with date +%s%N'); peak memory: GNU time -v (maximum resident set size of the largest process)"
  echo
  echo "## Lint"
  echo
  echo "Corpus: \`$corpus\` staged as \`.claude/skills/<name>/\` (folders renamed like their skills, duplicate names suffixed, front matter \`name\` rewritten to match), so that every peer finds and accepts it."
  echo
  for size in $sizes; do echo "- $([ "$size" = 1 ] && echo 1 || echo "$copies")x: $(describe "$tmp/c$size")"; done
  echo
  if [ "$has_lint" = 0 ]; then
    echo "**skillkit lint is pending**: this checkout has no \`skillkit lint\` command yet, so its rows are missing."
    echo
  fi
  echo "| tool | version | reads | md files opened (1x) | wall 1x (ms, mean ± sd) | wall ${copies}x (ms) | growth ${copies}x/1x | peak RSS 1x (MB) | peak RSS ${copies}x (MB) | findings 1x | findings ${copies}x |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for t in "${lint_tools[@]}"; do
    m1=$(mean "$t-1"); m20=$(mean "$t-20")
    echo "| $(label "$t") | $(version "$t") | $(reads "$t") | $(val "$t-1.files") | $(fmt_ms "$m1") ± $(fmt_ms "$(sd "$t-1")") | $(fmt_ms "$m20") | $(ratio "$m20" "$m1") | $(val "$t-1.rss") | $(val "$t-20.rss") | $(val "$t-1.count") | $(val "$t-20.count") |"
  done
  echo
  if [ "$short" = 0 ]; then
    echo "Runs per row: hyperfine with one warm-up and $runs runs at 1x, $runs20 at ${copies}x; skills-ref and markdownlint-cli2 take seconds per run, so they get at most 3 runs at 1x and one at ${copies}x (timed by GNU time, shown ± 0). Peak RSS is the largest single process (for skills-ref, one node process of the many). \"md files opened\" counts the distinct .md files under the corpus that the tool (and its children) opened, from strace."
    echo
  fi
  if [ "$has_lint" = 1 ]; then
    echo "### Ratios"
    echo
    echo "| | 1x | ${copies}x |"
    echo "|---|---|---|"
    echo "| skillkit lint / parse floor ($jobs workers) | $(ratio "$sk1" "$(mean floor-1)") | $(ratio "$sk20" "$(mean floor-20)") |"
    echo "| skillkit lint / parse floor (1 worker) | $(ratio "$sk1" "$(mean floor1-1)") | $(ratio "$sk20" "$(mean floor1-20)") |"
    for t in "${peers[@]}"; do
      echo "| $(label "$t") time / skillkit lint time | $(ratio "$(mean "$t-1")" "$sk1") | $(ratio "$(mean "$t-20")" "$sk20") |"
    done
    for t in "${peers[@]}"; do
      echo "| $(label "$t") peak RSS / skillkit lint peak RSS | $(ratio "$(val "$t-1.rss")" "$(val skillkit-1.rss)") | $(ratio "$(val "$t-20.rss")" "$(val skillkit-20.rss)") |"
    done
    echo
    if [ "$short" = 0 ]; then
      echo "### Targets"
      echo
      verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "**missed**"; fi; }
      faster=1; leaner=1
      for t in "${peers[@]}"; do
        for size in $sizes; do
          awk -v a="$(mean "$t-$size")" -v b="$(mean "skillkit-$size")" 'BEGIN { exit !(b < a) }' || faster=0
          awk -v a="$(val "$t-$size.rss")" -v b="$(val "skillkit-$size.rss")" 'BEGIN { exit !(b < a) }' || leaner=0
        done
      done
      floorok=1
      for size in $sizes; do
        awk -v r="$(ratio "$(mean "skillkit-$size")" "$(mean "floor-$size")")" 'BEGIN { exit !(r <= 2) }' || floorok=0
      done
      growth=$(ratio "$sk20" "$sk1")
      linear=0
      awk -v g="$growth" -v c="$copies" 'BEGIN { exit !(g <= c * 1.25) }' && linear=1
      echo "- skillkit lint faster than every peer at 1x and ${copies}x: $(verdict $faster)"
      echo "- skillkit lint within 2x of the parse-only floor ($jobs workers): $(verdict $floorok)"
      echo "- skillkit lint peak memory below every peer's: $(verdict $leaner)"
      echo "- near-linear growth (${copies}x the files in at most $(awk -v c="$copies" 'BEGIN {print c*1.25}')x the time): $(verdict $linear) (${growth}x)"
      echo
      if [ "$faster" = 0 ]; then
        # Say who was faster, and how much each reads: a tool that reads
        # SKILL.md only has less to do than one that parses every file.
        skillmd=$(find "$stage1" -name SKILL.md -exec cat {} + | wc -c)
        allmd=$(find "$stage1" -name '*.md' -exec cat {} + | wc -c)
        echo "Where a peer was faster:"
        echo
        for t in "${peers[@]}"; do
          for size in $sizes; do
            if awk -v a="$(mean "$t-$size")" -v b="$(mean "skillkit-$size")" 'BEGIN { exit !(a <= b) }'; then
              echo "- $(label "$t") at ${size}x: $(fmt_ms "$(mean "$t-$size")") ms against skillkit's $(fmt_ms "$(mean "skillkit-$size")") ms"
            fi
          done
        done
        echo
        echo "The SKILL.md files are $(awk -v a="$skillmd" 'BEGIN {printf "%.2f", a/1e6}') MB of the $(awk -v a="$allmd" 'BEGIN {printf "%.2f", a/1e6}') MB of markdown; skillkit parses all of it (every phase, action, spec and template), the SKILL.md-only validators a seventh or less. Where the parse-only floor over every file is itself slower than such a peer, no whole-skill linter can beat it by speed alone."
        echo
      fi
    fi
  fi
  echo "## Runners"
  echo
  echo "| what | wall (ms, mean ± sd) | per phase / iteration (ms) | peak RSS (MB) | syncs per phase / iteration |"
  echo "|---|---|---|---|---|"
  r=$(mean run-skillkit)
  per() { awk -v r="$1" -v n="$2" 'BEGIN { if (r == "n/a") print "n/a"; else printf "%.2f", r*1000/n }'; }
  persync() { awk -v s="$1" -v n="$2" 'BEGIN { if (s == "n/a") print "n/a"; else printf "%.2f", s/n }'; }
  echo "| skillkit run, $nphases phases of one bash \`true\` step (durable: the log synced once per step and per phase) | $(fmt_ms "$r") ± $(fmt_ms "$(sd run-skillkit)") | $(per "$r" "$nphases") | $(val run-skillkit.rss) | $(persync "$(val run-skillkit.syncs)" "$nphases") |"
  f=$(mean floor-phases)
  echo "| floor: $nphases durable appends of a 200-byte line (write + fsync), same disk | $(fmt_ms "$f") ± $(fmt_ms "$(sd floor-phases)") | $(per "$f" "$nphases") | | 1.00 |"
  if [ "$has_task" = 1 ]; then
    t=$(mean run-task)
    echo "| go-task $("$tmp/gobin/task" --version 2>/dev/null | awk '{print $NF}'), $nphases tasks in order, each \`bash -c true\` (no state on disk) | $(fmt_ms "$t") ± $(fmt_ms "$(sd run-task)") | $(awk -v r="$t" -v n="$nphases" 'BEGIN {printf "%.2f", r*1000/n}') | $(val run-task.rss) |"
  elif [ "$short" = 0 ]; then
    echo "| go-task | not installed (see the log of \`go install\`) | | |"
  fi
  if [ "$has_loop" = 1 ]; then
    l=$(mean run-loop)
    echo "| skillkit run, orchestrator loop of $niter no-op JS actions (durable) | $(fmt_ms "$l") ± $(fmt_ms "$(sd run-loop)") | $(per "$l" "$niter") | $(val run-loop.rss) | $(persync "$(val run-loop.syncs)" "$niter") |"
    fl=$(mean floor-loop)
    echo "| floor: $niter durable appends of a 200-byte line, same disk | $(fmt_ms "$fl") ± $(fmt_ms "$(sd floor-loop)") | $(per "$fl" "$niter") | | 1.00 |"
  else
    echo "| skillkit run, orchestrator loop of 1,000 no-op actions | **pending**: this checkout's \`skillkit run\` has no autonomous runner (\`--max-iterations\`) yet | | |"
  fi
  for mib in $outsizes; do
    echo "| skillkit run, one bash step printing $mib MiB (streamed to its log; a 1 MiB tail in memory) | | | $(val "run-out$mib.rss") | |"
  done
  echo
  echo "Per phase, skillkit run / the durable-append floor: $(ratio "$r" "$f")x."
  if [ "$has_loop" = 1 ]; then
    echo "Per iteration, skillkit run / the durable-append floor: $(ratio "$l" "$fl")x."
  fi
  if [ "$has_task" = 1 ]; then
    echo "skillkit run / go-task: $(ratio "$r" "$t")x."
  fi
  echo
  echo "## MCP calls"
  echo
  echo "| stdio echo call to server-everything, server started | median (ms per call) | goal |"
  echo "|---|---|---|"
  echo "| skillkit's pool (internal/mcp) | ${mcp_pool:-n/a} | ≤ 2 |"
  echo "| bare Go SDK client | ${mcp_sdk:-n/a} | |"
  echo
  echo "## LSP re-diagnose"
  echo
  echo "A 2,000-line phase file (\`go test ./internal/lsp -bench 'DiagnosticsAfterChange|DiagnosticsCold|GoldmarkFloor'\`): a one-word change, the skill linted with the new text and the diagnostics published."
  echo
  echo "| what | median (ms) | / goldmark floor | goal |"
  echo "|---|---|---|---|"
  echo "| re-diagnose, the last lint's block parses kept (the server) | $lsp_inc | $(ratio "$lsp_inc" "$lsp_floor") | ≤ 2 |"
  echo "| the same lint with nothing kept (a new server) | $lsp_cold | $(ratio "$lsp_cold" "$lsp_floor") | |"
  echo "| floor: goldmark parse of the file alone | $lsp_floor | 1.00 | |"
  echo
  echo "## Tasks"
  echo
  echo "Tasks drained per second by 8 workers of one process, each task one bash step (claim, run record, the step, completion); claims alone by 8 claimers, in bursts of 200 each after 200 commits of the floor: one guarded UPDATE per commit by one writer on a connection the store opened (its pragmas on SQLite); medians of the bursts. The machine is shared."
  echo
  echo "| database | tasks/s, 8 workers | goal | claims/s, 8 claimers | floor, commits/s | claims / floor | goal |"
  echo "|---|---|---|---|---|---|---|"
  for db in sqlite:SQLite:250 postgres:PostgreSQL:200; do
    IFS=: read -r key name goal <<<"$db"
    b="BenchmarkClaimsBesideFloor/$key"
    echo "| $name | $(metric "$tasks_out" "BenchmarkTasks/$key" tasks/s) | ≥ $goal | $(metric "$claims_out" "$b" claims/s) | $(metric "$claims_out" "$b" commits/s) | $(metric "$claims_out" "$b" ratio) | ≥ 0.70 |"
  done
  echo
  if [ -n "$growth" ]; then
    echo "## The loop as it grows"
    echo
    echo "One run of the no-op JS loop at each size (durable), and the durable-append floor of as many appends measured just before it. Bytes written are what the run handed to write calls: its record, snapshots rewritten, metrics and logs. The machine is shared: compare the ratios to the floor, not the times."
    echo
    echo "Marginal is the wall time the iterations added since the size before, per iteration: the run's fixed cost (start, lint gate, claim, the snapshots at its end) left out."
    echo
    echo "| iterations | wall (ms) | per iteration (ms) | marginal per iteration (ms) | floor per append (ms) | per iteration / floor | written per iteration (KB) | peak RSS (MB) |"
    echo "|---|---|---|---|---|---|---|---|"
    first="" prevn="" prevg=""
    for n in $growth; do
      g=$(mean "grow$n"); fg=$(mean "floor-grow$n")
      pi=$(per "$g" "$n")
      [ -n "$first" ] || { first=$pi; firstrss=$(val "grow$n.rss"); }
      lastrss=$(val "grow$n.rss")
      marg=""
      if [ -n "$prevn" ]; then
        marg=$(awk -v a="$g" -v b="$prevg" -v n="$n" -v m="$prevn" 'BEGIN { if (a == "n/a" || b == "n/a") print "n/a"; else printf "%.3f", (a-b)*1000/(n-m) }')
        [ -n "${firstmarg:-}" ] || firstmarg=$marg
        lastmarg=$marg
      fi
      echo "| $n | $(fmt_ms "$g") | $pi | $marg | $(per "$fg" "$n") | $(ratio "$g" "$fg") | $(awk -v w="$(val "grow$n.wchar")" -v n="$n" 'BEGIN { if (w == "n/a" || w == "") print "n/a"; else printf "%.2f", w/n/1024 }') | $(val "grow$n.rss") |"
      last=$pi prevn=$n prevg=$g
    done
    echo
    echo "Per iteration at the largest size / at the smallest: $(ratio "$last" "$first")x; marginal, last / first: $(ratio "${lastmarg:-n/a}" "${firstmarg:-n/a}")x; peak RSS, largest / smallest: $(ratio "$lastrss" "$firstrss")x (goals, issue 26: at most 1.2x each, per iteration at most 2.5x the floor, at most 1 KB written per iteration)."
    echo
  fi
} >"$out"

if [ "$short" = 1 ]; then
  cat "$out"
  # The smoke run checks that what it measured is there.
  [ "$(mean run-skillkit)" != "n/a" ] || { echo "bench: no timing for skillkit run" >&2; exit 1; }
  if [ "$has_lint" = 1 ]; then
    [ "$(val skillkit-1.count)" != "n/a" ] || { echo "bench: no findings count for skillkit lint" >&2; exit 1; }
  fi
  echo "bench: smoke run ok" >&2
else
  say "wrote $out"
fi
