#include "transport/world.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/run_journal.hpp"
#include "transport/liveness.hpp"

#if FERRY_WITH_MPI
#include "core/mpi_check.hpp"
#endif

namespace ferry {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

World& the_world() {
  static World w;
  return w;
}

#if FERRY_WITH_MPI
bool mpi_multithreaded = false;  // the watchdog may call MPI_Abort from its own thread
#endif

}  // namespace

#if FERRY_WITH_MPI
void throw_mpi_error(int error, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(error, text, &length);
  throw RuntimeFailure(std::string("MPI error in ") + call + " at " + file + ":" + std::to_string(line) + ": " + text);
}
#endif

bool World::built_with_mpi() { return FERRY_WITH_MPI != 0; }

bool launched_by_mpi() {
  // Open MPI's mpirun, PMIx launchers (Slurm, prterun), Hydra (MPICH) and MVAPICH each leave one of these.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"})
    if (const char* rank = std::getenv(name)) return std::atoi(rank);
  return 0;
}

World& world() { return the_world(); }

void start_world() {
  World& w = the_world();
  if (launched_by_mpi()) w.start_mpi();
}

void stop_world() {
  World& w = the_world();
  w.stop_watching();
#if FERRY_WITH_MPI
  if (w.mpi_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
#endif
}

World::World() : host_(this_host()) {}

World::~World() { stop_watching(); }

void World::start_mpi() {
#if FERRY_WITH_MPI
  int provided = 0;
  FERRY_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
  mpi_multithreaded = provided == MPI_THREAD_MULTIPLE;
  // Errors come back as codes that FERRY_MPI turns into a message naming the rank, not a bare abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mpi_ = true;
  FERRY_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  FERRY_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm node;
  FERRY_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  FERRY_MPI(MPI_Comm_rank(node, &local_rank_));
  FERRY_MPI(MPI_Comm_size(node, &host_ranks_));
  MPI_Comm_free(&node);
  for (const std::vector<std::uint8_t>& host : all_gather({host_.begin(), host_.end()}))
    hosts_.emplace_back(host.begin(), host.end());
  if (size_ > 1) {
    // A rank that cannot open its port shares an empty endpoint: the others then name it silent when a run stalls.
    try {
      liveness_ = std::make_unique<Liveness>(rank_);
    } catch (const RuntimeFailure& e) {
      std::fprintf(stderr, "ferry: rank %d (%s): %s; a stalled run will not say which ranks still answer\n", rank_,
                   host_.c_str(), e.what());
    }
    auto endpoints = all_gather(liveness_ ? liveness_->endpoint() : std::vector<std::uint8_t>{});
    if (liveness_) liveness_->set_peers(std::move(endpoints));
  }
#else
  // Launched by mpirun but built without MPI: every copy would think it is
  // alone and measure the same GPUs at once. Say so rather than do that.
  throw UsageError("this ferry was started by an MPI launcher but built without MPI: rebuild with OpenMPI "
                   "(scripts/setup.sh installs it) or run it without mpirun");
#endif
}

void World::barrier() const {
#if FERRY_WITH_MPI
  if (mpi_) FERRY_MPI(MPI_Barrier(MPI_COMM_WORLD));
#endif
}

void World::barrier_sleeping(double timeout_s) const {
#if FERRY_WITH_MPI
  if (!mpi_) return;
  MPI_Request request;
  FERRY_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &request));
  const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  for (int done = 0;;) {
    FERRY_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if (now_ns() > deadline)
      throw RuntimeFailure(
          fmt::format("rank {}: the other ranks did not reach the barrier within {:.0f} s", rank_, timeout_s));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
#else
  (void)timeout_s;
#endif
}

