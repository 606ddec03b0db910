# Decides whether the CUDA backend is built and offers ferry_kernel_sources(),
# which compiles a source that launches FERRY_HD kernels with nvcc when it is.
set(FERRY_WITH_CUDA OFF)
if(FERRY_CUDA STREQUAL "ON" OR FERRY_CUDA STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)   # Hopper (H100, H200): the machines ferry is measured on
    endif()
    enable_language(CUDA)
    # CMake before 3.26 does not know nvcc's flag for C++20; nvcc 12+ takes -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(FERRY_WITH_CUDA ON)
  elseif(FERRY_CUDA STREQUAL "ON")
    message(FATAL_ERROR "FERRY_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "ferry: CUDA backend ${FERRY_WITH_CUDA}")

# NVML's header gives the link facts (PCIe generation and width, NVLink per pair).
# The library itself is opened at run time, so a machine without a driver still runs ferry.
set(FERRY_NVML_INCLUDE_DIR "" CACHE PATH "Folder holding nvml.h (found in the CUDA toolkit or the PyPI package nvidia-nvml-dev)")
if(FERRY_WITH_CUDA AND NOT FERRY_NVML_INCLUDE_DIR)
  find_path(FERRY_NVML_INCLUDE_DIR nvml.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
endif()
set(FERRY_WITH_NVML OFF)
if(FERRY_WITH_CUDA AND FERRY_NVML_INCLUDE_DIR)
  set(FERRY_WITH_NVML ON)
endif()
message(STATUS "ferry: NVML link facts ${FERRY_WITH_NVML} ${FERRY_NVML_INCLUDE_DIR}")

# NCCL's header builds the nccl transport; its library is opened at run time
# (dlopen), so a machine without NCCL still runs ferry and says so.
set(FERRY_NCCL_INCLUDE_DIR "" CACHE PATH "Folder holding nccl.h (found in /usr/include, the CUDA toolkit or the PyPI package nvidia-nccl-cu13)")
if(FERRY_WITH_CUDA AND NOT FERRY_NCCL_INCLUDE_DIR)
  # The toolkit's own include folder holds it where NVIDIA's installer put NCCL beside CUDA.
  find_path(FERRY_NCCL_FOUND_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} "${CUDAToolkit_BIN_DIR}/../include" /usr/include /usr/local/include
          "${PROJECT_SOURCE_DIR}/.deps/pip/nvidia/nccl/include")
  if(FERRY_NCCL_FOUND_DIR)
    set(FERRY_NCCL_INCLUDE_DIR "${FERRY_NCCL_FOUND_DIR}")
  endif()
endif()
set(FERRY_WITH_NCCL OFF)
if(FERRY_WITH_CUDA AND FERRY_NCCL_INCLUDE_DIR)
  set(FERRY_WITH_NCCL ON)
endif()
message(STATUS "ferry: NCCL transport ${FERRY_WITH_NCCL} ${FERRY_NCCL_INCLUDE_DIR}")

function(ferry_kernel_sources)
  if(FERRY_WITH_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
