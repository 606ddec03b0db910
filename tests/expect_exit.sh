#!/usr/bin/env bash
# A ferry run as a ctest test: passes only when the command exits with CODE
# and its output (standard output and error) holds TEXT. ctest's
# PASS_REGULAR_EXPRESSION alone would ignore the exit code.
# Usage: expect_exit.sh CODE TEXT COMMAND [ARG...]
set -u
code=$1 text=$2
shift 2
output=$("$@" 2>&1)
got=$?
if [ "$got" -ne "$code" ]; then
  printf '%s\n' "$output"
  echo "expect_exit: '$*' exited $got, expected $code" >&2
  exit 1
fi
if ! grep -qF -- "$text" <<< "$output"; then
  printf '%s\n' "$output"
  echo "expect_exit: '$*' did not print '$text'" >&2
  exit 1
fi
