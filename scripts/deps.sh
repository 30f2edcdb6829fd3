#!/bin/sh
# Install the Debian packages memplan needs, only when some are missing.
# Idempotent and quiet when everything is there.  Needs root (or sudo).
# PKGS in the environment replaces the list (scripts/deps-graphs.sh uses it).
set -eu
PKGS=${PKGS:-"build-essential pkg-config libigraph-dev libglpk-dev glpk-utils check libsubunit-dev \
libjansson-dev libsqlite3-dev sqlite3 libcairo2-dev python3"}
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "${DEPS_NAME:-deps}: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# another apt (unattended upgrades, a second make) may hold the locks: wait
# for them (up to 10 min) instead of failing at once
LOCK="-o DPkg::Lock::Timeout=600"
tries=0
# shellcheck disable=SC2086
until $SUDO apt-get $LOCK update -qq; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "${DEPS_NAME:-deps}: apt-get update keeps failing" >&2; exit 1; }
  echo "${DEPS_NAME:-deps}: apt-get update failed (another apt running?): retrying in 10 s" >&2
  sleep 10
done
# shellcheck disable=SC2086
$SUDO apt-get $LOCK install -y -qq --no-install-recommends $missing >/dev/null
