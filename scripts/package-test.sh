#!/usr/bin/env bash
# The Debian package end to end, as root on a machine where PID 1 need not be systemd (CI):
# build it (or take the .deb given as $1), `dpkg -i` it, start the installed daemon the way its unit
# does (the unit's User, Environment, EnvironmentFile, WorkingDirectory, capabilities and ExecStart,
# through setpriv) on free ports, read /health, use the installed `hearth` CLI, install it again and
# upgrade to a newer version and check the data survived, remove (data and user kept), purge (user, data and files gone).
# Safe to run twice; a trap stops the daemon and purges the package on any failure. It refuses to
# touch a hearth installation it did not make (no marker file in /var/lib/hearth).
set -euo pipefail
cd "$(dirname "$0")/.."

MARKER=/var/lib/hearth/.package-test
UNIT=/lib/systemd/system/hearth.service
WORK=$(mktemp -d)
PID=""

say() { printf 'package-test: %s\n' "$*"; }
fail() {
  say "FAIL: $*"
  [ -f "$WORK/daemon.log" ] && tail -n 30 "$WORK/daemon.log" | sed 's/^/  daemon: /'
  exit 1
}

stop_daemon() {
  [ -n "$PID" ] || return 0
  if kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID"
    for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$PID" 2>/dev/null && kill -KILL "$PID"
  fi
  wait "$PID" 2>/dev/null && STATUS=0 || STATUS=$?
  PID=""
}

