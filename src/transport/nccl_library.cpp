#if FERRY_WITH_NCCL
#include "transport/nccl_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <type_traits>

#include "core/error.hpp"

namespace ferry::transport {
namespace {

NcclLibrary load() {
  NcclLibrary l;
  void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    l.missing = fmt::format("NCCL's library could not be loaded ({})", why ? why : "libnccl.so.2 not found");
    return l;
  }
  auto find = [&](auto& function, const char* name, std::string& missing) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
    if (!function && missing.empty()) missing = fmt::format("NCCL's library lacks {}", name);
  };
  find(l.get_version, "ncclGetVersion", l.missing);
  find(l.get_unique_id, "ncclGetUniqueId", l.missing);
  find(l.comm_init_rank, "ncclCommInitRank", l.missing);
  find(l.comm_destroy, "ncclCommDestroy", l.missing);
  find(l.group_start, "ncclGroupStart", l.missing);
  find(l.group_end, "ncclGroupEnd", l.missing);
  find(l.send, "ncclSend", l.missing);
  find(l.recv, "ncclRecv", l.missing);
  find(l.error_string, "ncclGetErrorString", l.missing);
  if (!l.missing.empty()) return l;
  l.get_version(&l.version);
  find(l.mem_alloc, "ncclMemAlloc", l.registration_missing);
  find(l.mem_free, "ncclMemFree", l.registration_missing);
  find(l.comm_register, "ncclCommRegister", l.registration_missing);
  find(l.comm_deregister, "ncclCommDeregister", l.registration_missing);
  if (!l.registration_missing.empty())
    l.registration_missing += fmt::format(" (version {}; 2.19 and later have it)", l.version);
  return l;
}

}  // namespace

const NcclLibrary& NcclLibrary::get() {
  static const NcclLibrary library = load();
  return library;
}

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw RuntimeFailure(fmt::format("NCCL error {} ({}) in {} at {}:{}", static_cast<int>(result),
                                   NcclLibrary::get().error_string(result), call, file, line));
}

}  // namespace ferry::transport
#endif
