# ferry_precompile_heavy_headers(TARGET...): fmt, which most of ferry's C++ files
# include, and GoogleTest in a target that links it, are parsed once per target
# into a precompiled header instead of once per file. Measured with g++ 12 -O3,
# one file at a time: core/units.cpp 1.46 -> 1.04 s, a test file (core/units_test.cpp)
# 2.64 -> 1.84 s. nlohmann_json and CLI11 stay out: each file of the few that include
# them saved little (cli/link_command.cpp 8.8 -> 8.5 s), while every other file paid
# for loading them (core/units.cpp 1.46 -> 6.0 s). C++ files only: nvcc compiles the
# kernel sources (ferry_kernel_sources), which stay free of fmt.
# FERRY_PRECOMPILE_HEADERS=OFF builds without, to see what a file includes on its own.
option(FERRY_PRECOMPILE_HEADERS "Precompile fmt (and GoogleTest in tests) once per target" ON)

function(ferry_precompile_heavy_headers)
  if(NOT FERRY_PRECOMPILE_HEADERS)
    return()
  endif()
  foreach(target ${ARGN})
    set(headers <fmt/format.h>)
    get_target_property(links ${target} LINK_LIBRARIES)
    if(links MATCHES "GTest::")
      list(APPEND headers <gtest/gtest.h>)
    endif()
    list(TRANSFORM headers REPLACE "(.+)" "$<$<COMPILE_LANGUAGE:CXX>:\\1>")
    target_precompile_headers(${target} PRIVATE ${headers})
  endforeach()
endfunction()
