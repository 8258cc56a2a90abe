#!/usr/bin/env bash
# Compile src/ into another directory inside the repository (e.g. .dist-pty), with the JSON/MD
# assets `nest build` would copy, so parallel work never fights over dist/. Use with KEEL_DIST.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/build-to.sh <dir inside the repo>}"
rm -rf "$out"
# tsc emits even when files mid-edit elsewhere fail to type-check; report, do not stop.
npx tsc -p tsconfig.build.json --outDir "$out" || echo "build-to: type errors above (output emitted anyway)" >&2
(cd src && find . \( -name '*.json' -o -name '*.md' \) -print0 | xargs -0 -I{} cp --parents {} "../$out/")
KEEL_DIST="$out" node scripts/bundle.js
