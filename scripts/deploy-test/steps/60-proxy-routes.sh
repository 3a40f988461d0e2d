# shellcheck shell=bash
# Three routes made by the owner through Hearth's API, each to Hearth's own /health as the upstream: a
# plain HTTP one, an HTTPS one whose certificate Caddy obtains from pebble, and an HTTPS one for a LAN
# name from Caddy's local CA. Each is reached through Caddy with curl (--resolve, the route's name as
# Host and SNI), verified against pebble's root (its management port's /roots/0) and against the local
# CA downloaded from GET /hal/network/ssl/ca.
OWNER_TOKEN=$(TOKEN='' http "$API/auth/login" POST '{"email":"owner@example.test","password":"deploy test password"}' | json j.data.accessToken) ||
  fail "the owner cannot log in"
UPSTREAM="http://127.0.0.1:$HEARTH_HTTP_PORT"
HTTP_NAME=app.home.test
ACME_NAME=app.example.net
LAN_NAME=nas.home.arpa
ISSUE_START=$(date +%s%3N)
for route in "{\"domain\":\"$HTTP_NAME\",\"target\":\"$UPSTREAM\"}" \
  "{\"domain\":\"$ACME_NAME\",\"target\":\"$UPSTREAM\",\"ssl\":true}" \
  "{\"domain\":\"$LAN_NAME\",\"target\":\"$UPSTREAM\",\"ssl\":true}"; do
  answer=$(TOKEN=$OWNER_TOKEN http "$API/hal/network/proxy/routes" POST "$route") || fail "POST /hal/network/proxy/routes $route: $answer"
  error=$(json j.data.error <<<"$answer")
  [ "$error" = null ] || fail "Caddy refused $route: $error"
done
say "3 routes created through the API: $HTTP_NAME (http), $ACME_NAME (pebble), $LAN_NAME (local CA)"

# via_caddy NAME [CURL OPTIONS...]: Hearth's /health through Caddy by NAME (https when a --cacert is given).
via_caddy() {
  local name=$1 scheme=http port=$CADDY_HTTP_PORT
  shift
  [[ " $* " == *" --cacert "* ]] && scheme=https port=$CADDY_HTTPS_PORT
  curl -sS --fail --max-time 10 --resolve "$name:$port:127.0.0.1" "$@" "$scheme://$name:$port/api/v1/health"
}
# until_ok SECONDS WHAT COMMAND...: runs COMMAND every half second until it succeeds, or fails the step.
until_ok() {
  local deadline=$(($(date +%s) + $1)) what=$2
  shift 2
  until "$@" >"$WORK/last-try.out" 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what (last try: $(tr -s '\n' ' ' <"$WORK/last-try.out" | cut -c1-300))"
    sleep 0.5
  done
}
# Hearth's own /health answer, as the upstream proves the request went through.
served_by_hearth() { via_caddy "$@" | grep '"components"' >/dev/null; }

until_ok 30 "$HTTP_NAME is not served through Caddy on $CADDY_HTTP_PORT" served_by_hearth "$HTTP_NAME"
say "http://$HTTP_NAME:$CADDY_HTTP_PORT through Caddy reaches Hearth"

PEBBLE_ROOT="$WORK/pebble-root.pem"
curl -sS --fail --max-time 10 --cacert "$ROOT$PEBBLE_CA" "https://127.0.0.1:$PEBBLE_MGMT_PORT/roots/0" >"$PEBBLE_ROOT" ||
  fail "pebble's management port gave no root"
until_ok 120 "$ACME_NAME is not served with pebble's certificate" served_by_hearth "$ACME_NAME" --cacert "$PEBBLE_ROOT"
figure "certificate from pebble through Caddy, routes created to HTTPS verified against pebble's root: $(ms_to_s $(($(date +%s%3N) - ISSUE_START))) s"

LOCAL_CA="$WORK/local-ca.pem"
curl -sS --fail --max-time 10 -H "authorization: Bearer $OWNER_TOKEN" -H 'accept: application/x-pem-file' \
  "$API/hal/network/ssl/ca" >"$LOCAL_CA" || fail "GET /hal/network/ssl/ca failed: $(cat "$LOCAL_CA")"
grep -q -- '-----BEGIN CERTIFICATE-----' "$LOCAL_CA" || fail "GET /hal/network/ssl/ca gave no PEM"
until_ok 60 "$LAN_NAME does not verify against the downloaded local CA" served_by_hearth "$LAN_NAME" --cacert "$LOCAL_CA"
say "https://$LAN_NAME verifies against the CA from /hal/network/ssl/ca ($(openssl x509 -in "$LOCAL_CA" -noout -subject))"

ssl_valid() {
  TOKEN=$OWNER_TOKEN http "$API/hal/network/ssl/status" |
    json "j.data.length === 2 && j.data.every((e) => e.status === 'valid') && /Pebble/.test(j.data.find((e) => e.domain === '$ACME_NAME').issuer)" |
    grep -qx true
}
until_ok 60 "GET /hal/network/ssl/status does not show both certificates valid" ssl_valid
proxy_health() { http "$API/health" | json j.data.components.proxy || true; }
case "$(proxy_health)" in *'"status":"ok"'*'3 routes served by Caddy'*) ;; *) fail "/health's proxy: $(proxy_health)" ;; esac
say "ssl/status: both certificates valid; /health proxy: $(proxy_health)"
