#include "backend/launch.hpp"
#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_persistent_kernel.hpp"

namespace ferry::stream {

void launch_stages(Stream& stream, const StageKernel& kernel, std::uint64_t quads) {
  parallel_for(stream, static_cast<std::int64_t>(quads), kernel);
}

void launch_zero_copy_chunk(Stream& stream, const ZeroCopyChunk& kernel, int teams) {
  parallel_teams(stream, teams, kernel, Residency::any);
}

void launch_persistent(Stream& stream, const PersistentPipeline& kernel) {
  parallel_teams(stream, kernel.teams, kernel, Residency::all_at_once,
                 PersistentPipeline::shared_bytes(kernel.ring_slots, kernel.batch_quads));
}

int persistent_resident_teams(Stream& stream, std::uint64_t shared_bytes) {
  return resident_teams(stream, PersistentPipeline{}, shared_bytes);
}

void launch_fused(Stream& stream, const FusedStream& kernel) {
  parallel_teams(stream, kernel.groups * kernel.teams_per_group, kernel, Residency::all_at_once);
}

int fused_resident_teams(Stream& stream) { return resident_teams(stream, FusedStream{}); }

void launch_pool(Stream& stream, const PoolStream& kernel) {
  parallel_teams(stream, kernel.workers + 2, kernel, Residency::all_at_once);
}

int pool_resident_teams(Stream& stream) { return resident_teams(stream, PoolStream{}); }

void launch_raise_slot_flag(Stream& stream, const RaiseSlotFlag& kernel) { parallel_for(stream, 1, kernel); }

}  // namespace ferry::stream
