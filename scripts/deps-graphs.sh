#!/bin/sh
# Install the Debian packages `make graphs` needs (not needed by make/test/bench):
# PyTorch, torchvision and ONNX for scripts/export_torchvision.py and
# scripts/onnx2graph.py, run with /usr/bin/python3.  Only when some are missing.
set -eu
PKGS="python3-torch python3-torchvision python3-onnx" DEPS_NAME=deps-graphs \
  exec sh "$(dirname "$0")/deps.sh"
