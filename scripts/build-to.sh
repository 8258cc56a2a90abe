#!/usr/bin/env bash
# Compile src/ into dist/ (or another directory inside the repository, e.g. .dist-pty, so parallel
# work never fights over dist/; use it with KEEL_DIST), copy the JSON/MD data files beside the
# compiled modules, and bundle the server. `npm run build` is this script with no argument.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
rm -rf "$out"
npx tsc -p tsconfig.build.json --outDir "$out"
(cd src && find . \( -name '*.json' -o -name '*.md' \) -print0 | xargs -0 -I{} cp --parents {} "../$out/")
KEEL_DIST="$out" node scripts/bundle.js
# The console (console/, an npm workspace) builds into console/dist, which the server serves at /ui/.
npm run build --workspace console --silent
