# shellcheck shell=bash
# A newer version (the same package repacked with "+deploy1" appended to its version) over the running
# installation: the admin's settings, the data and the keys stay, and the daemon starts again.
dpkg-deb -R "$DEB" "$WORK/next"
sed -i 's/^Version: .*/&+deploy1/' "$WORK/next/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz -z1 --build "$WORK/next" "$ROOT/tmp/next.deb" >/dev/null
rm -rf "$WORK/next"
unit_stop hearth
[ "$UNIT_STATUS" -eq 0 ] || fail "the daemon exited $UNIT_STATUS on SIGTERM"
in_root apt-get install -y /tmp/next.deb >>"$WORK/install.log" 2>&1 || fail "apt-get install of the newer version failed"
in_root dpkg-query -W -f='${Version}' hearth | grep -q '+deploy1$' || fail "the upgrade did not install"
grep -q "^HEARTH_PORT=$HEARTH_HTTP_PORT\$" "$ROOT/etc/hearth/hearth.env" || fail "the upgrade lost /etc/hearth/hearth.env's settings"
hearth_start
[ "$(http "$API/notes/$NOTE_ID" | json j.data.content)" = "a round trip" ] || fail "the note is gone after the upgrade"
in_root hearth users list | grep -q owner@example.test || fail "the owner is gone after the upgrade"
say "upgraded to $(in_root dpkg-query -W -f='${Version}' hearth): settings, the note and the API key kept"
