// ProcessGroup: the torchrun environment, the c10d::TCPStore rendezvous and the Gloo process
// group, with every c10d failure turned into a core::Error that names the rank.
#include "distributed/process_group.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "core/error.h"
#include "distributed/internal/process_group_impl.h"

namespace pha::distributed {

namespace {

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    throw core::Error(name, std::string("is \"") + v + "\"; expected an integer from " + std::to_string(lo) + " to " +
                          std::to_string(hi));
  return static_cast<int>(x);
}

std::string env_str(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

// Gloo's transport device: GLOO_SOCKET_IFNAME when set (as in PyTorch), the loopback address
// when the master is on loopback (one machine), else this host's address.
std::shared_ptr<::gloo::transport::Device> gloo_device(const DistConfig& cfg) {
  const std::string ifname = env_str("GLOO_SOCKET_IFNAME", "");
  if (!ifname.empty()) return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  if (is_loopback(cfg.master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

std::string rank_prefix(const DistConfig& cfg) {
  return "rank " + std::to_string(cfg.rank) + " of " + std::to_string(cfg.world_size);
}

}  // namespace

std::optional<DistConfig> config_from_env() {
  if (!std::getenv("WORLD_SIZE")) return std::nullopt;
  DistConfig c;
  c.world_size = env_int("WORLD_SIZE", 1, 1, 1 << 16);
  c.rank = env_int("RANK", 0, 0, c.world_size - 1);
  c.local_rank = env_int("LOCAL_RANK", c.rank, 0, c.world_size - 1);
  c.master_addr = env_str("MASTER_ADDR", c.master_addr);
  c.master_port = env_int("MASTER_PORT", c.master_port, 1, 65535);
  c.timeout_s = env_int("PHA_DIST_TIMEOUT", 300, 1, 7 * 24 * 3600);
  c.backend = env_str("PHA_DIST_BACKEND", "auto");
  return c;
}

std::string resolve_backend(const std::string& setting, const std::string& device) {
  const std::string b = setting == "auto" ? (device == "cpu" ? "gloo" : "nccl") : setting;
  if (b == "gloo") return b;
  if (b == "nccl")
    throw core::Error("PHA_DIST_BACKEND", "NCCL is not in this LibTorch (a CPU build); use gloo, or a CUDA LibTorch");
  throw core::Error("PHA_DIST_BACKEND", "is \"" + setting + "\"; allowed: auto, gloo, nccl");
}

ProcessGroup::ProcessGroup() : impl_(std::make_unique<Impl>()) {}
ProcessGroup::~ProcessGroup() = default;

std::shared_ptr<ProcessGroup> ProcessGroup::connect(const DistConfig& cfg, const std::string& device) {
  std::shared_ptr<ProcessGroup> g(new ProcessGroup());
  Impl& m = *g->impl_;
  m.cfg = cfg;
  m.backend = resolve_backend(cfg.backend, device);
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(cfg.timeout_s * 1000.0));
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(cfg.master_port);
    so.isServer = cfg.rank == 0;
    so.numWorkers = static_cast<std::size_t>(cfg.world_size);
    so.waitWorkers = true;
    so.timeout = timeout;
    m.store = c10::make_intrusive<c10d::TCPStore>(cfg.master_addr, so);
    auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
    opts->devices.push_back(gloo_device(cfg));
    m.pg = c10::make_intrusive<c10d::ProcessGroupGloo>(m.store, cfg.rank, cfg.world_size, opts);
  } catch (const std::exception& e) {
    throw core::Error("distributed", rank_prefix(cfg) + ": rendezvous at " + cfg.master_addr + ":" +
                                   std::to_string(cfg.master_port) + " failed (" + std::to_string(cfg.timeout_s) +
                                   " s timeout): " + e.what());
  }
  return g;
}

void ProcessGroup::Impl::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const {
  try {
    work->wait();
  } catch (const std::exception& e) {
    throw core::Error("distributed", rank_prefix(cfg) + ": " + what + " failed (a peer died, hung past the " +
                                   std::to_string(static_cast<int>(cfg.timeout_s)) + " s timeout, or left): " + e.what());
  }
}

int ProcessGroup::rank() const { return impl_->cfg.rank; }
int ProcessGroup::world_size() const { return impl_->cfg.world_size; }
const std::string& ProcessGroup::backend() const { return impl_->backend; }
double ProcessGroup::timeout_s() const { return impl_->cfg.timeout_s; }

void ProcessGroup::allreduce_sum(std::vector<double>& values) {
  if (values.empty()) return;
  std::vector<at::Tensor> t{at::from_blob(values.data(), {static_cast<int64_t>(values.size())}, at::kDouble)};
  c10::intrusive_ptr<c10d::Work> work;
  try {
    work = impl_->pg->allreduce(t);
  } catch (const std::exception& e) {
    throw core::Error("distributed", rank_prefix(impl_->cfg) + ": allreduce could not start: " + e.what());
  }
  impl_->wait(work, "allreduce");
}

bool ProcessGroup::any(bool flag) {
  std::vector<double> v{flag ? 1.0 : 0.0};
  allreduce_sum(v);
  return v[0] > 0.0;
}

void ProcessGroup::broadcast_from_rank0(std::vector<double>& values) {
  if (rank() != 0) std::fill(values.begin(), values.end(), 0.0);
  allreduce_sum(values);  // a sum with zeros from every other rank: exact for any double
}

}  // namespace pha::distributed
