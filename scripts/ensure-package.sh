#!/usr/bin/env bash
# Finds a program the cluster (scripts/cluster.ts) runs and prints its path on stdout; quick and
# idempotent when it is there. When it is missing and this runs as root on Debian (CI), it installs
# the distribution's package (`apt-get update` once per run, then `apt-get install -y <package>`);
# otherwise it says how to install it and exits 1.
#   bash scripts/ensure-package.sh haproxy haproxy          # prints e.g. /usr/sbin/haproxy
#   bash scripts/ensure-package.sh redis-server redis-server
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: bash scripts/ensure-package.sh <program> <debian-package>" >&2; exit 2; }
program=$1 package=$2
say() { printf '[ensure-package] %s\n' "$*" >&2; }
find_program() { PATH="$PATH:/usr/sbin:/sbin" command -v "$program" 2>/dev/null; }

if path="$(find_program)"; then
  echo "$path"
  exit 0
fi
if [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null; then
  say "$program not found; installing the Debian package $package (apt-get update, apt-get install -y $package)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || { say "apt-get update failed"; exit 1; }
  apt-get install -y -qq --no-install-recommends "$package" >&2 || { say "apt-get install -y $package failed"; exit 1; }
  if path="$(find_program)"; then
    say "installed $package: $path"
    echo "$path"
    exit 0
  fi
  say "$package was installed but $program is not on PATH"
  exit 1
fi
say "$program not found. Install it (Debian/Ubuntu: sudo apt-get install -y $package)."
exit 1
