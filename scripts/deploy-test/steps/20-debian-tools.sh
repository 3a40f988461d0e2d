# shellcheck shell=bash
# Debian's own Caddy and pebble (an ACME test server), and dig: what the later steps drive.
in_root apt-get install -y -qq --no-install-recommends caddy pebble bind9-dnsutils >>"$WORK/apt.log" 2>&1 ||
  fail "apt-get install caddy pebble bind9-dnsutils failed"
in_root getent passwd caddy >/dev/null || fail "Debian's caddy package made no caddy user"
say "$(in_root caddy version)"
