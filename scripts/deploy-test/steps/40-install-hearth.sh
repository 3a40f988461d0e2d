# shellcheck shell=bash
# `apt-get install ./hearth_<v>_<arch>.deb` resolving Depends from Debian's repositories, then the
# daemon started as hearth.service does, on ports picked here (written to /etc/hearth/hearth.env, the
# admin's settings file) and pointed at the Caddy and pebble above (pebble's CA, 0644 under /etc, is
# read by both users; the reconciliation timer, 10 minutes, never fires within the test, so it is a
# /health that notices a Caddy restart). Timed from apt-get to the first /health answer.
PKG=$(basename "$DEB")
cp "$DEB" "$ROOT/tmp/$PKG"
figure "package: $PKG, $(du -k "$DEB" | cut -f1) KiB (installed $(dpkg-deb -f "$DEB" Installed-Size) KiB); Depends: $(dpkg-deb -f "$DEB" Depends)"
INSTALL_START=$(date +%s%3N)
in_root apt-get install -y "/tmp/$PKG" >"$WORK/install.log" 2>&1 || fail "apt-get install /tmp/$PKG failed"
say "apt-get installed: $(sed -n '/NEW packages will be installed/,/upgraded/p' "$WORK/install.log" | sed '1d;$d' | xargs)"
HEARTH_HTTP_PORT=$(free_port)
HEARTH_DNS_PORT=$(free_port)
cat >>"$ROOT/etc/hearth/hearth.env" <<SETTINGS
HEARTH_PORT=$HEARTH_HTTP_PORT
HEARTH_HOST=127.0.0.1
HEARTH_DNS_PORT=$HEARTH_DNS_PORT
HEARTH_DNS_HOST=127.0.0.1
HEARTH_CADDY_ADMIN=$CADDY_ADMIN
HEARTH_PROXY_HTTP_PORT=$CADDY_HTTP_PORT
HEARTH_PROXY_HTTPS_PORT=$CADDY_HTTPS_PORT
HEARTH_ACME_DIRECTORY=$PEBBLE_DIRECTORY
HEARTH_ACME_CA_ROOT=$PEBBLE_CA
HEARTH_PROXY_RECONCILE_MS=600000
SETTINGS
API="http://127.0.0.1:$HEARTH_HTTP_PORT/api/v1"

# hearth_start: the unit's command, then waits for /health (HEALTH: its answer).
hearth_start() {
  unit_start hearth
  local deadline=$(($(date +%s) + 60))
  until HEALTH=$(http "$API/health" 2>/dev/null); do
    unit_running hearth || fail "the daemon exited before answering /health"
    [ "$(date +%s)" -lt "$deadline" ] || fail "no /health answer in 60 s"
    sleep 0.1
  done
}
hearth_start
figure "install to healthy (apt-get install of the package to the first /health answer): $(ms_to_s $(($(date +%s%3N) - INSTALL_START))) s"
figure "runtime: $(in_root /usr/lib/hearth/node --version) at /usr/lib/hearth/node"
say "/health: $HEALTH"
case "$HEALTH" in *'"status":"ok"'* | *'"status":"degraded"'*) ;; *) fail "unexpected /health: $HEALTH" ;; esac
PID=${UNIT_PIDS[hearth]}
[ "$(unit_user hearth)" = hearth ] || fail "the daemon runs as $(unit_user hearth)"
# CAP_NET_BIND_SERVICE is capability 10: bit 0x400 of the ambient and effective sets, and nothing else.
for set in CapAmb CapEff; do
  caps=$(sed -n "s/^$set:[[:space:]]*//p" "/proc/$PID/status")
  [ $((0x$caps)) -eq $((0x400)) ] || fail "the daemon's $set is $caps, not CAP_NET_BIND_SERVICE alone"
done
mode=$(in_root stat -c '%U:%G %a' /var/lib/hearth)
[ "$mode" = "hearth:hearth 750" ] || fail "/var/lib/hearth is $mode"
mode=$(in_root stat -c '%U %a' /var/lib/hearth/hearth.env)
[ "$mode" = "hearth 600" ] || fail "the generated secrets are $mode"
