#include "backend/buffer.hpp"

#include <utility>

namespace ferry {

std::string_view to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::device: return "device";
    case MemoryKind::pinned: return "pinned";
    case MemoryKind::pageable: return "pageable";
    case MemoryKind::mapped: return "mapped";
  }
  return "?";
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    device_view_ = std::exchange(other.device_view_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    kind_ = other.kind_;
    device_ = other.device_;
    release_ = std::move(other.release_);
    other.release_ = nullptr;
  }
  return *this;
}

void Buffer::reset() {
  if (data_ && release_) release_(data_);
  data_ = nullptr;
  device_view_ = nullptr;
  release_ = nullptr;
}

}  // namespace ferry
