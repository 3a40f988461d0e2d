# shellcheck shell=bash
# `systemctl restart caddy`: Caddy stopped and started again from its Caddyfile, without Hearth's routes.
# /health's proxy component says so (degraded, with the reason), Hearth pushes the routes again, and
# both the HTTP and the pebble HTTPS route are served again, with no restart of Hearth.
unit_stop caddy
caddy_start
say "Caddy restarted (pid ${UNIT_PIDS[caddy]}) from its Caddyfile"
deadline=$(($(date +%s) + 60))
# The answer that noticed is kept: Hearth pushes the routes again right after it, so the next may be ok.
until noticed=$(proxy_health) && [[ "$noticed" == *'"status":"degraded"'* ]]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "/health never noticed Caddy's restart: $noticed"
  sleep 0.2
done
say "/health proxy after the restart: $noticed"
[[ "$noticed" == *"Caddy no longer serves Hearth's config"* || "$noticed" == *"Caddy unreachable"* ]] ||
  fail "/health's proxy is degraded without the reason: $noticed"
RESTORE_START=$(date +%s%3N)
until_ok 60 "$HTTP_NAME is not served again after Caddy's restart" served_by_hearth "$HTTP_NAME"
until_ok 60 "$ACME_NAME is not served again with pebble's certificate" served_by_hearth "$ACME_NAME" --cacert "$PEBBLE_ROOT"
until_ok 30 "$LAN_NAME does not verify again against the local CA" served_by_hearth "$LAN_NAME" --cacert "$LOCAL_CA"
figure "Caddy restarted empty to every route served again: $(ms_to_s $(($(date +%s%3N) - RESTORE_START))) s"
health_restored() {
  local proxy
  proxy=$(proxy_health)
  echo "$proxy"
  [[ "$proxy" == *'"status":"ok"'*'3 routes served by Caddy; pushed again at'* ]]
}
until_ok 30 "/health's proxy is not ok again" health_restored
say "/health proxy: $(proxy_health)"
