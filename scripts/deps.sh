#!/bin/sh
# Install the Debian packages memplan needs, only when some are missing.
# Idempotent and quiet when everything is there.  Needs root (or sudo).
# PKGS in the environment replaces the list (scripts/deps-graphs.sh uses it).
set -eu
PKGS=${PKGS:-"build-essential pkg-config libigraph-dev libglpk-dev glpk-utils check libsubunit-dev \
libjansson-dev libsqlite3-dev sqlite3 libcairo2-dev libxml2-dev python3"}
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "${DEPS_NAME:-deps}: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
