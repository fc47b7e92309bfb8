// Worker processes of a data-parallel run on this machine (docs/distributed.md): the free
// rendezvous port, the torchrun environment of a rank, the fork/exec of a worker and its exit
// status. Plain POSIX, no torch: shared by `pha train --nproc` (app/cli/cmd_launch.cpp, which
// starts every rank) and the window (runtime/local_parallel.h, which is rank 0 itself and
// starts ranks 1 .. N-1).
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "distributed/process_group.h"

namespace pha::distributed {

using Environment = std::vector<std::pair<std::string, std::string>>;

// A port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, released).
// `what` names the setting to pass instead in the error.
int free_loopback_port(const std::string& what = "--master-port");

// The torchrun variables of `cfg`'s rank (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT, PHA_DIST_TIMEOUT), and PHA_THREADS when threads > 0.
Environment rank_environment(const DistConfig& cfg, int local_world_size, int threads);

// Intra-op threads of each of `nproc` ranks sharing this machine's cores: cores / nproc, at
// least 1 (two processes must not each take every core).
int threads_per_rank(int nproc);

// Starts `program` with `args` (args[0] is its argv[0]) and this process's environment with
// `env` added. The child gets its own process group (Ctrl-C reaches only the launcher, which
// forwards one signal) and SIGTERM when the thread that started it ends (a killed launcher
// leaves no worker behind). argv and envp are built before fork: between fork and exec the
// child calls only async-signal-safe functions, since the caller may be multi-threaded (the
// window). Throws core::Error when fork fails; a failed exec exits the child with 127.
pid_t spawn_worker(const std::string& program, const std::vector<std::string>& args, const Environment& env);

// A waitpid status as an exit code: the code, or 128 + the signal that ended it.
int exit_code_of(int status);
// "exited with code 3", "was killed by signal 9 (Killed)".
std::string describe_exit(int status);

}  // namespace pha::distributed
