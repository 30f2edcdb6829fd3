#!/bin/sh
# Install the Debian packages `make graphs` needs (not needed by make/test/bench):
# PyTorch, torchvision and ONNX for scripts/export_torchvision.py and
# scripts/onnx2graph.py, run with /usr/bin/python3.  Only when some are missing.
# Idempotent and quiet when everything is there.  Needs root (or sudo).
set -eu
PKGS="python3-torch python3-torchvision python3-onnx"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps-graphs: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
