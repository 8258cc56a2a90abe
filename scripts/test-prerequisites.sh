#!/usr/bin/env bash
# What the tests need besides Keel's own dependencies:
# - the opencode TUIs test/opencode-tui drives (npm packages, test-only: test/clients/package.json,
#   installed here from the npm registry when missing; never Keel dependencies);
# - from Debian: Chromium (the console's browser tests) and nginx (test/deploy-nginx). Installs what
#   is missing when run as root with apt-get; otherwise names the command and stops, so a missing
#   package is one clear line instead of a failing suite.
set -euo pipefail
cd "$(dirname "$0")/.."
for version in 1.18.33 1.1.11; do
  if [ ! -x "test/clients/node_modules/opencode-tui-$version/bin/opencode" ]; then
    echo "installing the opencode TUIs for the tests (npm install --prefix test/clients)"
    npm install --prefix test/clients --no-audit --no-fund --loglevel=error
    break
  fi
done
missing=()
[ -x "${KEEL_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} for the tests (Debian packages)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
else
  echo "the tests need ${missing[*]}: run  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
