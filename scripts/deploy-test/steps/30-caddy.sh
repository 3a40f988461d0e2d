# shellcheck shell=bash
# Debian's Caddy started as its caddy.service does (user caddy, `caddy run --environ --config
# /etc/caddy/Caddyfile`), from an appliance Caddyfile with ports picked here: this machine's 80, 443
# and 2019 are not the test's. CADDY_ADMIN is what Hearth is told (HEARTH_CADDY_ADMIN).
CADDY_ADMIN_PORT=$(free_port)
CADDY_HTTP_PORT=$(free_port)
CADDY_HTTPS_PORT=$(free_port)
CADDY_ADMIN="http://127.0.0.1:$CADDY_ADMIN_PORT"
cat >"$ROOT/etc/caddy/Caddyfile" <<CADDYFILE
{
	admin 127.0.0.1:$CADDY_ADMIN_PORT
	http_port $CADDY_HTTP_PORT
	https_port $CADDY_HTTPS_PORT
}
CADDYFILE
caddy_start() {
  unit_start caddy
  wait_http "$CADDY_ADMIN/config/" 30 || fail "Caddy's admin API did not answer on $CADDY_ADMIN"
  [ "$(unit_user caddy)" = caddy ] || fail "Caddy runs as $(unit_user caddy), not caddy"
}
caddy_start
say "Caddy (pid ${UNIT_PIDS[caddy]}) runs as caddy; admin API on $CADDY_ADMIN"
