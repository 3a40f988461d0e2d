# shellcheck shell=bash
# A fresh Debian 12 (minbase) from Debian's mirror; apt in it sees Debian's repositories only.
MIRROR=${HEARTH_DEPLOY_MIRROR:-$(debian_mirror)}
[ -n "$MIRROR" ] || fail "no Debian mirror in /etc/apt/sources*: set HEARTH_DEPLOY_MIRROR"
SECURITY_MIRROR=$(debian_security_mirror)
mkdir -p "$ROOT"
t=$(date +%s%3N)
if [ -n "${HEARTH_DEPLOY_ROOT_TARBALL:-}" ]; then
  tar -C "$ROOT" -xzf "$HEARTH_DEPLOY_ROOT_TARBALL" || fail "cannot unpack $HEARTH_DEPLOY_ROOT_TARBALL"
  figure "root unpacked from $HEARTH_DEPLOY_ROOT_TARBALL: $(ms_to_s $(($(date +%s%3N) - t))) s"
else
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || fail "debootstrap from $MIRROR failed"
  figure "debootstrap --variant=minbase bookworm from $MIRROR: $(ms_to_s $(($(date +%s%3N) - t))) s"
fi
{
  echo "deb $MIRROR bookworm main"
  echo "deb $MIRROR bookworm-updates main"
  [ -n "$SECURITY_MIRROR" ] && echo "deb $SECURITY_MIRROR bookworm-security main"
} >"$ROOT/etc/apt/sources.list"
rm -f "$ROOT"/etc/apt/sources.list.d/*
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Maintainer scripts must not start services (no init runs here): the test starts them as their units would.
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
mount --bind /proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
in_root apt-get update -qq >"$WORK/apt.log" 2>&1 || fail "apt-get update in the root failed"
grep -q '^VERSION_CODENAME=bookworm$' "$ROOT/etc/os-release" || fail "the root is not Debian 12"
