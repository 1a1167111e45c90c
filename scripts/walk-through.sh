#!/usr/bin/env bash
# Runs the docs' walk-throughs against the service, so that a doc that no
# longer matches the service fails the build (`npm run walk-through`, run by
# .ci/run; docs/decisions/0063-docs-that-run.md).
#
# The docs themselves are what runs: the ```sh blocks of each doc below
# (scripts/walk-through-blocks.js says which blocks, and how they are marked),
# in order, in one bash with `set -euo pipefail`, as a reader would paste them
# into a terminal. A doc that continues another runs after it in the same bash.
# The service runs from the build on a free port over a scratch data dir
# (mktemp -d) and a Redis prefix of its own; the docs get BASE and PORT, and
# make their tenants and keys with the CLI as they tell the reader to. Blocks
# marked `own-ledger` (a restart with the clock shifted) run afterwards in a
# second scratch ledger. On exit the services are stopped, their Redis keys
# deleted and the scratch dir removed (kept with WALK_THROUGH_KEEP=1).
# WALK_THROUGH_VERBOSE=1 shows every doc's output as it runs; otherwise only
# a failure's. Arguments name docs: only the walks that take them in run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

# Each walk: the docs run one after the other in one shell.
WALKS=(
  'README.md'
  'docs/redec-capture.md docs/redec-lifecycle.md'
  'docs/redec-capture.md docs/data-lifecycle.md'
  'docs/redec-capture.md docs/regulatory-reports.md'
  'docs/redec-capture.md docs/consent-compliance.md'
  'docs/embedded-capture.md'
  'docs/multi-consent-decisions.md'
  'docs/redec-capture.md docs/data-subject-rights.md'
  'docs/privacy-center.md'
)

# The service's settings come from here only: nothing of the caller's shell
# (a PostgreSQL URL, a shifted clock, production) leaks into the scratch ledgers.
for variable in $(compgen -e); do
  case "$variable" in
    LEDGER_* | DATABASE_URL | EVENTSTORE_CONNECTION_STRING | NODE_ENV | HOST | PORT | BASE | OTEL_*) unset "$variable" ;;
  esac
done
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"

node scripts/build-if-needed.js

WALK_SCRATCH="$(mktemp -d -t ledger-walk-through.XXXXXX)"
export WALK_ROOT="$ROOT" WALK_SCRATCH
LEDGERS=()
mkdir -p "$WALK_SCRATCH/tmp"

