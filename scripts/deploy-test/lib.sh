# shellcheck shell=bash
# Helpers of the deployment test (run.sh), sourced with the steps into one shell.
# Set by run.sh: WORK (this run's folder on the host), ROOT (the Debian root inside it), DEB (the package).

declare -A UNIT_PIDS=()
FIGURES=()

say() { printf 'deploy-test: %s\n' "$*"; }
ms_to_s() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
# A measured figure for the summary (install-to-healthy time, sizes).
figure() {
  FIGURES+=("$*")
  say "$*"
}

fail() {
  say "FAIL${STEP:+ in $STEP}: $*"
  local log
  for log in "$WORK"/*.log; do
    [ -f "$log" ] || continue
    say "last lines of $(basename "$log"):"
    tail -n 25 "$log" | sed 's/^/  | /'
  done
  exit 1
}

# The first Debian mirror (a URI ending in /debian) in this machine's apt sources; the security mirror likewise.
apt_uri() {
  local files=() f
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do [ -f "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || return 0
  { grep -hE '^[[:space:]]*(URIs:|deb[[:space:]])' "${files[@]}" || true; } |
    sed -E 's/^[[:space:]]*URIs:[[:space:]]*//; s/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' |
    tr ' ' '\n' | { grep -E "$1" || true; } | head -n 1
}
debian_mirror() { apt_uri '^https?://[^ ]+/debian/?$'; }
debian_security_mirror() { apt_uri '^https?://[^ ]+/debian-security/?$'; }

