#!/usr/bin/env bash
# n8n 2.41.1 as the e2e harness runs it: installed by install-n8n.sh when missing (minutes and
# about 3 GB the first time), run on that install's own Node 24 (n8n 2.41.1's package.json asks
# for Node >= 24; the machine's may be older). `bash test/e2e/n8n/n8n.sh start` is the root
# README's `n8n start`; any n8n command works (`n8n.sh --version`). n8n keeps its data in ~/.n8n.
set -euo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../../.." && pwd)"
DIR="$(bash "$SCRIPT_DIR/install-n8n.sh")"
# The Node package install-n8n.sh put next to n8n (node-<platform>-<arch>, as it names it).
NODE_PKG="$("$REPO_ROOT/node_modules/.bin/node" -p "'node-' + process.platform + '-' + process.arch")"
exec "$DIR/node_modules/$NODE_PKG/bin/node" "$DIR/node_modules/n8n/bin/n8n" "$@"
