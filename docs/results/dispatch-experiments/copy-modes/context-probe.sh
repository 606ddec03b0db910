#!/usr/bin/env bash
# Throwaway: context_probe.cpp in three processes.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
echo 'add_executable(context_probe ${PROJECT_SOURCE_DIR}/.ab/context_probe.cpp)
target_link_libraries(context_probe PRIVATE ferry_lib)
set_source_files_properties(${PROJECT_SOURCE_DIR}/.ab/context_probe.cpp PROPERTIES LANGUAGE CUDA)' >> src/CMakeLists.txt
export PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF && cmake --build build-gpu -j16 --target context_probe; } > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head; tail -5 "$out/build.log"; exit 1; }
P=$(find build-gpu -name context_probe -type f | head -1)
for r in 1 2 3; do echo "== process $r"; $P; done 2>&1 | tee "$out/probe.txt"
