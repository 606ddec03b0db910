#!/usr/bin/env bash
# `cmake --install` and the Debian package, each into a scratch root, then run
# from there as a user would: `ferry list`, a quick link run on the emulator,
# and `ferry compare` through a Python that has no ferry package of its own
# (so it must find the one installed beside the binary).
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

# A Python without the ferry package: ferry must give it the installed one.
bare_python=$(command -v python3)
"$bare_python" -c "import ferry" 2> /dev/null && fail "$bare_python already has a ferry package; the test needs one without"

runs_from() {
  local ferry=$1 where=$2
  [ -x "$ferry" ] || fail "$where: no $ferry"
  "$ferry" list | grep -q "^ *link" || fail "$where: ferry list does not list link"
  "$ferry" run link --backend emu --quick --quiet --json "$scratch/link.json" > "$scratch/link.txt" ||
    fail "$where: ferry run link --quick failed: $(tail -3 "$scratch/link.txt")"
  grep -q "link: PASSED" "$scratch/link.txt" || fail "$where: the link run did not pass"
  FERRY_PYTHON=$bare_python "$ferry" compare "$scratch/link.json" "$scratch/link.json" > "$scratch/compare.txt" ||
    fail "$where: ferry compare did not run from the installed package: $(cat "$scratch/compare.txt")"
  echo "install test: $where: ferry list, run link --quick and compare work"
}

cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log" || { cat "$scratch/install.log"; exit 1; }
[ -f "$scratch/prefix/share/ferry/python/ferry/__main__.py" ] || fail "cmake --install: no Python package"
[ -f "$scratch/prefix/share/doc/ferry/README.md" ] || fail "cmake --install: no README"
runs_from "$scratch/prefix/bin/ferry" "cmake --install"
# Slurm's HealthCheckProgram, which runs the ferry installed beside it (two folders up, in bin).
healthcheck_installed() {
  local script=$1/libexec/ferry/slurm-healthcheck
  [ -x "$script" ] || fail "$2: no executable $script"
  env -i "$script" --help | grep -q "^usage: slurm-healthcheck" || fail "$2: $script --help says no usage"
}
healthcheck_installed "$scratch/prefix" "cmake --install"

(cd "$build" && cpack -G DEB -B "$scratch/deb" > "$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; exit 1; }
deb=$(ls "$scratch"/deb/ferry_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
# What ferry declares, and libc6: proof that dpkg-shlibdeps ran (what else it lists depends on how the build linked).
for needed in python3-matplotlib libc6; do
  [[ "$depends" == *"$needed"* ]] || fail "the .deb does not depend on $needed: $depends"
done
dpkg-deb -x "$deb" "$scratch/root"
runs_from "$scratch/root/usr/bin/ferry" ".deb ($(basename "$deb"))"
healthcheck_installed "$scratch/root/usr" ".deb"
