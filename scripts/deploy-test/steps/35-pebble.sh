# shellcheck shell=bash
# pebble, Debian's ACME test server, as an unprivileged user in the root: its HTTPS from a throw-away CA
# made here (PEBBLE_CA, a path inside the root), its directory at PEBBLE_DIRECTORY. Challenges are
# validated against Caddy's ports, or taken as valid with PEBBLE_VA_ALWAYS_VALID=1 (the default here:
# no public name resolves to this machine).
PEBBLE_PORT=$(free_port)
PEBBLE_MGMT_PORT=$(free_port)
pki="$ROOT/etc/pebble-test"
mkdir -p "$pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/ca.key" -out "$pki/ca.pem" \
  -days 2 -subj '/CN=hearth deploy-test CA' >/dev/null 2>&1 || fail "openssl: no test CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/leaf.key" -out "$pki/leaf.csr" \
  -subj '/CN=localhost' >/dev/null 2>&1 || fail "openssl: no certificate request"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$pki/ext"
openssl x509 -req -in "$pki/leaf.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -out "$pki/leaf.pem" \
  -days 2 -extfile "$pki/ext" >/dev/null 2>&1 || fail "openssl: no certificate for pebble"
chmod 0644 "$pki"/*
cat >"$pki/pebble.json" <<PEBBLE
{ "pebble": {
  "listenAddress": "127.0.0.1:$PEBBLE_PORT", "managementListenAddress": "127.0.0.1:$PEBBLE_MGMT_PORT",
  "certificate": "/etc/pebble-test/leaf.pem", "privateKey": "/etc/pebble-test/leaf.key",
  "httpPort": $CADDY_HTTP_PORT, "tlsPort": $CADDY_HTTPS_PORT, "ocspResponderURL": "", "externalAccountBindingRequired": false
} }
PEBBLE
PEBBLE_CA=/etc/pebble-test/ca.pem
PEBBLE_DIRECTORY="https://127.0.0.1:$PEBBLE_PORT/dir"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin PEBBLE_VA_NOSLEEP=1 PEBBLE_VA_ALWAYS_VALID="${PEBBLE_VA_ALWAYS_VALID:-1}" \
  /usr/bin/setpriv --reuid=nobody --regid=nogroup --clear-groups -- /usr/bin/pebble -config /etc/pebble-test/pebble.json \
  >>"$WORK/pebble.log" 2>&1 &
UNIT_PIDS[pebble]=$!
deadline=$(($(date +%s) + 30))
until NODE_EXTRA_CA_CERTS="$ROOT$PEBBLE_CA" http "$PEBBLE_DIRECTORY" >/dev/null 2>&1; do
  unit_running pebble || fail "pebble exited"
  [ "$(date +%s)" -lt "$deadline" ] || fail "pebble's directory did not answer at $PEBBLE_DIRECTORY"
  sleep 0.2
done
say "pebble (pid ${UNIT_PIDS[pebble]}): $PEBBLE_DIRECTORY"
