#include "backend/launch.hpp"
#include "bench/link/link_kernels.hpp"

namespace ferry::link {

void launch_empty(Stream& stream) { parallel_for(stream, 1, EmptyKernel{}); }
void launch_zero_copy(Stream& stream, const ZeroCopyCopy& kernel, std::int64_t words) {
  parallel_for(stream, words, kernel);
}
void launch_wait_for_release(Stream& stream, const WaitForRelease& kernel) { parallel_for(stream, 1, kernel); }
void launch_flag_echo(Stream& stream, const FlagEcho& kernel) { parallel_for(stream, 1, kernel); }
void launch_mapped_read_chain(Stream& stream, const MappedReadChain& kernel) { parallel_for(stream, 1, kernel); }

}  // namespace ferry::link
