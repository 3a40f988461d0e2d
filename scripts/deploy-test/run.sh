#!/usr/bin/env bash
# The deployment test: Hearth's Debian package on a fresh Debian 12 root file system made here
# (debootstrap --variant=minbase from the mirror this machine's apt uses), in a chroot with /proc and
# /dev bound, with nothing but Debian's repositories to resolve its Depends. No systemd runs there: each
# service (Hearth, Debian's Caddy) is started the way its unit starts it (lib.sh, unit_start).
#
#   sudo bash scripts/deploy-test/run.sh [dist/hearth_<v>_<arch>.deb]
#
# The steps are the files in steps/, run in the order of their names, sourced into this shell: each
# may use what the earlier ones set (ROOT, ports, TOKEN, ...) and lib.sh's helpers, and fails with
# `fail MESSAGE`. A new step is a new file. The summary at the end lists each step with its seconds.
# What a step finds set by the earlier ones: ROOT, WORK; CADDY_ADMIN (http://127.0.0.1:port),
# CADDY_HTTP_PORT, CADDY_HTTPS_PORT and caddy_start (30); PEBBLE_DIRECTORY and PEBBLE_CA, a path inside the
# root (35); API (Hearth's http://127.0.0.1:port/api/v1), HEARTH_HTTP_PORT, HEARTH_DNS_PORT and hearth_start
# (40); TOKEN (an agent key, exported), NOTE_ID (50); OWNER_TOKEN, the routes' names (HTTP_NAME, ACME_NAME,
# LAN_NAME), PEBBLE_ROOT and LOCAL_CA (files on the host), via_caddy, until_ok and proxy_health (60);
# 65 restarts Caddy empty. Steps 61-64 and 66-69 are free; 70 upgrades and 80 purges.
# lib.sh: in_root, unit_start/unit_stop/unit_running/unit_user, http, json, wait_http, free_port, figure, fail.
# Settings: HEARTH_DEPLOY_MIRROR (default: this machine's Debian mirror), HEARTH_DEPLOY_ROOT_TARBALL
# (a tarball of a debootstrapped root, instead of debootstrap: for repeated runs by hand),
# HEARTH_DEPLOY_KEEP=1 (leave the root and its logs in place for a look after a failure).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."
# shellcheck source=lib.sh
. "$HERE/lib.sh"

[ "$(id -u)" -eq 0 ] || { say "needs root (debootstrap, chroot, mounts)"; exit 1; }

DEB="${1:-}"
if [ -z "$DEB" ]; then
  npm run --silent package
  DEB="dist/hearth_$(node -p "require('./package.json').version")_$(dpkg --print-architecture).deb"
fi
[ -f "$DEB" ] || { say "no package at $DEB"; exit 1; }
DEB=$(realpath "$DEB")

WORK=$(mktemp -d /tmp/hearth-deploy.XXXXXX)
ROOT="$WORK/root"
trap cleanup EXIT
trap 'exit 130' INT TERM

SUMMARY=()
RUN_START=$(date +%s%3N)
for step in "$HERE"/steps/*.sh; do
  STEP=$(basename "$step" .sh)
  say "== $STEP"
  t0=$(date +%s%3N)
  # shellcheck source=/dev/null
  . "$step"
  SUMMARY+=("$(printf '%-28s ok  %6.1f s' "$STEP" "$(ms_to_s $(($(date +%s%3N) - t0)))")")
done
say "== summary"
for line in "${SUMMARY[@]}"; do say "  $line"; done
for line in "${FIGURES[@]}"; do say "  $line"; done
say "ok: every step passed in $(ms_to_s $(($(date +%s%3N) - RUN_START))) s"