double World::max(double value) const {
#if FERRY_WITH_MPI
  if (mpi_) FERRY_MPI(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
#endif
  return value;
}

std::int64_t World::max(std::int64_t value) const {
#if FERRY_WITH_MPI
  if (mpi_) FERRY_MPI(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
#endif
  return value;
}

bool World::all(bool value) const {
  int v = value ? 1 : 0;
#if FERRY_WITH_MPI
  if (mpi_) FERRY_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
#endif
  return v != 0;
}

void World::broadcast(std::vector<std::uint8_t>& bytes) const {
#if FERRY_WITH_MPI
  if (!mpi_) return;
  auto count = static_cast<std::int64_t>(bytes.size());
  FERRY_MPI(MPI_Bcast(&count, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
  bytes.resize(static_cast<std::size_t>(count));
  FERRY_MPI(MPI_Bcast(bytes.data(), static_cast<int>(count), MPI_BYTE, 0, MPI_COMM_WORLD));
#else
  (void)bytes;
#endif
}

int World::broadcast(int value) const {
#if FERRY_WITH_MPI
  if (mpi_) FERRY_MPI(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD));
#endif
  return value;
}

namespace {

#if FERRY_WITH_MPI
// Every rank's items to rank 0, one rank after another (MPI_Gatherv).
template <class T>
std::vector<T> gather_to_root(const std::vector<T>& mine, MPI_Datatype type, int rank, int size) {
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? size : 0), offsets(counts.size());
  FERRY_MPI(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  std::vector<T> all(static_cast<std::size_t>(total));
  FERRY_MPI(MPI_Gatherv(mine.data(), count, type, all.data(), counts.data(), offsets.data(), type, 0, MPI_COMM_WORLD));
  return all;
}
#endif

}  // namespace

std::vector<std::vector<std::uint8_t>> World::all_gather(const std::vector<std::uint8_t>& mine) const {
#if FERRY_WITH_MPI
  if (mpi_) {
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(counts.size());
    FERRY_MPI(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD));
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    FERRY_MPI(MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                             MPI_COMM_WORLD));
    std::vector<std::vector<std::uint8_t>> each;
    for (std::size_t r = 0; r < counts.size(); ++r)
      each.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return each;
  }
#endif
  return {mine};
}

std::vector<double> World::gather(const std::vector<double>& mine) const {
#if FERRY_WITH_MPI
  if (mpi_) return gather_to_root(mine, MPI_DOUBLE, rank_, size_);
#endif
  return mine;
}

std::vector<std::string> World::gather(const std::string& mine) const {
  std::vector<char> text(mine.begin(), mine.end());
  text.push_back('\0');  // ends one rank's text
#if FERRY_WITH_MPI
  if (mpi_) text = gather_to_root(text, MPI_CHAR, rank_, size_);
#endif
  std::vector<std::string> texts;
  for (auto at = text.begin(); at != text.end();) {
    const auto end = std::find(at, text.end(), '\0');
    texts.emplace_back(at, end);
    at = end == text.end() ? end : end + 1;
  }
  return texts;
}

void World::abort(int exit_code) const {
  std::fflush(stdout);
  std::fflush(stderr);
#if FERRY_WITH_MPI
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
  std::_Exit(exit_code);
}

void World::watch(double seconds) {
  if (!distributed() || seconds <= 0) return;
  std::lock_guard lock(watch_mutex_);
  watch_seconds_ = seconds;
  last_progress_ns_ = now_ns();
  if (watching_) return;
  watching_ = true;
  watchdog_ = std::thread([this] { watchdog_loop(); });
}

void World::progressed(const std::string& step) {
  std::lock_guard lock(watch_mutex_);
  step_ = step;
  last_progress_ns_ = now_ns();
}

void World::stop_watching() {
  {
    std::lock_guard lock(watch_mutex_);
    if (!watching_) return;
    watching_ = false;
  }
  if (watchdog_.joinable()) watchdog_.join();
}

std::string World::who_is_silent() const {
  if (!liveness_) return "no rank was asked";
  // A rank waits in MPI for a neighbour that may itself be waiting, so every rank is asked directly. Two
  // seconds: a live rank's answer crosses a loaded network in well under that.
  try {
    const std::string silent = silent_in_words(liveness_->silent_ranks(std::chrono::seconds(2)), hosts_, rank_);
    return silent.empty() ? "every other rank answers, so they wait too" : silent;
  } catch (const RuntimeFailure& e) {
    return fmt::format("the other ranks could not be asked ({})", e.what());
  }
}

void World::watchdog_loop() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string step;
    double idle = 0;
    {
      std::lock_guard lock(watch_mutex_);
      if (!watching_) return;
      idle = static_cast<double>(now_ns() - last_progress_ns_) * 1e-9;
      if (idle <= watch_seconds_) continue;
      step = step_.empty() ? "the run" : step_;
    }
    const std::string silent = who_is_silent();
    {
      // The run may have moved on, or ended, while the ranks were asked.
      std::lock_guard lock(watch_mutex_);
      if (!watching_) return;
      if (static_cast<double>(now_ns() - last_progress_ns_) * 1e-9 <= watch_seconds_) continue;
    }
    const std::string why = fmt::format("no progress for {:.0f} s in {}; {}", idle, step, silent);
    // The rows finished are kept (rank 0 holds them) before the abort ends this process without a word to them.
    RunJournal* journal = current_journal();
    const std::string kept = journal ? journal->keep_unfinished(why, true) : "";
    std::fprintf(stderr, "ferry: rank %d (%s): %s; aborting every rank%s\n", rank_, host_.c_str(), why.c_str(),
                 kept.empty() ? "" : ("; " + kept).c_str());
    std::fflush(stderr);
#if FERRY_WITH_MPI
    if (mpi_ && mpi_multithreaded) MPI_Abort(MPI_COMM_WORLD, 3);
#endif
    std::_Exit(3);  // the launcher ends the other ranks when one leaves without finalizing
  }
}

}  // namespace ferry
