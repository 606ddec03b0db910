#!/usr/bin/env bash
set -uo pipefail
out=${OUT:-/tmp/out}
bash scripts/gpu-build.sh $out/build.log || exit 1
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
for round in 1 2; do for wa in 1 8; do
  FERRY_X_WATCHERS=$wa run "watchers=$wa round $round" $f run stream --design pool --chunks 4K,64K,128K,256K --depth 1,4,8 $common
done; done
FERRY_X_WATCHERS=8 run "tune 20 watchers=8" $f tune stream --design pool,fused --latency 20us $common
FERRY_X_WATCHERS=8 run "tune 40 watchers=8" $f tune stream --design pool,fused --latency 40us $common
grep -E "best for" $out/ab.txt
