#pragma once
// The processes of one run: this one alone, or the ranks an MPI launcher
// (mpirun) started, one per GPU. ferry never launches processes itself: MPI is
// started only when a launcher started this process, so a plain `ferry run`
// needs no MPI at all, and a ferry built without MPI is a world of one.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ferry {

class Liveness;

class World {
 public:
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }          // among the ranks on this host
  bool one_host() const { return host_ranks_ == size_; }  // every rank runs on this host
  const std::string& host() const { return host_; }
  bool distributed() const { return size_ > 1; }
  bool mpi() const { return mpi_; }  // MPI was started (a launcher started this process)
  static bool built_with_mpi();

  // Collectives over every rank; in a world of one they return at once.
  void barrier() const;
  // A barrier that sleeps while it waits, so that ranks waiting their turn leave
  // the CPU to the rank that measures (MPI_Barrier spins). Throws RuntimeFailure
  // when the others have not come within `timeout_s`.
  void barrier_sleeping(double timeout_s) const;
  double max(double value) const;
  std::int64_t max(std::int64_t value) const;
  bool all(bool value) const;
  // Rank 0's bytes, on every rank.
  void broadcast(std::vector<std::uint8_t>& bytes) const;
  int broadcast(int value) const;
  // Every rank's bytes, in rank order, on every rank.
  std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) const;
  // On rank 0, every rank's numbers one after another in rank order; empty elsewhere.
  std::vector<double> gather(const std::vector<double>& mine) const;
  std::vector<std::string> gather(const std::string& mine) const;

  // Ends every rank at once (MPI_Abort), or this process in a world of one.
  [[noreturn]] void abort(int exit_code) const;

  // A rank that makes no progress for `seconds` (a peer that died, a wait
  // that never ends) aborts them all with a message naming it, the step, and
  // the ranks that no longer answer (transport/liveness.hpp) with their hosts.
  // Only where there are several ranks: a single process's waits have their own timeouts.
  void watch(double seconds);
  void progressed(const std::string& step);
  void stop_watching();

  World();
  ~World();

 private:
  friend World& world();
  friend void start_world();
  friend void stop_world();
  void start_mpi();
  void watchdog_loop();
  // In words, the ranks that answer no ping (transport/liveness.hpp), with their hosts.
  std::string who_is_silent() const;

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int host_ranks_ = 1;  // ranks on this host, this one included
  std::string host_;
  bool mpi_ = false;

  std::mutex watch_mutex_;
  std::string step_;
  double watch_seconds_ = 0;
  std::int64_t last_progress_ns_ = 0;
  bool watching_ = false;
  std::thread watchdog_;
  std::unique_ptr<Liveness> liveness_;  // under MPI with several ranks
  std::vector<std::string> hosts_;      // every rank's host, in rank order, under MPI
};

// This process's world.
World& world();

// True when an MPI launcher started this process (its environment says so).
bool launched_by_mpi();
// This process's rank as its launcher set it, before MPI starts (0 when no launcher did).
int launcher_rank();

// main() calls these once: MPI starts here when a launcher started the
// process, and is finalized at the end.
void start_world();
void stop_world();

}  // namespace ferry
