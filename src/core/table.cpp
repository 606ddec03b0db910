#include "core/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/units.hpp"

namespace ferry {
namespace {

bool looks_numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '-') &&
         s.find_first_of("abcdfghjklnopqrtuvwyzACDEFHJLNOPQRSTUVWXYZ") == std::string::npos;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string param_cell(const std::string& key, const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return ends_with(key, "bytes") ? format_bytes(static_cast<std::uint64_t>(*i)) : fmt::format("{}", *i);
  }
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:.4g}", *d);
  return std::get<std::string>(v);
}

std::string number(double v) {
  if (v >= 100) return fmt::format("{:.1f}", v);
  if (v >= 10) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

const char* check_cell(Check c) { return c == Check::passed ? "PASSED" : c == Check::failed ? "FAILED" : "-"; }

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());

  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      const bool right = !header && looks_numeric(cell);
      out += c == 0 ? "  " : "  ";
      out += right ? fmt::format("{:>{}}", cell, width[c]) : fmt::format("{:<{}}", cell, width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };

  std::string out = line(header_, true);
  std::string rule;
  for (std::size_t c = 0; c < width.size(); ++c) rule += "  " + std::string(width[c], '-');
  out += rule + "\n";
  for (const auto& row : rows_) out += line(row, false);
  return out;
}

std::string render_workload(const WorkloadResult& result) {
  std::string out;
  for (const Section& section : result.sections) {
    if (!section.in_table) continue;
    std::vector<const Row*> rows;
    for (const Row& r : result.rows)
      if (r.section == section.id) rows.push_back(&r);
    if (rows.empty()) continue;

    std::vector<std::string> keys;
    for (const Row* r : rows)
      for (const auto& [key, value] : r->params)
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    const bool rate = rows.front()->metric == Metric::rate;
    const bool best = std::all_of(rows.begin(), rows.end(), [](const Row* r) { return r->headline == Headline::best; });
    const bool any_model = std::any_of(rows.begin(), rows.end(), [](const Row* r) { return r->model.has_value(); });
    const bool any_note = std::any_of(rows.begin(), rows.end(), [](const Row* r) { return !r->note.empty(); });

    // Derived figures (b_eff, a model's terms) have no samples, so no spread to show.
    const bool sampled = std::any_of(rows.begin(), rows.end(), [](const Row* r) { return r->has_samples(); });
    std::vector<std::string> header = keys;
    if (!sampled) {
      header.push_back(rate ? "GB/s" : "us");
    } else if (rate) {
      header.insert(header.end(), {best ? "best GB/s" : "GB/s", "min", "max", "n"});
    } else {
      header.insert(header.end(), {best ? "best us" : "median us", "p99 us", "min us", "n"});
    }
    if (any_model) header.insert(header.end(), {rate ? "model GB/s" : "model us", "% of model", "model is"});
    header.push_back("check");
    if (any_note) header.push_back("note");

    TextTable table(header);
    for (const Row* r : rows) {
      std::vector<std::string> cells;
      for (const auto& key : keys) {
        const auto it = std::find_if(r->params.begin(), r->params.end(), [&](const auto& p) { return p.first == key; });
        cells.push_back(it == r->params.end() ? "" : param_cell(key, it->second));
      }
      const Stats s = r->stats();
      cells.push_back(number(rate ? to_GBps(r->value()) : to_us(r->value())));
      if (!sampled) {
      } else if (!r->has_samples()) {
        cells.insert(cells.end(), {"-", "-", "-"});  // a derived figure: its spread is in the rows it comes from
      } else if (rate) {
        cells.push_back(number(to_GBps(r->bytes_per_sample / s.max)));
        cells.push_back(number(to_GBps(r->bytes_per_sample / s.min)));
        cells.push_back(fmt::format("{}", r->sample_count()));
      } else {
        cells.push_back(number(to_us(s.p99)));
        cells.push_back(number(to_us(s.min)));
        cells.push_back(fmt::format("{}", r->sample_count()));
      }
      if (any_model) {
        cells.push_back(r->model ? number(rate ? to_GBps(*r->model) : to_us(*r->model)) : "-");
        cells.push_back(r->efficiency() ? fmt::format("{:.1f}%", 100 * *r->efficiency()) : "-");
        cells.push_back(r->model ? r->model_basis : "");
      }
      cells.push_back(check_cell(r->check));
      if (any_note) cells.push_back(r->note);
      table.add(std::move(cells));
    }
    out += fmt::format("\n{}\n", section.title);
    out += table.render();
  }
  for (const auto& s : result.skipped) out += fmt::format("\nskipped: {}", s);
  if (!result.skipped.empty()) out += "\n";
  for (const auto& n : result.notes) out += fmt::format("\nnote: {}", n);
  if (!result.notes.empty()) out += "\n";
  out += fmt::format("\n{}: {}\n", result.workload, result.passed() ? "PASSED" : "FAILED");
  return out;
}

std::string render_banner(const Machine& machine) {
  std::string out = fmt::format("ferry on {} ({} backend", machine.host.hostname, machine.backend);
  if (!machine.driver_version.empty()) out += fmt::format(", driver {}", machine.driver_version);
  out += ")\n";
  for (const GpuFacts& g : machine.gpus) {
    out +=
        fmt::format("  device {}: {}, {}, {} SMs", g.index, g.name, format_capacity(g.memory_bytes), g.multiprocessors);
    if (g.pcie.max_generation > 0)
      out += fmt::format(", PCIe Gen{} x{} (now Gen{} x{})", g.pcie.max_generation, g.pcie.max_width, g.pcie.generation,
                         g.pcie.width);
    out += "\n";
  }
  if (!machine.gpu_timings)
    out += "  EMULATOR: these timings are CPU timings of the emulator, not GPU timings. They check the\n"
           "  algorithms and the harness; they say nothing about a GPU.\n";
  return out;
}

}  // namespace ferry
