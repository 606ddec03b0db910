#include "cli/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "bench/beff/beff.hpp"
#include "cli/command_files.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/model_beff.hpp"
#include "run/shared_workload.hpp"
#include "transport/transport.hpp"

namespace ferry {
namespace {

struct BeffOptions {
  RunOptions run;
  std::string transports = "all";
  ConfigOptions<beff::BeffConfig> config;
  std::string profile_path;
};

transport::Options::SmProtocol parse_sm_protocol(const std::string& text) {
  if (text == "auto") return transport::Options::SmProtocol::automatic;
  if (text == "ll") return transport::Options::SmProtocol::ll;
  if (text == "direct") return transport::Options::SmProtocol::direct;
  throw UsageError(fmt::format("unknown --sm-protocol '{}': choose auto, ll or direct", text));
}

void add_beff_options(CLI::App& command, BeffOptions& o) {
  add_run_options(command, o.run);
  add_shared_gpu_option(command, o.run);
  command.add_option("--transport", o.transports,
                     fmt::format("transports to compare: all (default), or some of {}",
                                 join(transport::all_kinds(), ",",
                                      [](transport::Kind k) { return std::string(to_string(k)); })));
  o.config.add(command, "--max-size",
               "extend the sizes past 2 MiB, doubling up to this (e.g. 256MiB); b_eff stays over the 21",
               [](auto& c, const auto& text) { c.max_bytes = parse_bytes(text); });
  o.config.add(command, "--min-time", "shortest measurement, for looplength's calibration (default 5ms)",
               [](auto& c, const auto& text) { c.min_time_s = parse_duration(text); });
  o.config.add(command, "--repetitions", "measurements per size; b(L) is the best (default 10)",
               [](auto& c, const auto& text) { c.repetitions = parse_positive_int(text, "--repetitions"); });
  o.config.add(command, "--latency-size", "the ping-pong message for one-way latency (default 8)",
               [](auto& c, const auto& text) { c.latency_bytes = parse_bytes(text); });
  o.config.add(command, "--sm-protocol",
               "p2p-sm: auto (LL up to 512 KiB, direct above; default), ll or direct for every size",
               [](auto& c, const auto& text) { c.transport.sm_protocol = parse_sm_protocol(text); });
  o.config.add(command, "--sm-teams",
               "p2p-sm: the most teams (thread blocks) one device moves a direct message with (default: one per "
               "32 KiB, up to 128; at most what the device holds at once)",
               [](auto& c, const auto& text) { c.transport.sm_teams = parse_positive_int(text, "--sm-teams"); });
  o.config.add(command, "--timeout",
               "longest wait for a peer before the run fails (default 30s); under mpirun a rank with no progress "
               "for twice this aborts every rank (a single measurement longer than that reads as a rank gone)",
               [](auto& c, const auto& text) { c.transport.timeout_s = parse_timeout(text, "--timeout"); });
  command
      .add_option("--profile", o.profile_path,
                  "machine profile (`ferry probe -o`) with peer figures for p2p-ce's model (default: measure them "
                  "with link in this run)")
      ->check(input_file("--profile"));
}

beff::BeffConfig make_config(const Backend& backend, const BeffOptions& o, const std::vector<int>& devices) {
  beff::BeffConfig c = beff::BeffConfig::defaults(backend.capabilities(), o.run.quick);
  c.transports = transport::parse_kinds(o.transports);
  c.devices = devices;
  o.config.apply(c);
  if (c.min_time_s <= 0) throw UsageError("--min-time must be more than 0");
  if (const char* corrupt = std::getenv(beff::corrupt_variable)) beff::parse_corruption(corrupt, c);
  if (const char* exit = std::getenv(beff::rank_exit_variable)) beff::parse_rank_exit(exit, c);
  return c;
}

// p2p-ce's and p2p-sm's models read link's peer figures; without either, link need not run.
bool reads_link_peers(const beff::BeffConfig& config) {
  return std::any_of(config.transports.begin(), config.transports.end(),
                     [](transport::Kind k) { return k == transport::Kind::p2p_ce || k == transport::Kind::p2p_sm; });
}

int run_beff(const BeffOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const Driver driver(o.run, command_line, out);
  Backend& backend = driver.backend();
  const Participants participants = participant_devices(backend, o.run, driver.world());
  beff::BeffConfig config = make_config(backend, o, participants.devices);
  // Refused, as topo refuses, before anything is printed or measured.
  const int count = beff::participants_of(driver.world(), config);
  beff::validate(backend, config, count);
  const SharedWorkload workload{
      .name = "beff",
      .devices = config.devices,
      .reads_link_peers = reads_link_peers(config) || !o.profile_path.empty(),
      .profile_path = o.profile_path,
      .shared_gpus = participants.shared,
      .plan = [&] { return beff::plan_run(config, count); },
      .run =
          [&](const Machine&, const LinkPeers& peers, const Progress& progress) {
            config.profile_origin = peers.origin;
            return beff::run(backend, driver.world(), config, peers.peers, progress);
          },
  };
  return run_shared_workload(driver, workload);
}

void add_beff_commands(const Commands& c) {
  auto o = std::make_shared<BeffOptions>();
  CLI::App* command = c.run.add_subcommand("beff");  // described by the declaration's summary
  command->footer(
      "n devices form a ring; in each exchange every device sends a message to its right while it receives one from "
      "its left (ping-ping), looplength exchanges per measurement, looplength calibrated so that one lasts at least "
      "--min-time. Sizes: the 21 of the HPCC b_eff definition (1 B .. 4 KiB doubling, 16 KiB .. 2 MiB), then doubling "
      "up to --max-size. b(L) = L x looplength / time, the best of --repetitions; b_eff = the mean of b(L) over the 21 "
      "sizes. Every message carries a pattern of its sender, exchange and size, checked word by word on receipt (past "
      "a slot per exchange, the first, middle and last exchanges and the shared slots: docs/beff.md). Transports: "
      "p2p-ce (peer copies by the copy engine), p2p-sm (kernels store into the peer's memory: LL or direct), nccl "
      "(ncclSend/Recv, a group per exchange from the host), nccl-graph (the same captured once as a CUDA graph and "
      "replayed), nccl-graph-reg (nccl-graph on ncclMemAlloc buffers registered with NCCL; every transport is also "
      "set beside the fastest of the three: vs best NCCL), host-staged (device -> host, memcpy, host -> device, in one process), mpi-staged (device -> "
      "host, MPI, host -> device), mpi-cuda (MPI on device memory, where the "
      "MPI library is CUDA-aware). Two layouts: one process driving every device (--devices), or `mpirun -np N ferry "
      "run beff`, a rank per device, results on rank 0. p2p-ce, p2p-sm and NCCL run in both (p2p a rank per device "
      "through CUDA IPC, on one host); host-staged in one process, the MPI ones under mpirun. A transport that cannot run here is skipped with "
      "the reason; fewer than 2 devices, or every transport skipped, is refused with exit 2. Beside each figure "
      "the model L / (t_lat + L / B): p2p-ce and p2p-sm from link's peer figures (measured first), the others "
      "fitted to their own smallest and largest sizes; both residuals are printed.");
  add_beff_options(*command, *o);
  c.on_chosen(*command, [o](const auto& command_line, auto& out) { return run_beff(*o, command_line, out); });

  auto m = std::make_shared<ModelBeffOptions>();
  CLI::App* predict = c.model.add_subcommand("beff", "predict b_eff for rings larger than this machine, per transport");
  predict->footer(
      "Scales each transport's measured terms (t_lat, B) to rings of --devices devices. Within a node every device "
      "keeps its own terms; a ring that spans nodes moves in lockstep, so the slowest hop (the network) sets every "
      "device's pace. p2p transports stay within one node. Says which term dominates b_eff, and what it assumes. Terms come from "
      "--profile: a beff results file (`ferry run beff --json`) or a machine profile (p2p-ce only); without it a "
      "quick beff run on this machine measures them. A results file with a row that FAILED its check (or whose "
      "verification is FAILED) is refused, exit 2, naming the rows, unless --allow-failed; one a run left when it "
      "ended early (an \"incomplete\" field), unless --allow-incomplete; a --network or --measured file, always. "
      "The notes name the network figures used and where they came from.");
  predict->add_option("--devices", m->devices, "ring sizes to predict (default 8,64,512)");
  predict->add_option("--per-node", m->per_node, "devices per node (default 8)");
  predict->add_option("--network-bandwidth", m->network_bandwidth,
                      fmt::format("one hop between nodes, per direction (default {}: one 400 Gb/s NIC per GPU)",
                                  default_network_bandwidth));
  predict->add_option("--network-latency", m->network_latency,
                      fmt::format("one hop between nodes (default {})", default_network_latency));
  predict->add_option("--profile", m->profile_path, "beff results or machine profile with the terms")
      ->check(input_file("--profile"));
  predict
      ->add_option("--network", m->network_path,
                   "the hop between nodes as measured: beff results of a ring whose every hop crosses hosts (mpirun "
                   "--map-by node, a rank a host); each transport it ran takes t_lat of its smallest size and B of "
                   "its largest, in place of --network-bandwidth and --network-latency")
      ->check(input_file("--network"));
  predict
      ->add_option("--measured", m->measured_path,
                   "beff results of a ring of one of --devices: each transport's prediction for its size is set "
                   "beside its measured b_eff per device, with the residual")
      ->check(input_file("--measured"));
  predict
      ->add_option("--json", m->json_path,
                   "write the prediction to this results file (JSON); - for standard output, and the tables then go "
                   "to standard error")
      ->check(writable_file("--json"));
  predict->add_option("--backend", m->backend, "for the quick run without --profile: cuda, emu or auto");
  predict->add_flag("-q,--quiet", m->quiet, "no progress lines on standard error");
  predict->add_flag("--allow-failed", m->allow_failed,
                    "model a --profile results file even though some of its rows FAILED their check (refused "
                    "without it, exit 2): every printed line then begins [FAILED input], and the prediction's JSON "
                    "has input_verification FAILED in its config, a note, and \"from FAILED input\" on each row");
  predict->add_flag(
      "--allow-incomplete", m->allow_incomplete,
      "model a --profile results file that a run left when it ended early (an \"incomplete\" field: "
      "SIGINT, SIGTERM, an error), whose terms may miss transports or sizes (refused without it, exit 2)");
  c.on_chosen(*predict, [m](const auto& command_line, auto& out) { return model_beff(*m, command_line, out); });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload beff_workload() {
  const std::vector<std::uint64_t> sizes = beff::definition_sizes();
  return {
      .name = "beff",
      .summary = "HPCC effective bandwidth between devices, per transport: which path to use",
      .measures = fmt::format("a ring of devices (or MPI ranks) exchanging messages of the {} b_eff sizes ({} .. {}) "
                              "by ping-ping over each transport; b(L) per size, b_eff per transport, one-way "
                              "ping-pong latency, messages checked word by word on arrival (docs/beff.md says which), "
                              "beside the model L / (t_lat + L / B); `ferry model beff` predicts larger rings",
                              sizes.size(), format_bytes(sizes.front()), format_bytes(sizes.back())),
      .lists = {{"transports (--transport)",
                 names_of(beff::BeffConfig{}.transports, [](transport::Kind k) { return transport::to_string(k); })}},
      .runs_under_mpi = true,
      .add_commands = add_beff_commands,
  };
}

}  // namespace ferry