# Runs a command inside the root with a clean environment (extra VAR=value words before the command).
in_root() {
  local envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
  while [[ $# -gt 0 && $1 == *=* && $1 != /* ]]; do
    envs+=("$1")
    shift
  done
  chroot "$ROOT" /usr/bin/env -i "${envs[@]}" "$@"
}

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# http URL [METHOD [BODY]]: prints the body; exit 0 on 2xx, 1 on another status, 2 when nothing answers
# (TOKEN: a bearer token; CA: a PEM file to trust; RESOLVE: host:port:address, like curl's --resolve).
http() {
  node -e '
const [url, method = "GET", body] = process.argv.slice(1)
const headers = { ...(body ? { "content-type": "application/json" } : {}), ...(process.env.TOKEN ? { authorization: "Bearer " + process.env.TOKEN } : {}) }
fetch(url, { method, headers, body, signal: AbortSignal.timeout(10000) }).then(
  async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1) },
  () => process.exit(2))' "$@"
}
# json EXPRESSION: evaluates EXPRESSION over the JSON on stdin (bound to `j`) and prints it.
json() { node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8'));const v=($1);console.log(typeof v==='string'?v:JSON.stringify(v))"; }

# wait_http URL [SECONDS]: polls until URL answers 2xx.
wait_http() {
  local deadline=$(($(date +%s) + ${2:-30}))
  until http "$1" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# The unit file of NAME in the root, as systemd would pick it (/etc overrides /lib).
unit_file() {
  local dir
  for dir in /etc/systemd/system /lib/systemd/system /usr/lib/systemd/system; do
    [ -f "$ROOT$dir/$1.service" ] && { echo "$ROOT$dir/$1.service"; return; }
  done
  fail "no unit $1.service in the root"
}
# unit_values FILE KEY: every value of KEY= in the [Service] section, one a line.
unit_values() { sed -n '/^\[Service\]/,/^\[/p' "$1" | sed -n "s/^$2=//p"; }
# A command line or assignment list split into words the way systemd does (quotes group, no variables).
unit_words() { xargs -r printf '%s\n' <<<"$1"; }
# Capability names as setpriv takes them: CAP_NET_BIND_SERVICE -> +net_bind_service, comma-separated.
setpriv_caps() {
  local out="-all" cap
  for cap in $1; do out+=",+$(tr '[:upper:]' '[:lower:]' <<<"${cap#CAP_}")"; done
  echo "$out"
}

# unit_start NAME [VAR=value ...]: starts NAME's ExecStart in the background the way systemd would (its
# User, Group, Environment, EnvironmentFile, WorkingDirectory, capabilities, NoNewPrivileges), output in
# $WORK/NAME.log, its PID in UNIT_PIDS[NAME]. Extra VAR=value words come last, as a drop-in's would.
unit_start() {
  local name=$1 file user group home workdir line word exec=() envs=() ambient bounding nnp=()
  shift
  file=$(unit_file "$name")
  user=$(unit_values "$file" User | tail -n 1)
  group=$(unit_values "$file" Group | tail -n 1)
  user=${user:-root}
  group=${group:-$(in_root id -gn "$user")}
  home=$(in_root getent passwd "$user" | cut -d: -f6)
  # What systemd gives every service with a User=.
  envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin "HOME=$home" "USER=$user" "LOGNAME=$user" SHELL=/usr/sbin/nologin)
  while IFS= read -r line; do
    while IFS= read -r word; do envs+=("$word"); done < <(unit_words "$line")
  done < <(unit_values "$file" Environment)
  while IFS= read -r line; do
    local optional=${line:0:1} path=${line#-}
    if [ -r "$ROOT$path" ]; then
      while IFS= read -r word; do envs+=("$word"); done < <(grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*=' "$ROOT$path" | sed -E 's/^[[:space:]]+//')
    elif [ "$optional" != - ]; then
      fail "$name: EnvironmentFile $path is missing"
    fi
  done < <(unit_values "$file" EnvironmentFile)
  envs+=("$@")
  workdir=$(unit_values "$file" WorkingDirectory | tail -n 1)
  # ExecStart's prefixes (-, @, +, !) change how systemd treats a failure or privileges; none is used by these units.
  line=$(unit_values "$file" ExecStart | tail -n 1 | sed -E 's/^[-@:+!]+//')
  while IFS= read -r word; do exec+=("$word"); done < <(unit_words "$line")
  ambient=$(unit_values "$file" AmbientCapabilities | tr '\n' ' ')
  bounding=$(unit_values "$file" CapabilityBoundingSet | tr '\n' ' ')
  [ "$(unit_values "$file" NoNewPrivileges | tail -n 1)" = yes ] && nnp=(--no-new-privs)
  local caps=(--inh-caps="$(setpriv_caps "$ambient")" --ambient-caps="$(setpriv_caps "$ambient")")
  [ -n "${bounding// /}" ] && caps+=(--bounding-set="$(setpriv_caps "$bounding")")
  say "$name: ${exec[*]} as $user:$group${ambient:+ with $ambient}"
  chroot "$ROOT" /usr/bin/env -i "${envs[@]}" \
    /usr/bin/setpriv --reuid="$user" --regid="$group" --init-groups "${nnp[@]}" "${caps[@]}" -- \
    /usr/bin/env -C "${workdir:-/}" "${exec[@]}" >>"$WORK/$name.log" 2>&1 &
  UNIT_PIDS[$name]=$!
}

# unit_stop NAME: SIGTERM (KillSignal), then SIGKILL after 20 s; UNIT_STATUS is its exit status.
unit_stop() {
  local pid=${UNIT_PIDS[$1]:-}
  UNIT_STATUS=0
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  wait "$pid" 2>/dev/null || UNIT_STATUS=$?
  unset "UNIT_PIDS[$1]"
}

unit_running() { [ -n "${UNIT_PIDS[$1]:-}" ] && kill -0 "${UNIT_PIDS[$1]}" 2>/dev/null; }
# The user a unit's process runs as, by the root's own user database (its uids are not the host's names).
unit_user() { in_root getent passwd "$(stat -c %u "/proc/${UNIT_PIDS[$1]}")" | cut -d: -f1; }

# Every process whose root directory is the test's root (started by the test, in the chroot), by PID.
root_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && echo "${p#/proc/}"
  done
  return 0
}

mounts_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r; }

cleanup() {
  local rc=$? name pid mnt
  set +e
  trap - EXIT
  for name in "${!UNIT_PIDS[@]}"; do unit_stop "$name"; done
  for pid in $(root_pids); do kill -KILL "$pid" 2>/dev/null; done
  if [ -n "${ROOT:-}" ]; then
    for mnt in $(mounts_under "$ROOT"); do umount "$mnt" 2>/dev/null || umount -l "$mnt"; done
  fi
  if [ -n "${ROOT:-}" ] && [ -n "$(mounts_under "$ROOT")" ]; then
    say "mounts remain under $ROOT: the folder is left in place"
  elif [ "${HEARTH_DEPLOY_KEEP:-}" = 1 ] || { [ $rc -ne 0 ] && [ "${HEARTH_DEPLOY_KEEP:-}" = failed ]; }; then
    say "kept: $WORK"
  elif [ -n "${WORK:-}" ]; then
    rm -rf --one-file-system "$WORK"
  fi
  exit $rc
}
