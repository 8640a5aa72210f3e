#!/usr/bin/env bash
# Run the Playwright suite against a real `marginalia serve` in a throwaway home.
# Installs Debian's chromium when it is missing (CI machines may lack it); never
# `npx playwright install` (its browser download is not reachable here).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "installing Debian's chromium for the end-to-end tests"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
fi
home="$(mktemp -d "${TMPDIR:-/tmp}/marginalia-e2e-XXXXXX")"
accounts_home="$(mktemp -d "${TMPDIR:-/tmp}/marginalia-e2e-accounts-XXXXXX")"
trap 'rm -rf "$home" "$accounts_home"' EXIT
E2E_HOME="$home" E2E_ACCOUNTS_HOME="$accounts_home" npx playwright test "$@"
