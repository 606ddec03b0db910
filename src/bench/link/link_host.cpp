// Host <-> device: small-copy latency, bandwidth per memory kind and
// direction, zero-copy kernels, and the ceilings against PCIe.
#include <fmt/format.h>

#include <algorithm>

#include "bench/link/link_kernels.hpp"
#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::link {
namespace {

enum class Direction { h2d, d2h, bidirectional };

const char* to_string(Direction d) { return d == Direction::h2d ? "h2d" : d == Direction::d2h ? "d2h" : "bidir"; }

// One size of the sweep for one kind of host memory: a source and a
// destination on each side, each source holding its own pattern.
struct CopyBuffers {
  Buffer host_source, host_destination, device_source, device_destination;
  std::uint64_t host_seed, device_seed;

  CopyBuffers(LinkRun& run, Stream& stream, MemoryKind kind, int device, std::uint64_t bytes, std::uint64_t what)
      : host_source(run.backend.allocate_host(kind, bytes)),
        host_destination(run.backend.allocate_host(kind, bytes)),
        device_source(run.backend.allocate_device(device, bytes)),
        device_destination(run.backend.allocate_device(device, bytes)),
        host_seed(seed_for(what, device, bytes)),
        device_seed(seed_for(what + 1, device, bytes)) {
    run.checker.fill(stream, host_source, host_seed);
    run.checker.fill(stream, device_source, device_seed);
  }
};

Trial copy_trial(LinkRun& run, const char* section, Stream& h2d_stream, Stream& d2h_stream, Event& fork, Event& join,
                 CopyBuffers& b, Direction direction) {
  const bool h2d = direction != Direction::d2h;
  const bool d2h = direction != Direction::h2d;
  const std::size_t bytes = b.host_source.bytes();
  Trial t;
  t.prepare = [&, h2d, d2h] {
    if (h2d) run.checker.poison(h2d_stream, b.device_destination);
    if (d2h) run.checker.poison(d2h_stream, b.host_destination);
  };
  t.enqueue = [&, direction, bytes](Stream& s) {
    if (direction == Direction::h2d) s.copy(b.device_destination.data(), b.host_source.data(), bytes);
    if (direction == Direction::d2h) s.copy(b.host_destination.data(), b.device_source.data(), bytes);
    if (direction == Direction::bidirectional) {
      // Fork the second stream off the timed one and join it back, so the events span both copies.
      s.record(fork);
      d2h_stream.wait(fork);
      s.copy(b.device_destination.data(), b.host_source.data(), bytes);
      d2h_stream.copy(b.host_destination.data(), b.device_source.data(), bytes);
      d2h_stream.record(join);
      s.wait(join);
    }
  };
  t.check = [&, h2d, d2h] {
    const bool in = !h2d || run.checker.matches(h2d_stream, b.device_destination, b.host_seed);
    const bool out = !d2h || run.checker.matches(d2h_stream, b.host_destination, b.device_seed);
    return checked("link.copy", in && out);
  };
  if (run.corrupts(section))
    t.corrupt = [&, h2d] {
      if (h2d) run.corrupt_word(h2d_stream, b.device_destination);
      else run.corrupt_word(d2h_stream, b.host_destination);
    };
  return t;
}

}  // namespace

void measure_copy_latency(LinkRun& run, int device) {
  auto stream = run.backend.make_stream(device);
  auto second = run.backend.make_stream(device);
  auto fork = run.backend.make_event(device), join = run.backend.make_event(device);
  model::DeviceProfile& profile = run.profile_of(device);
  // Each size twice: as the host sees it (copy + sync, what a streaming design
  // pays) and as events see it (what the bandwidth rows are timed with).
  for (const bool host_clock : {true, false}) {
    for (Direction direction : {Direction::h2d, Direction::d2h}) {
      double& smallest =
          host_clock
              ? (direction == Direction::h2d ? profile.copy_latency_h2d_s : profile.copy_latency_d2h_s)
              : (direction == Direction::h2d ? profile.copy_engine_latency_h2d_s : profile.copy_engine_latency_d2h_s);
      for (std::uint64_t bytes : run.config.latency_bytes) {
        run.progress.step(
            fmt::format("device {}: {} copy latency, {}", device, to_string(direction), format_bytes(bytes)));
        CopyBuffers buffers(run, *stream, MemoryKind::pinned, device, bytes, 1);
        Trial trial = copy_trial(run, "copy_latency", *stream, *second, *fork, *join, buffers, direction);
        const Measurement m = host_clock ? time_on_host(*stream, run.config.latency_repeat, trial)
                                         : time_on_device(run.backend, *stream, run.config.latency_repeat, trial);
        Row row = make_row("copy_latency",
                           {{"device", device},
                            {"clock", host_clock ? "host: copy + sync" : "device: events"},
                            {"direction", to_string(direction)},
                            {"bytes", as_param(bytes)}},
                           Metric::latency, m);
        if (smallest == 0) {
          smallest = row.stats().median;
        } else if (run.pcie_Bps(device) > 0) {
          row.model = model::transfer_seconds(static_cast<double>(bytes), smallest, run.pcie_Bps(device));
          row.model_basis = "smallest copy's latency + bytes / " + run.pcie_basis(device);
        }
        run.add(std::move(row));
      }
    }
  }
}

