#!/usr/bin/env bash
set -uo pipefail
out=${OUT:-/tmp/out}
bash scripts/gpu-build.sh $out/build.log || exit 1
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
for w in 8 16; do for fl in 1 8; do
  FERRY_X_DEALT=1 FERRY_X_WORKERS=$w FERRY_X_BATCH=1 FERRY_X_FLAGGERS=$fl run "dealt w=$w f=$fl" $f run stream --design pool --chunks 4K,64K,128K,256K,512K --depth 1,2,4,8 $common
done; done
for w in 8 16; do
FERRY_X_DEALT=1 FERRY_X_WORKERS=$w FERRY_X_BATCH=1 FERRY_X_FLAGGERS=8 run "tune 40 dealt w=$w f=8" $f tune stream --design pool --latency 40us $common
FERRY_X_DEALT=1 FERRY_X_WORKERS=$w FERRY_X_BATCH=1 FERRY_X_FLAGGERS=8 run "tune 20 dealt w=$w f=8" $f tune stream --design pool --latency 20us $common
done