cleanup() {
  local rc=$?
  stop_daemon || true
  if [ -f "$MARKER" ] || dpkg-query -W -f='${Status}' hearth 2>/dev/null | grep -q 'ok installed'; then
    [ $rc -ne 0 ] && say "cleaning up after a failure"
    [ -f "$MARKER" ] && dpkg --purge hearth >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { say "needs root (dpkg -i, the hearth user)"; exit 1; }

# A leftover of an earlier run that could not clean up (killed hard): ours to purge. Anything else: not ours.
if dpkg-query -W -f='${Status}' hearth 2>/dev/null | grep -q 'installed'; then
  [ -f "$MARKER" ] || { say "hearth is installed here and not by this test: refusing to purge it"; trap - EXIT; exit 1; }
  say "purging the leftover of an earlier run"
  dpkg --purge hearth >/dev/null
fi

DEB="${1:-}"
if [ -z "$DEB" ]; then
  npm run --silent package
  VERSION=$(node -p "require('./package.json').version")
  DEB="dist/hearth_${VERSION}_$(dpkg --print-architecture).deb"
fi
[ -f "$DEB" ] || fail "no package at $DEB"
say "$DEB: $(du -k "$DEB" | cut -f1) KiB"

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
# http URL [METHOD [BODY]]: prints the body; exit 0 on 2xx, 1 on another status (TOKEN: a bearer token).
http() { node -e "fetch(process.argv[1],{method:process.argv[2]||'GET',headers:{'content-type':'application/json',...(process.env.TOKEN?{authorization:'Bearer '+process.env.TOKEN}:{})},body:process.argv[3]}).then(async r=>{process.stdout.write(await r.text());process.exit(r.ok?0:1)},()=>process.exit(2))" "$@"; }

# Starts ExecStart as the unit would, in the background; sets PID and START_MS.
start_daemon() {
  local user group workdir exec envs=()
  user=$(sed -n 's/^User=//p' "$UNIT")
  group=$(sed -n 's/^Group=//p' "$UNIT")
  workdir=$(sed -n 's/^WorkingDirectory=//p' "$UNIT")
  exec=$(sed -n 's/^ExecStart=//p' "$UNIT")
  while IFS= read -r line; do envs+=("$line"); done < <(sed -n 's/^Environment=//p' "$UNIT")
  local file
  for file in $(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$UNIT"); do
    [ -r "$file" ] && while IFS= read -r line; do envs+=("$line"); done < <(grep -E '^[A-Z_][A-Z0-9_]*=' "$file" || true)
  done
  HTTP_PORT=$(free_port)
  DNS_PORT=$(free_port)
  envs+=("HEARTH_PORT=$HTTP_PORT" "HEARTH_HOST=127.0.0.1" "HEARTH_DNS_PORT=$DNS_PORT" "HEARTH_DNS_HOST=127.0.0.1")
  START_MS=$(date +%s%3N)
  # shellcheck disable=SC2086 # ExecStart is a command line
  (cd "$workdir" && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${envs[@]}" \
    setpriv --reuid="$user" --regid="$group" --init-groups --no-new-privs \
    --inh-caps=-all,+net_bind_service --ambient-caps=-all,+net_bind_service --bounding-set=-all,+net_bind_service \
    -- $exec) >>"$WORK/daemon.log" 2>&1 &
  PID=$!
}

wait_health() {
  for _ in $(seq 300); do
    if HEALTH=$(http "http://127.0.0.1:$HTTP_PORT/api/v1/health" 2>/dev/null); then
      HEALTH_MS=$(($(date +%s%3N) - START_MS))
      return 0
    fi
    kill -0 "$PID" 2>/dev/null || fail "the daemon exited before answering /health"
    sleep 0.1
  done
  fail "no /health answer in 30 s"
}

say "install"
dpkg -i "$DEB" >/dev/null
touch "$MARKER"
getent passwd hearth >/dev/null || fail "no hearth user"
[ "$(stat -c '%U:%G %a' /var/lib/hearth)" = "hearth:hearth 750" ] || fail "/var/lib/hearth is $(stat -c '%U:%G %a' /var/lib/hearth)"
[ "$(stat -c '%U:%G %a' /etc/hearth/hearth.env)" = "root:hearth 640" ] || fail "/etc/hearth/hearth.env is $(stat -c '%U:%G %a' /etc/hearth/hearth.env)"
command -v hearth >/dev/null || fail "hearth is not on PATH"
if command -v systemd-analyze >/dev/null; then
  # Any complaint about our unit (unknown or misspelt directive, bad value) fails; other units' noise is ignored.
  if systemd-analyze verify --man=no "$UNIT" 2>&1 | grep 'hearth.service' | tee "$WORK/verify" | grep -q .; then
    fail "systemd-analyze verify: $(cat "$WORK/verify")"
  fi
fi

say "start the installed daemon as the unit does"
start_daemon
wait_health
say "/health answered $HEALTH_MS ms after the start: $HEALTH"
case "$HEALTH" in *'"status":"ok"'* | *'"status":"degraded"'*) ;; *) fail "unexpected /health: $HEALTH" ;; esac
[ "$(stat -c %U "/proc/$PID")" = hearth ] || fail "the daemon runs as $(stat -c %U "/proc/$PID")"
# CAP_NET_BIND_SERVICE is capability 10: bit 0x400 of the ambient and effective sets.
for set in CapAmb CapEff; do
  caps=$(sed -n "s/^$set:[[:space:]]*//p" "/proc/$PID/status")
  [ $((0x$caps & 0x400)) -ne 0 ] || fail "the daemon lacks CAP_NET_BIND_SERVICE in $set ($caps)"
  [ $((0x$caps & ~0x400)) -eq 0 ] || fail "the daemon has more capabilities than CAP_NET_BIND_SERVICE in $set ($caps)"
done
# Served from /usr/lib/hearth/node_modules (left out of the bundle) and by bundled code.
http "http://127.0.0.1:$HTTP_PORT/api/v1/docs/static/swagger-ui.css" >/dev/null || fail "the API docs' assets are not served"
http "http://127.0.0.1:$HTTP_PORT/metrics" | grep -q '^hearth_http_requests_total' || fail "no /metrics"
TOKEN=$(http "http://127.0.0.1:$HTTP_PORT/api/v1/auth/setup" POST '{"email":"owner@example.test","password":"package test password"}' |
  node -p "JSON.parse(require('fs').readFileSync(0,'utf8')).data.accessToken") || fail "setup failed"
export TOKEN
[ "$(stat -c '%U %a' /var/lib/hearth/hearth.env)" = "hearth 600" ] || fail "generated secrets are $(stat -c '%U %a' /var/lib/hearth/hearth.env)"
[ "$(stat -c '%U' /var/lib/hearth/hearth.db)" = hearth ] || fail "the database is not the hearth user's"
head -n 1 "$WORK/daemon.log" | node -e "JSON.parse(require('fs').readFileSync(0,'utf8'))" || fail "the log is not JSON lines off a terminal"

say "the CLI beside the running daemon"
hearth users list | tee "$WORK/users" | sed 's/^/  /'
grep -q owner@example.test "$WORK/users" || fail "hearth users list does not show the owner"
# Warnings are this CI machine's (no Caddy running, no Tailscale); a failure would be a false alarm
# on a correct install (the daemon's own port, the package's folder modes), so none may appear.
hearth doctor | sed 's/^/  /' || fail "hearth doctor found a failure on the installed package (findings above)"

stop_daemon
[ "$STATUS" -eq 0 ] || fail "the daemon exited $STATUS on SIGTERM"

say "a third-party plugin (examples/hearth-plugin-template) dropped into /var/lib/hearth/plugins"
plugin=/var/lib/hearth/plugins/bookmarks
cp -r examples/hearth-plugin-template "$plugin"
# Transpiled only (its import of hearth/plugin-api stays): it must resolve to the installed daemon's module.
node_modules/.bin/esbuild "$plugin/src/index.ts" --format=esm --platform=node --outfile="$plugin/index.js" --log-level=warning
chown -R hearth:hearth "$plugin"
start_daemon
wait_health
http "http://127.0.0.1:$HTTP_PORT/api/v1/bookmarks" POST '{"url":"https://example.org","title":"Example"}' >/dev/null ||
  fail "the plugin's route did not answer 201"
answer=$(http "http://127.0.0.1:$HTTP_PORT/api/v1/bookmarks" POST '{"url":"https://example.org","title":"Again"}') &&
  fail "a duplicate bookmark was accepted"
case "$answer" in *'"code":"BOOKMARK_EXISTS"'*) ;; *) fail "the plugin's HttpError did not reach the envelope: $answer" ;; esac
stop_daemon