void measure_host_bandwidth(LinkRun& run, int device) {
  auto stream = run.backend.make_stream(device);
  auto second = run.backend.make_stream(device);
  auto fork = run.backend.make_event(device), join = run.backend.make_event(device);
  const model::DeviceProfile& profile = run.profile_of(device);
  const double pcie = run.pcie_Bps(device);
  for (MemoryKind kind : run.config.host_memory) {
    for (std::uint64_t bytes : run.config.sweep_bytes) {
      run.progress.step(fmt::format("device {}: {} host memory, {}", device, to_string(kind), format_bytes(bytes)));
      CopyBuffers buffers(run, *stream, kind, device, bytes, 10 + static_cast<std::uint64_t>(kind) * 2);
      for (Direction direction : {Direction::h2d, Direction::d2h, Direction::bidirectional}) {
        Trial trial = copy_trial(run, "bandwidth", *stream, *second, *fork, *join, buffers, direction);
        const Measurement m = time_on_device(run.backend, *stream, run.config.bandwidth_repeat, trial);
        const double moved = static_cast<double>(bytes) * (direction == Direction::bidirectional ? 2 : 1);
        Row row = make_row("bandwidth",
                           {{"device", device},
                            {"memory", std::string(to_string(kind))},
                            {"direction", to_string(direction)},
                            {"bytes", as_param(bytes)}},
                           Metric::rate, m, moved);
        if (pcie > 0) {
          const double latency = direction == Direction::h2d ? profile.copy_engine_latency_h2d_s
                                 : direction == Direction::d2h
                                     ? profile.copy_engine_latency_d2h_s
                                     : std::max(profile.copy_engine_latency_h2d_s, profile.copy_engine_latency_d2h_s);
          // Both directions at once: each moves `bytes` in latency + bytes / rate.
          row.model = moved / model::transfer_seconds(static_cast<double>(bytes), latency, pcie);
          row.model_basis = "copy latency (events) + bytes / " + run.pcie_basis(device);
        }
        run.add(std::move(row));
      }
    }
  }
}

void measure_zero_copy(LinkRun& run, int device) {
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("zero-copy: the backend cannot map host memory into a device");
    return;
  }
  auto stream = run.backend.make_stream(device);
  const model::DeviceProfile& profile = run.profile_of(device);
  const double pcie = run.pcie_Bps(device);
  for (std::uint64_t bytes : run.config.sweep_bytes) {
    if (bytes % sizeof(Word128) != 0) {
      run.skip(fmt::format("zero-copy at {}: kernels move 16-byte words; use sizes that are multiples of 16",
                           format_bytes(bytes)));
      continue;
    }
    run.progress.step(fmt::format("device {}: zero-copy kernels, {}", device, format_bytes(bytes)));
    CopyBuffers b(run, *stream, MemoryKind::mapped, device, bytes, 20);
    const auto words = static_cast<std::int64_t>(bytes / sizeof(Word128));
    // Reads, writes, and both at once: host memory in, host memory out, the
    // path of every design that streams through the SMs.
    for (const Direction direction : {Direction::h2d, Direction::d2h, Direction::bidirectional}) {
      const bool reads = direction != Direction::d2h;
      Buffer& destination = direction == Direction::h2d ? b.device_destination : b.host_destination;
      const std::uint64_t expected = reads ? b.host_seed : b.device_seed;
      Trial t;
      t.prepare = [&] { run.checker.poison(*stream, destination); };
      t.enqueue = [&, reads, words](Stream& s) {
        const Word128* from =
            reads ? b.host_source.device_view_as<const Word128>() : b.device_source.as<const Word128>();
        Word128* to = direction == Direction::h2d ? b.device_destination.as<Word128>()
                                                  : b.host_destination.device_view_as<Word128>();
        launch_zero_copy(s, ZeroCopyCopy{from, to}, words);
      };
      t.check = [&, expected] { return checked("link.copy", run.checker.matches(*stream, destination, expected)); };
      if (run.corrupts("zero_copy")) t.corrupt = [&] { run.corrupt_word(*stream, destination); };
      const char* kernel = direction == Direction::h2d   ? "reads host"
                           : direction == Direction::d2h ? "writes host"
                                                         : "reads and writes host";
      Row row =
          make_row("zero_copy",
                   {{"device", device},
                    {"kernel", kernel},
                    {"direction", direction == Direction::bidirectional ? "both, per direction" : to_string(direction)},
                    {"bytes", as_param(bytes)}},
                   Metric::rate, time_on_device(run.backend, *stream, run.config.bandwidth_repeat, t),
                   static_cast<double>(bytes));
      if (pcie > 0) {
        // A kernel's first access crosses PCIe like a small copy does: the same fixed cost.
        const double latency =
            direction == Direction::d2h ? profile.copy_engine_latency_d2h_s : profile.copy_engine_latency_h2d_s;
        row.model = model::transfer_Bps(static_cast<double>(bytes), latency, pcie);
        row.model_basis = "copy latency (events) + bytes / " + run.pcie_basis(device) +
                          (direction == Direction::bidirectional ? ", each way" : "");
      }
      run.add(std::move(row));
    }
  }
}

