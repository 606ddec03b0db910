#include "backend/launch.hpp"
#include "bench/link/link_kernels.hpp"

namespace ferry::link {

void launch_empty(Stream& stream, bool programmatic) {
  parallel_for(stream, 1, EmptyKernel{}, programmatic ? StreamOrder::programmatic : StreamOrder::complete);
}
void launch_hand_on(Stream& stream, const HandOnKernel& kernel, std::int64_t words, bool programmatic) {
  parallel_for(stream, words, kernel, programmatic ? StreamOrder::programmatic : StreamOrder::complete);
}
void launch_zero_copy(Stream& stream, const ZeroCopyCopy& kernel, std::int64_t words) {
  parallel_for(stream, words, kernel);
}
void launch_wait_for_release(Stream& stream, const WaitForRelease& kernel) { parallel_for(stream, 1, kernel); }
void launch_flag_echo(Stream& stream, const FlagEcho& kernel) { parallel_for(stream, 1, kernel); }
void launch_chunk_echo(Stream& stream, const ChunkEcho& kernel) {
  parallel_teams(stream, 1, kernel, Residency::all_at_once);
}
void launch_count_to_host(Stream& stream, const CountToHost& kernel) { parallel_for(stream, 1, kernel); }
void launch_mapped_read_chain(Stream& stream, const MappedReadChain& kernel) { parallel_for(stream, 1, kernel); }
void launch_loaded_read_round_trip(Stream& stream, const LoadedReadRoundTrip& kernel) {
  parallel_teams(stream, kernel.streaming + 1, kernel, Residency::all_at_once);
}
int loaded_resident_teams(Stream& stream) { return resident_teams(stream, LoadedReadRoundTrip{}); }
void launch_barriers(Stream& stream, int teams, const GridBarriers& kernel) {
  parallel_teams(stream, teams, kernel, Residency::all_at_once);
}
void launch_barriers(Stream& stream, int teams, const ClusterBarriers& kernel) {
  parallel_teams(stream, teams, kernel, Residency::one_cluster);
}
int grid_barrier_teams(Stream& stream, int multiprocessors) {
  const int capacity = resident_teams(stream, GridBarriers{});
  return multiprocessors > 0 && multiprocessors < capacity ? multiprocessors : capacity;
}

}  // namespace ferry::link
