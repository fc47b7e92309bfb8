// Data-parallel process groups (docs/distributed.md): the torchrun environment, rendezvous
// through c10d::TCPStore and a c10d ProcessGroup (Gloo on CPU). Plain C++: c10d stays in
// process_group.cpp and grad_reducer.cpp, so the job loop and the CLI include this header
// without parsing torch.
//
//   auto cfg = pha::distributed::config_from_env();            // RANK, WORLD_SIZE, ...
//   auto pg = pha::distributed::ProcessGroup::connect(*cfg, "cpu");
//   std::vector<double> v{loss}; pg->allreduce_sum(v);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pha::distributed {

struct DistConfig {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  double timeout_s = 300.0;    // rendezvous and every collective; a dead or hung peer fails by then
  std::string backend = "auto";  // auto | gloo | nccl
};

// The torchrun environment: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, plus
// PHA_DIST_TIMEOUT (seconds) and PHA_DIST_BACKEND. nullopt when WORLD_SIZE is not set; a
// malformed or inconsistent value is a core::Error naming the variable.
std::optional<DistConfig> config_from_env();

// "auto" -> "nccl" for CUDA tensors, "gloo" otherwise; an unknown or unavailable backend is a
// core::Error naming PHA_DIST_BACKEND.
std::string resolve_backend(const std::string& setting, const std::string& device);

class ProcessGroup {
 public:
  // Rendezvous (rank 0 serves the TCPStore at master_addr:master_port) and the backend's
  // process group. Blocks until every rank joined or the timeout passed (core::Error).
  static std::shared_ptr<ProcessGroup> connect(const DistConfig& cfg, const std::string& device);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int world_size() const;
  const std::string& backend() const;
  double timeout_s() const;

  // Element-wise sum over the ranks, in place (float64). Collective: every rank calls it in
  // the same order. A failed or timed-out peer: core::Error naming this rank.
  void allreduce_sum(std::vector<double>& values);
  // True on every rank when any rank passed true (agreeing on cancellation).
  bool any(bool flag);
  // Rank 0's values on every rank (the others' inputs are ignored).
  void broadcast_from_rank0(std::vector<double>& values);

  struct Impl;  // c10d objects (process_group_impl.h)
  Impl& impl() { return *impl_; }

 private:
  ProcessGroup();
  std::unique_ptr<Impl> impl_;
};

}  // namespace pha::distributed