say "install the same package again, then upgrade to a newer version: data kept, daemon starts again"
dpkg -i "$DEB" >/dev/null
echo 'HEARTH_RATE_LIMIT=7000' >>/etc/hearth/hearth.env # a local setting, kept by the upgrade
# The newer version: the same package repacked with "+test1" appended to its version.
dpkg-deb -R "$DEB" "$WORK/next"
sed -i 's/^Version: .*/&+test1/' "$WORK/next/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz -z1 --build "$WORK/next" "$WORK/next.deb" >/dev/null
dpkg -i "$WORK/next.deb" >/dev/null
dpkg-query -W -f='${Version}' hearth | grep -q '+test1$' || fail "the upgrade did not install"
[ "$(stat -c '%U:%G %a' /var/lib/hearth)" = "hearth:hearth 750" ] || fail "the upgrade changed /var/lib/hearth"
grep -q '^HEARTH_RATE_LIMIT=7000$' /etc/hearth/hearth.env || fail "the upgrade lost the local settings"
[ "$(stat -c '%U:%G %a' /etc/hearth/hearth.env)" = "root:hearth 640" ] || fail "the upgrade changed /etc/hearth/hearth.env's mode"
start_daemon
wait_health
hearth users list | grep -q owner@example.test || fail "the owner is gone after the upgrade"
stop_daemon

say "remove: settings, data and user stay"
dpkg -r hearth >/dev/null
[ -e /usr/lib/hearth/hearthd.mjs ] && fail "/usr/lib/hearth survived a remove"
[ -f /var/lib/hearth/hearth.db ] || fail "remove deleted the data"
getent passwd hearth >/dev/null || fail "remove deleted the user"

say "purge: user, data and files gone"
dpkg --purge hearth >/dev/null
for path in /usr/lib/hearth /usr/bin/hearth /var/lib/hearth /etc/hearth "$UNIT" /etc/systemd/system/multi-user.target.wants/hearth.service; do
  [ -e "$path" ] && fail "$path survived the purge"
done
getent passwd hearth >/dev/null && fail "the hearth user survived the purge"
getent group hearth >/dev/null && fail "the hearth group survived the purge"
say "ok (start to /health: $HEALTH_MS ms)"
