// Reading a run's provenance record (runs.env_json; written by device/provenance.h): its
// fields as text, and which keys change a run's numbers. Plain C++: the window's run details and
// Compare > Config diff, `pha runs show` and `pha runs export` use it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pha::core {

// The keys whose values change a run's numbers (precision, kernels, threads, BLAS core,
// LibTorch, program commit, device, world size): a difference in one of them between two runs
// is highlighted like a config difference. The others (reason, host, library path) explain.
bool provenance_key_changes_numbers(const std::string& key);

// The record as key -> text, keys sorted; "{}" or a non-object (runs of older programs) -> empty.
std::map<std::string, std::string> provenance_fields(const std::string& env_json);

// The keys a short view shows first (the rest follow in key order).
const std::vector<std::string>& provenance_summary_keys();

}  // namespace pha::core
