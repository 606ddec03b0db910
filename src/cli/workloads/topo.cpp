#include "cli/workload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/topo/topo.hpp"
#include "cli/command_files.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/shared_workload.hpp"
#include "transport/transport.hpp"

namespace ferry {
namespace {

struct TopoOptions {
  RunOptions run;
  std::string topologies = "all";
  std::string transports;
  ConfigOptions<topo::TopoConfig> config;
  std::string profile_path;
};

void add_topo_options(CLI::App& command, TopoOptions& o) {
  add_run_options(command, o.run);
  add_shared_gpu_option(command, o.run);
  command.add_option("--topology", o.topologies,
                     fmt::format("all (default: every one the devices can form), or some of {}",
                                 join(topo::all_topologies(), ",",
                                      [](topo::Topology t) { return std::string(to_string(t)); })));
  command.add_option("--transport", o.transports,
                     fmt::format("the direct topologies' transports (default {}; those that cannot run here are "
                                 "skipped with the reason)",
                                 join(topo::TopoConfig{}.transports, ",",
                                      [](transport::Kind k) { return std::string(transport::to_string(k)); })));
  o.config.add(command, "--sizes",
               "regular (powers of two, 1 KiB .. 256 MiB; default), irregular (odd sizes over the same range), or a "
               "list or range, e.g. 1000,3KiB,1MiB or 4K:64M:x4",
               [](auto& c, const auto& text) { c.sizes = topo::parse_sizes(text, c.sizes.back()); });
  o.config.add(command, "--rounds", "rounds per size, each verified (default 100; fewer with --quick)",
               [](auto& c, const auto& text) { c.rounds = parse_positive_int(text, "--rounds"); });
  o.config.add(command, "--matrix-size", "the pairwise matrix's one-way message (default 256MiB)",
               [](auto& c, const auto& text) { c.matrix_bytes = parse_bytes(text); });
  o.config.add(command, "--latency-size", "the pairwise matrix's ping-pong message (default 8)",
               [](auto& c, const auto& text) { c.latency_bytes = parse_bytes(text); });
  o.config.add(command, "--timeout",
               "longest wait for a peer before the run fails (default 30s); under mpirun a rank with no progress "
               "for twice this aborts every rank (a single measurement longer than that reads as a rank gone)",
               [](auto& c, const auto& text) { c.transport.timeout_s = parse_timeout(text, "--timeout"); });
  command
      .add_option("--profile", o.profile_path,
                  "machine profile (`ferry probe -o`) with link's peer copies (default: measure them in this run)")
      ->check(input_file("--profile"));
}

topo::TopoConfig make_config(const Backend& backend, const TopoOptions& o, const std::vector<int>& devices) {
  topo::TopoConfig c = topo::TopoConfig::defaults(backend.capabilities(), o.run.quick);
  c.topologies = topo::parse_topologies(o.topologies);
  if (!o.transports.empty()) c.transports = transport::parse_kinds(o.transports);
  c.devices = devices;
  o.config.apply(c);
  if (const char* corrupt = std::getenv(topo::corrupt_variable)) topo::parse_corruption(corrupt, c);
  return c;
}

int run_topo(const TopoOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const Driver driver(o.run, command_line, out);
  const Participants participants = participant_devices(driver.backend(), o.run, driver.world());
  const topo::TopoConfig config = make_config(driver.backend(), o, participants.devices);
  Backend& backend = driver.backend();
  World& w = driver.world();
  topo::validate(backend, config, w.distributed() ? w.size() : static_cast<int>(config.devices.size()));
  const SharedWorkload workload{
      .name = "topo",
      .devices = config.devices,
      .reads_link_peers = true,  // the direct topologies' peaks are set beside link's peer copies
      .profile_path = o.profile_path,
      .shared_gpus = participants.shared,
      .plan = [&] { return topo::plan_run(backend, w, backend.describe_machine(), config); },
      .run = [&](const Machine& machine, const LinkPeers& peers,
                 const Progress& progress) { return topo::run(backend, w, machine, config, peers.peers, progress); },
  };
  return run_shared_workload(driver, workload);
}

void add_topo_command(const Commands& c) {
  auto o = std::make_shared<TopoOptions>();
  CLI::App* command = c.run.add_subcommand("topo");  // described by the declaration's summary
  command->footer(
      "Topologies: pair (two devices over their direct link, one way and both ways at once), ring (every device sends "
      "right and receives from the left at once), fully-connected (every device exchanges with every other at once), "
      "host-staged (device -> host, host -> host by memcpy in one process or MPI across ranks, host -> device; every "
      "device with every other) and matrix (one-way bandwidth and latency for every ordered pair). A topology the "
      "devices cannot form is named with the reason (a ring of 2 is the pair); fewer than 2 devices, or every "
      "topology and transport asked for skipped, is refused with exit 2. Ping-ping: every device starts "
      "sending at once, one exchange a round; each round's messages hold values of element index and round and are "
      "checked byte for byte on receipt. GB/s = bytes each device sends / the slowest device's time; median, min and "
      "max over rounds. Each topology's peak is set beside its theoretical peak (NVLink count x rate, PCIe "
      "generation x width; host-staged 1 / (2/P_pcie + 1/P_host) with P_host the fastest host step, timed at 1 to "
      "64 MiB) and, for direct ones, beside link's peer copies measured in the same run and the fastest NCCL variant "
      "(vs best NCCL). Direct transports drive every device from one process (p2p-ce, p2p-sm, the NCCL variants) or "
      "take one rank per device under mpirun (p2p-ce and p2p-sm through CUDA IPC on one host, the NCCL variants, "
      "mpi-cuda): `mpirun -np N ferry run topo`.");
  add_topo_options(*command, *o);
  c.on_chosen(*command, [o](const auto& command_line, auto& out) { return run_topo(*o, command_line, out); });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload topo_workload() {
  std::vector<transport::Kind> direct;  // the host's path is a topology of its own
  for (transport::Kind kind : transport::all_kinds())
    if (!transport::through_host(kind)) direct.push_back(kind);
  return {
      .name = "topo",
      .summary = "ping-ping bandwidth per topology against what the links promise, and what the host path costs",
      .measures = "each topology over regular or irregular sizes, --rounds rounds per size each verified, "
                  "min/median/max bandwidth; a pairwise bandwidth and latency matrix per transport; every "
                  "topology's peak beside its theoretical peak (NVLink, PCIe, store-and-forward) and link's peer "
                  "copies",
      .lists = {{"topologies (--topology)",
                 names_of(topo::all_topologies(), [](topo::Topology t) { return topo::to_string(t); })},
                {"direct transports (--transport)",
                 names_of(direct, [](transport::Kind k) { return transport::to_string(k); })}},
      .runs_under_mpi = true,
      .add_commands = add_topo_command,
  };
}

}  // namespace ferry
