#pragma once
// Memory a backend handed out, released when the Buffer goes.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace ferry {

enum class MemoryKind {
  device,    // on the GPU
  pinned,    // page-locked host memory: the copy engines reach it directly
  pageable,  // ordinary host memory: copies go through the driver's staging buffers
  mapped,    // pinned host memory mapped into the GPU's address space: kernels read and write it (zero-copy)
};

std::string_view to_string(MemoryKind kind);

class Buffer {
 public:
  using Release = std::function<void(void*)>;

  Buffer() = default;
  // `device_view` is where kernels reach the memory: the same pointer for device
  // memory, the mapped address for mapped memory, null for memory kernels cannot touch.
  Buffer(void* data, void* device_view, std::size_t bytes, MemoryKind kind, int device, Release release)
      : data_(data),
        device_view_(device_view),
        bytes_(bytes),
        kind_(kind),
        device_(device),
        release_(std::move(release)) {}
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }

  std::byte* data() const { return static_cast<std::byte*>(data_); }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  template <class T>
  T* device_view_as() const {
    return static_cast<T*>(device_view_);
  }
  std::size_t bytes() const { return bytes_; }
  MemoryKind kind() const { return kind_; }
  int device() const { return device_; }
  bool host_visible() const { return kind_ != MemoryKind::device; }

 private:
  void reset();

  void* data_ = nullptr;
  void* device_view_ = nullptr;
  std::size_t bytes_ = 0;
  MemoryKind kind_ = MemoryKind::device;
  int device_ = -1;
  Release release_;
};

}  // namespace ferry
