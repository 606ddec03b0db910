#pragma once
// The NCCL functions ferry calls, from the library found at run time (dlopen),
// so that ferry runs where NCCL is missing and says so; only nccl.h is needed
// to build. Internal to transport/, and only where ferry is built with NCCL.
#include <nccl.h>

#include <string>

namespace ferry::transport {

struct NcclLibrary {
  std::string missing;  // why it could not be loaded; "" when it was
  int version = 0;      // as ncclGetVersion gives it: 22803 for 2.28.3
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;

  // NCCL's allocator and buffer registration (2.19 and later): only nccl-graph-reg needs them.
  std::string registration_missing;  // why they cannot be had; "" when they can
  decltype(&ncclMemAlloc) mem_alloc = nullptr;
  decltype(&ncclMemFree) mem_free = nullptr;
  decltype(&ncclCommRegister) comm_register = nullptr;
  decltype(&ncclCommDeregister) comm_deregister = nullptr;

  static const NcclLibrary& get();
};

// Throws RuntimeFailure naming the call, its place and NCCL's words for the error.
void check_nccl(ncclResult_t result, const char* call, const char* file, int line);

}  // namespace ferry::transport

#define FERRY_NCCL(call) ::ferry::transport::check_nccl((call), #call, __FILE__, __LINE__)
