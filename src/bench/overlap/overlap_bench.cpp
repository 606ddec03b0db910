#include "bench/overlap/overlap_bench.hpp"

#include <fmt/format.h>

#include <atomic>
#include <utility>

#include "bench/common/verify.hpp"
#include "bench/overlap/overlap_kernels.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/host_parallel.hpp"

namespace ferry::overlap {
namespace {

constexpr std::int64_t words_per_host_thread = 4 << 20;
constexpr std::uint64_t input_seed = 0x0DDBA11;

}  // namespace

OverlapBench::OverlapBench(Backend& backend, const OverlapConfig& config)
    : backend_(backend),
      config_(config),
      host_a_(backend.allocate_host(config.host, config.vector_bytes())),
      host_b_(backend.allocate_host(config.host, config.vector_bytes())),
      host_c_(backend.allocate_host(config.host, config.vector_bytes())),
      a_(backend.allocate_device(config.device, config.vector_bytes())),
      b_(backend.allocate_device(config.device, config.vector_bytes())),
      c_(backend.allocate_device(config.device, config.vector_bytes())),
      main_(backend.make_stream(config.device)),
      go_(backend.make_event(config.device)) {
  for (int s = 0; s < config.streams; ++s) {
    pool_.push_back(backend.make_stream(config.device));
    finished_.push_back(backend.make_event(config.device));
  }
  auto* a = host_a_.as<std::uint32_t>();
  auto* b = host_b_.as<std::uint32_t>();
  parallel_ranges(static_cast<std::int64_t>(config.elements), words_per_host_thread,
                  [&](std::int64_t first, std::int64_t end) {
                    for (std::int64_t i = first; i < end; ++i) {
                      a[i] = input_word(static_cast<std::uint64_t>(i), 0, input_seed);
                      b[i] = input_word(static_cast<std::uint64_t>(i), 1, input_seed);
                    }
                  });
}

std::uint64_t OverlapBench::wrong_words() const {
  const auto* a = host_a_.as<const std::uint32_t>();
  const auto* b = host_b_.as<const std::uint32_t>();
  const auto* c = host_c_.as<const std::uint32_t>();
  std::atomic<std::uint64_t> wrong{0};
  parallel_ranges(static_cast<std::int64_t>(config_.elements), words_per_host_thread,
                  [&](std::int64_t first, std::int64_t end) {
                    std::uint64_t mine = 0;
                    for (std::int64_t i = first; i < end; ++i) mine += c[i] != static_cast<std::uint32_t>(a[i] + b[i]);
                    wrong += mine;
                  });
  return wrong_reported("overlap.sum", wrong);
}

std::function<bool()> OverlapBench::sum_check(std::string_view row) {
  return [this, corrupt = row == config_.corrupt_row]() mutable {
    if (std::exchange(corrupt, false)) host_c_.as<std::uint32_t>()[config_.elements / 2] += 1;
    return wrong_words() == 0;
  };
}

void OverlapBench::poison_outputs(Stream& stream) {
  poison_on_host(host_c_.data(), host_c_.bytes());
  for (Buffer* device : {&a_, &b_, &c_}) stream.fill(device->data(), poison_byte, device->bytes());
  stream.synchronize();
}

Measurement OverlapBench::timed(std::string_view row, const std::function<void(Stream&)>& enqueue) {
  const Repeat repeat{
      .warmup = 1, .min_samples = config_.iterations, .max_samples = config_.iterations, .min_seconds = 0};
  return time_on_host(*main_, repeat,
                      {.prepare = [&] { poison_outputs(*main_); }, .enqueue = enqueue, .check = sum_check(row)});
}

Measurement OverlapBench::kernel_alone() {
  main_->copy(a_.data(), host_a_.data(), a_.bytes());
  main_->copy(b_.data(), host_b_.data(), b_.bytes());
  main_->synchronize();
  const Repeat repeat{.warmup = 2, .min_samples = config_.iterations, .max_samples = 50, .min_seconds = 0.05};
  const VectorAdd add{a_.as<const std::uint32_t>(), b_.as<const std::uint32_t>(), c_.as<std::uint32_t>()};
  return time_on_device(backend_, *main_, repeat,
                        {.prepare = [&] { main_->fill(c_.data(), poison_byte, c_.bytes()); },
                         .enqueue = [&](Stream& s) { launch_vector_add(s, add, config_.elements); },
                         .check =
                             [&, sum_intact = sum_check("kernel")] {
                               main_->copy(host_c_.data(), c_.data(), c_.bytes());
                               main_->synchronize();
                               return sum_intact();
                             }});
}

Measurement OverlapBench::cpu() {
  const Repeat repeat{
      .warmup = 1, .min_samples = config_.iterations, .max_samples = config_.iterations, .min_seconds = 0};
  const VectorAdd add{host_a_.as<const std::uint32_t>(), host_b_.as<const std::uint32_t>(),
                      host_c_.as<std::uint32_t>()};
  return time_host_work(repeat, {.prepare = [&] { poison_on_host(host_c_.data(), host_c_.bytes()); },
                                 .work =
                                     [&] {
                                       parallel_ranges(static_cast<std::int64_t>(config_.elements),
                                                       words_per_host_thread,
                                                       [&](std::int64_t first, std::int64_t end) {
                                                         for (std::int64_t i = first; i < end; ++i) add(i);
                                                       });
                                     },
                                 .check = sum_check("cpu")});
}

void OverlapBench::enqueue_chain(Stream& stream, const SubBuffer& part, Event* const* marks) {
  const std::uint64_t offset = part.first * 4, bytes = part.count * 4;
  auto mark = [&](int step) {
    if (marks) stream.record(*marks[step]);
  };
  mark(0);
  stream.copy(a_.as<char>() + offset, host_a_.as<const char>() + offset, bytes);
  mark(1);
  stream.copy(b_.as<char>() + offset, host_b_.as<const char>() + offset, bytes);
  mark(2);
  launch_vector_add(stream,
                    {a_.as<const std::uint32_t>() + part.first, b_.as<const std::uint32_t>() + part.first,
                     c_.as<std::uint32_t>() + part.first},
                    part.count);
  mark(3);
  stream.copy(host_c_.as<char>() + offset, c_.as<const char>() + offset, bytes);
  mark(4);
}

void OverlapBench::enqueue_pipelined(Stream& main, const Split& split, Event* const* marks) {
  const std::size_t streams = streams_for(split);
  // The pool starts when the main stream does, and the main stream waits for
  // all of it: one host wait at the end, every other order by events.
  main.record(*go_);
  for (std::size_t i = 0; i < streams; ++i) pool_[i]->wait(*go_);
  for (std::size_t i = 0; i < split.parts.size(); ++i)
    enqueue_chain(*pool_[i % streams], split.parts[i], marks ? marks + chain_marks * i : nullptr);
  for (std::size_t i = 0; i < streams; ++i) {
    pool_[i]->record(*finished_[i]);
    main.wait(*finished_[i]);
  }
}

std::size_t OverlapBench::streams_for(const Split& split) const { return std::min(pool_.size(), split.parts.size()); }

Measurement OverlapBench::serial() {
  return timed("serial", [&](Stream& s) { enqueue_chain(s, {0, config_.elements}); });
}

Measurement OverlapBench::pipelined(const Split& split) {
  // Measured once per distinct sub-buffer count, under the first k that gives it, as row_names says.
  return timed(pipelined_row_name(split.requested), [&](Stream& s) { enqueue_pipelined(s, split); });
}

Trace OverlapBench::trace(const Split& split) {
  std::vector<std::unique_ptr<Event>> owned;
  std::vector<Event*> marks;
  for (std::size_t i = 0; i < chain_marks * split.parts.size(); ++i) {
    owned.push_back(backend_.make_event(config_.device));
    marks.push_back(owned.back().get());
  }
  poison_outputs(*main_);

  enqueue_pipelined(*main_, split, marks.data());
  main_->synchronize();
  if (wrong_words() != 0) throw RuntimeFailure("overlap: the traced run's result is wrong");

  const std::size_t streams = streams_for(split);
  Trace t;
  t.process = fmt::format("ferry overlap: {} sub-buffers on {} streams, device {}", split.parts.size(), streams,
                          config_.device);
  for (std::size_t i = 0; i < streams; ++i) t.lanes.push_back(fmt::format("stream {}", i));
  static constexpr const char* step_name[] = {"H2D a", "H2D b", "add", "D2H c"};
  static constexpr const char* step_category[] = {"H2D", "H2D", "kernel", "D2H"};
  for (std::size_t i = 0; i < split.parts.size(); ++i)
    for (int step = 0; step < 4; ++step) {
      const double start = marks[chain_marks * i + step]->seconds_since(*go_);
      const double end = marks[chain_marks * i + step + 1]->seconds_since(*go_);
      t.boxes.push_back({static_cast<int>(i % streams), fmt::format("{}[{}]", step_name[step], i), step_category[step],
                         start, end - start});
    }
  return t;
}

}  // namespace ferry::overlap
