// Internal to engine/distributed: the c10d objects behind ProcessGroup, shared by
// process_group.cpp and grad_reducer.cpp. Parses torch's c10d headers: never include it from a
// public header.
#pragma once

#include <string>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "distributed/process_group.h"

namespace pha::distributed {

struct ProcessGroup::Impl {
  DistConfig cfg;
  std::string backend;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;

  // Waits for `work`; a c10d failure (peer gone, timeout) becomes a core::Error that says which
  // rank saw it and during what.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const;
};

}  // namespace pha::distributed
