#!/usr/bin/env bash
# Finds the Chromium the browser tier drives (test/browser/playwright.config.ts) and prints its path
# on stdout; quick and idempotent when it is there. Looks at CHROMIUM_PATH, /usr/bin/chromium, then
# chromium / chromium-browser on PATH. When none is found and this runs as root on Debian (CI), it
# installs the distribution's package (`apt-get update` once, then `apt-get install -y chromium`);
# otherwise it says how to install it and exits 1. Playwright itself downloads no browser.
#   bash scripts/ensure-chromium.sh        # prints e.g. /usr/bin/chromium
set -euo pipefail
say() { printf '[ensure-chromium] %s\n' "$*" >&2; }

# a working binary: executable and answering --version (a broken install is not "present")
works() { [[ -n "$1" && -x "$1" ]] && "$1" --version >/dev/null 2>&1; }

find_chromium() {
  local c
  if [[ -n "${CHROMIUM_PATH:-}" ]]; then
    works "$CHROMIUM_PATH" && { echo "$CHROMIUM_PATH"; return 0; }
    say "CHROMIUM_PATH=$CHROMIUM_PATH is not a working Chromium"
    return 1
  fi
  for c in /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)" "$(command -v chromium-browser 2>/dev/null || true)"; do
    works "$c" && { echo "$c"; return 0; }
  done
  return 1
}

if path="$(find_chromium)"; then
  echo "$path"
  exit 0
fi
[[ -z "${CHROMIUM_PATH:-}" ]] || exit 1

if [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null; then
  say "Chromium not found; installing the Debian package (apt-get update, apt-get install -y chromium)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || { say "apt-get update failed"; exit 1; }
  apt-get install -y -qq chromium >&2 || { say "apt-get install -y chromium failed"; exit 1; }
  if path="$(find_chromium)"; then
    say "installed $("$path" --version 2>/dev/null)"
    echo "$path"
    exit 0
  fi
  say "chromium was installed but no working binary was found"
  exit 1
fi

say "Chromium not found (looked at /usr/bin/chromium, chromium and chromium-browser on PATH)."
say "Install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary."
exit 1
