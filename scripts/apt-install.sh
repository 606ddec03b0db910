#!/usr/bin/env bash
# Installs the Debian packages among PACKAGE... that are missing (as root, or
# through sudo), saying which on standard error; nothing when all are there.
# Usage: scripts/apt-install.sh WHO PACKAGE...   (WHO prefixes the message)
set -euo pipefail
who=${1:?usage: scripts/apt-install.sh WHO PACKAGE...}
shift
missing=()
for p in "$@"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "$who: installing ${missing[*]}" >&2
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# A package with a service (munge, slurmctld, prometheus) starts it on install unless policy-rc.d says no: the
# tests start what they need themselves, on their own terms, and leave nothing running.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" > /dev/null
  as_root chmod 755 "$policy"
  trap 'as_root rm -f "$policy"' EXIT
fi
as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
