#!/usr/bin/env bash
# Checks that the C++ files git tracks under src/, tests/ and tools/ (or under
# the PATHs given) are formatted as .clang-format says: prints each file that
# differs and exits 1 if any does, 0 if none does. It changes no file.
# With --fix it formats the files that differ, in place, and says which.
# Uses clang-format-14 where installed (Debian 12's, which CI runs; other
# versions break some lines differently), else clang-format; CLANG_FORMAT=PATH
# picks another.
# Usage: scripts/check-format.sh [--fix] [PATH...]
set -euo pipefail
usage="usage: scripts/check-format.sh [--fix] [PATH...]"
fix=0
paths=()
for arg in "$@"; do
  case $arg in
    --fix) fix=1 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "check-format: unknown option $arg; $usage" >&2; exit 1 ;;
    *) paths+=("$arg") ;;
  esac
done
[ ${#paths[@]} -eq 0 ] && paths=(src tests tools)

clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" > /dev/null; then clang_format=$candidate; break; fi
  done
fi
if [ -z "$clang_format" ] || ! command -v "$clang_format" > /dev/null; then
  echo "check-format: clang-format is not installed (Debian: apt-get install clang-format)" >&2
  exit 1
fi
version=$("$clang_format" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
[ "${version%%.*}" = 14 ] \
  || echo "check-format: note: $clang_format is $version; CI checks with 14, which may break some lines differently" >&2

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# A .clang-format that clang-format cannot read would otherwise show as every file differing.
"$clang_format" --style=file --dump-config > /dev/null || { echo "check-format: $clang_format cannot read .clang-format" >&2; exit 1; }

mapfile -d '' files < <(git ls-files -z -- "${paths[@]}" | grep -zE '\.(cpp|hpp|cu|cuh|h|cc)$' || true)
existing=()
for f in ${files[@]+"${files[@]}"}; do [ -f "$f" ] && existing+=("$f"); done
if [ ${#existing[@]} -eq 0 ]; then
  echo "check-format: no tracked C++ files under ${paths[*]}" >&2
  exit 1
fi

# One clang-format per file, on every core: --dry-run -Werror exits non-zero when the file would change.
# ($clang_format and $1 are the inner sh's to expand, hence the single quotes.)
export clang_format
# shellcheck disable=SC2016
mapfile -t differing < <(printf '%s\0' "${existing[@]}" \
  | xargs -0 -n 1 -P "$(nproc)" sh -c '"$clang_format" --style=file --dry-run -Werror --ferror-limit=1 "$1" > /dev/null 2>&1 || echo "$1"' sh \
  | sort)

if [ ${#differing[@]} -eq 0 ]; then
  echo "check-format: ${#existing[@]} files formatted as .clang-format says"
  exit 0
fi
if [ $fix = 1 ]; then
  "$clang_format" --style=file -i "${differing[@]}"
  printf 'formatted %s\n' "${differing[@]}"
  echo "check-format: formatted ${#differing[@]} of ${#existing[@]} files"
  exit 0
fi
printf '%s\n' "${differing[@]}"
echo "check-format: ${#differing[@]} of ${#existing[@]} files differ from .clang-format; scripts/check-format.sh --fix formats them" >&2
exit 1