WALK_RUNNER=
SESSION=()
! command -v setsid >/dev/null 2>&1 || SESSION=(setsid -w)
cleanup() {
  local status=$?
  if [ -n "$WALK_RUNNER" ]; then
    kill -TERM -- "-$WALK_RUNNER" 2>/dev/null || true
    kill -TERM "$WALK_RUNNER" 2>/dev/null || true
  fi
  for ledger in "${LEDGERS[@]}"; do
    WALK_LEDGER="$WALK_SCRATCH/$ledger" stop_service || true
  done
  if [ "${#LEDGERS[@]}" -gt 0 ]; then
    node -e '
      const { Redis } = require("ioredis");
      const { deleteKeysUnder } = require("./dist/libs/platform/src/redis.js");
      const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      Promise.all(process.argv.slice(1).map((prefix) => deleteKeysUnder(redis, prefix)))
        .catch((error) => console.error(`walk-through: Redis keys left under ${process.argv.slice(1)}: ${error.message}`))
        .finally(() => redis.disconnect());
    ' "${LEDGERS[@]/#/walk-through-$$-}" || true
  fi
  if [ "${WALK_THROUGH_KEEP:-}" = 1 ]; then
    echo "walk-through: kept $WALK_SCRATCH (logs, the scripts run, each walk's output)" >&2
  else
    rm -rf "$WALK_SCRATCH"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The service of the current ledger ($WALK_LEDGER: its pid file and log),
# from the build, with the exported settings. Also what `npm start` does in a
# doc (below), so a step that restarts the service restarts this one.
start_service() {
  node "$WALK_ROOT/dist/apps/api/src/main.js" >>"$WALK_LEDGER/service.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$WALK_LEDGER/service.pid"
  for _ in $(seq 1 600); do
    # Ready, not degraded: a walk-through reads what it writes, and a rebuilding read model refuses reads.
    command curl -fs "$BASE/health/ready" 2>/dev/null | grep -q '"status":"ready"' && return 0
    kill -0 "$pid" 2>/dev/null || { echo "walk-through: the service exited at start (log: $WALK_LEDGER/service.log)" >&2; return 1; }
    sleep 0.1
  done
  echo "walk-through: the service is not ready after 60 s" >&2
  return 1
}

stop_service() {
  local pid
  pid="$(cat "$WALK_LEDGER/service.pid" 2>/dev/null)" || return 0
  rm -f "$WALK_LEDGER/service.pid"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# In the docs' shell: `npm start` starts this walk's service again, with the
# variables the step puts before it (a doc says to stop the service first);
# `npm run` runs in the repository, whatever directory the walk runs in; any
# other npm command (npm ci, npm test) is refused. curl is the docs' curl,
# except that -f (in -fsS) becomes --fail-with-body, so that the problem
# document of an error answer is shown with the failure, and every answer is
# kept to show the last one.
npm() {
  case "${1-}" in
    start) stop_service && start_service ;;
    run) command npm --prefix "$WALK_ROOT" "$@" ;;
    *)
      echo "walk-through: a step runs \`npm $*\`; only npm start and npm run run here (mark the block \`\`\`sh no-run)" >&2
      return 1
      ;;
  esac
}
curl() {
  local arguments=() argument
  for argument in "$@"; do
    if [[ "$argument" =~ ^-[sSL]*f[sSL]*$ ]]; then
      argument="${argument//f/}"
      [ "$argument" = - ] || arguments+=("$argument")
      arguments+=(--fail-with-body)
    else
      arguments+=("$argument")
    fi
  done
  if command curl "${arguments[@]}" | tee -a "$WALK_LEDGER/responses"; then
    echo >>"$WALK_LEDGER/responses"
  else
    local status=$?
    echo >>"$WALK_LEDGER/responses"
    return "$status"
  fi
}
# The ERR trap: the first failure's step (the block it ran in, WALK_STEP), its
# innermost line in a doc (not in this prelude), and its command.
walk_failed() {
  [ -s "$WALK_FAILED" ] && return
  local frame
  for ((frame = 1; frame < ${#BASH_SOURCE[@]}; frame++)); do
    if [[ "${BASH_SOURCE[frame]}" == "$WALK_SCRIPTS"/* ]]; then
      local command=
      [ "$frame" -gt 1 ] || command=$1
      printf '%s\n%s\n%s\n' "${WALK_STEP:-}" "${BASH_SOURCE[frame]#"$WALK_SCRIPTS/"}:${BASH_LINENO[frame - 1]}" "$command" >"$WALK_FAILED"
      return
    fi
  done
}
declare -f start_service stop_service npm curl walk_failed >"$WALK_SCRATCH/prelude.sh"

free_port() {
  node -e 'const server = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close(); })'
}

# A scratch ledger: its data dir, port, Redis prefix and service.
open_ledger() {
  local name=$1
  LEDGERS+=("$name")
  export WALK_LEDGER="$WALK_SCRATCH/$name"
  mkdir -p "$WALK_LEDGER"
  export LEDGER_DATA_DIR="$WALK_LEDGER/data"
  export LEDGER_REDIS_PREFIX="walk-through-$$-$name"
  export HOST=127.0.0.1
  PORT="$(free_port)"
  export PORT BASE="http://127.0.0.1:$PORT"
  start_service
}

walks=0
# run_walk KIND DOC...: the docs' blocks in one bash, the last doc's blocks of KIND (main or own-ledger).
run_walk() {
  local kind=$1
  shift
  walks=$((walks + 1))
  local dir="$WALK_SCRATCH/walk-$walks" scripts=() doc i=0 started=$SECONDS
  mkdir -p "$dir/work"
  for doc in "$@"; do
    i=$((i + 1))
    local doc_kind=main
    [ "$i" -eq "$#" ] && doc_kind=$kind
    mkdir -p "$dir/scripts/$(dirname "$doc")"
    node scripts/walk-through-blocks.js script "$doc" "$doc_kind" >"$dir/scripts/$doc"
    scripts+=("$dir/scripts/$doc")
  done
  local label="$*"
  [ "$kind" = main ] || label="$label ($kind, in a ledger of its own)"
  # A walk that failed may have left its ledger's service stopped: the next one starts it again.
  command curl -fs -o /dev/null "$BASE/health/ready" 2>/dev/null || { stop_service && start_service; } || true
  printf 'walk-through: %s ... ' "$label"
  export WALK_FAILED="$dir/failed" WALK_SCRIPTS="$dir/scripts"
  : >"$WALK_FAILED"
  local output="$dir/output"
  local status=0
  # In a session of its own (setsid, where there is one), so that an
  # interrupted run stops the walk's every process (its curl, npm and node).
  # shellcheck disable=SC2016
  (cd "$dir/work" && TMPDIR="$WALK_SCRATCH/tmp" exec "${SESSION[@]}" bash -c '
    set -Eeuo pipefail
    source "$WALK_SCRATCH/prelude.sh"
    trap '\''walk_failed "$BASH_COMMAND"'\'' ERR
    for script in "$@"; do source "$script"; done
  ' walk "${scripts[@]}") >"$output" 2>&1 &
  local runner=$! follower=
  WALK_RUNNER=$runner
  if [ "${WALK_THROUGH_VERBOSE:-}" = 1 ]; then
    echo
    tail -f --pid="$runner" "$output" &
    follower=$!
  fi
  wait "$runner" || status=$?
  WALK_RUNNER=
  [ -z "$follower" ] || wait "$follower"
  [ -z "$follower" ] || printf '\nwalk-through: %s ... ' "$label"
  if [ "$status" -eq 0 ]; then
    echo "ok ($((SECONDS - started)) s)"
    return 0
  fi
  echo "FAILED (exit $status)"
  {
    if [ -s "$WALK_FAILED" ]; then
      local step line command
      { read -r step; read -r line; read -r command; } <"$WALK_FAILED"
      if [ -n "$step" ]; then
        echo "walk-through: failed in $(node scripts/walk-through-blocks.js where "${step%:*}" "${step##*:}")"
      else
        echo "walk-through: failed in ${line%:*}"
      fi
      echo "  near $line: $(sed -n "${line##*:}p" "${line%:*}" | sed 's/^ *//')"
      [ -z "$command" ] || echo "  the command: ${command:0:300}"
    else
      echo "walk-through: failed in $label, outside any step"
    fi
    echo "--- the walk's output, last 30 lines"
    tail -n 30 "$output"
    echo
    if [ -s "$WALK_LEDGER/responses" ]; then
      echo "--- the service's last answer"
      grep -v '^$' "$WALK_LEDGER/responses" | tail -n 1 | cut -c1-2000
    fi
    echo "--- the service's log, last 15 lines"
    tail -n 15 "$WALK_LEDGER/service.log"
  } >&2
  return 1
}

# `npm run walk-through -- docs/redec-lifecycle.md` runs only the walks that take in a doc named.
if [ "$#" -gt 0 ]; then
  chosen=()
  for walk in "${WALKS[@]}"; do
    for doc in "$@"; do
      if [[ " $walk " == *" $doc "* ]]; then
        chosen+=("$walk")
        break
      fi
    done
  done
  [ "${#chosen[@]}" -gt 0 ] || { echo "walk-through: no walk takes in $*" >&2; exit 2; }
  WALKS=("${chosen[@]}")
fi

started=$SECONDS
failures=0
open_ledger main
for walk in "${WALKS[@]}"; do
  # shellcheck disable=SC2086
  run_walk main $walk || failures=$((failures + 1))
done
# Steps that restart the service with its clock shifted: each in a ledger of its own.
for walk in "${WALKS[@]}"; do
  last="${walk##* }"
  if node scripts/walk-through-blocks.js has "$last" own-ledger; then
    stop_service
    open_ledger "own-$walks"
    # shellcheck disable=SC2086
    run_walk own-ledger $walk || failures=$((failures + 1))
  fi
done
if [ "$failures" -gt 0 ]; then
  echo "walk-through: $failures walk(s) failed ($((SECONDS - started)) s)" >&2
  exit 1
fi
echo "walk-through: every doc ran ($((SECONDS - started)) s)"