namespace {

std::string param_string(const Row& row, const std::string& key) {
  for (const auto& [k, v] : row.params)
    if (k == key) return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : "";
  return "";
}

bool on_device(const Row& row, int device) {
  for (const auto& [k, v] : row.params)
    if (k == "device") return std::get<std::int64_t>(v) == device;
  return false;
}

}  // namespace

void add_ceilings(LinkRun& run, int device) {
  const double pcie = run.pcie_Bps(device);
  model::DeviceProfile& profile = run.profile_of(device);
  // The best median of each (section, memory, direction) over the size sweep.
  struct Series {
    std::string section, memory, direction;
    double* profile_field;
  };
  const std::vector<Series> series = {
      {"bandwidth", "pinned", "h2d", &profile.h2d_Bps},
      {"bandwidth", "pinned", "d2h", &profile.d2h_Bps},
      {"bandwidth", "pinned", "bidir", &profile.bidirectional_Bps},
      {"bandwidth", "pageable", "h2d", &profile.pageable_h2d_Bps},
      {"bandwidth", "pageable", "d2h", &profile.pageable_d2h_Bps},
      {"bandwidth", "pageable", "bidir", nullptr},
      {"bandwidth", "mapped", "h2d", nullptr},
      {"bandwidth", "mapped", "d2h", nullptr},
      {"bandwidth", "mapped", "bidir", nullptr},
      {"zero_copy", "", "h2d", &profile.zero_copy_read_Bps},
      {"zero_copy", "", "d2h", &profile.zero_copy_write_Bps},
      {"zero_copy", "", "both, per direction", &profile.zero_copy_both_Bps},
  };
  std::vector<Row> ceilings;
  for (const Series& s : series) {
    const Row* best = nullptr;
    for (const Row& row : run.outcome.result.rows) {
      if (row.section != s.section || !on_device(row, device) || param_string(row, "direction") != s.direction)
        continue;
      if (!s.memory.empty() && param_string(row, "memory") != s.memory) continue;
      if (!best || row.value() > best->value()) best = &row;
    }
    if (!best) continue;
    Row ceiling = *best;
    ceiling.section = "ceiling";
    ceiling.params = {{"device", device},
                      {"path", s.section == "zero_copy" ? "zero-copy kernel" : "copy engine"},
                      {"memory", s.section == "zero_copy" ? "mapped" : s.memory},
                      {"direction", s.direction},
                      {"best at bytes",
                       static_cast<std::int64_t>(best->bytes_per_sample / (s.direction == "bidir" ? 2 : 1))}};
    ceiling.model.reset();
    ceiling.model_basis.clear();
    if (pcie > 0) {
      ceiling.model = pcie * (s.direction == "bidir" ? 2 : 1);
      ceiling.model_basis = run.pcie_basis(device) + (s.direction == "bidir" ? ", both directions" : "");
    }
    if (s.profile_field) *s.profile_field = ceiling.value();
    ceilings.push_back(std::move(ceiling));
  }
  for (Row& row : ceilings) run.add(std::move(row));
}

}  // namespace ferry::link
