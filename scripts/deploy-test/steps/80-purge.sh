# shellcheck shell=bash
# Purge: the package's files, its data, its settings and its user are gone; Debian's Caddy is left as it was.
unit_stop hearth
[ "$UNIT_STATUS" -eq 0 ] || fail "the daemon exited $UNIT_STATUS on SIGTERM"
in_root apt-get purge -y hearth >>"$WORK/install.log" 2>&1 || fail "apt-get purge hearth failed"
for path in /usr/lib/hearth /usr/bin/hearth /var/lib/hearth /etc/hearth /lib/systemd/system/hearth.service; do
  [ -e "$ROOT$path" ] && fail "$path survived the purge"
done
in_root getent passwd hearth >/dev/null && fail "the hearth user survived the purge"
unit_running caddy || fail "Caddy stopped with Hearth's purge"
unit_stop caddy
