#!/usr/bin/env bash
set -uo pipefail
out=${OUT:-/tmp/out}
bash scripts/gpu-build.sh $out/build.log || exit 1
f=build-gpu/src/ferry
common="--total 256M --iterations 2 --profile docs/results/profile-h100.json"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 100 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
for b in 0 1024 2048; do
  FERRY_X_BLOCK=$b run "block=$b" $f run stream --design pool --chunks 4K,64K,128K,256K --depth 1,4,8 $common
done
awk '/^===/{name=$2} /Throughput:/{sec=1} /Chunk latency/{sec=2} sec>=1 && /^  pool +[0-9]/{key=name" "$2$3" d"$4; if(sec==2) lat[key]=$5; else print key, "lat", lat[key], "GB/s", $5}' $out/ab.txt
