// `pha train --nproc N`: the data-parallel launcher (docs/distributed.md). Starts N worker
// processes of this same program with the same arguments and the torchrun environment (RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, PHA_DIST_TIMEOUT), forwards Ctrl-C /
// SIGTERM to them, and returns the exit code of the run (rank 0's, else the first failure).
#pragma once

#include <string>

namespace pha::cli {

struct LaunchOptions {
  int nproc = 1;        // workers on this machine
  int nnodes = 1;       // machines
  int node_rank = 0;    // this machine's index (0 serves the rendezvous)
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port on one machine, 29500 (torchrun's default) on several
  int timeout_s = 300;  // rendezvous and collectives; a dead or hung rank fails the others by then
  int threads = 0;      // --threads; 0: each worker gets cores / nproc (unless $PHA_THREADS is set)
};

// Blocks until every worker ended; returns the exit code for the launcher.
int launch_workers(const LaunchOptions& o);

}  // namespace pha::cli
