#include "backend/launch.hpp"
#include "bench/overlap/overlap_kernels.hpp"

namespace ferry::overlap {

void launch_vector_add(Stream& stream, const VectorAdd& add, std::uint64_t count) {
  parallel_for(stream, static_cast<std::int64_t>(count), add);
}

}  // namespace ferry::overlap
