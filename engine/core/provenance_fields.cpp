#include "core/provenance_fields.h"

#include <set>

#include <nlohmann/json.hpp>

namespace pha::core {

bool provenance_key_changes_numbers(const std::string& key) {
  static const std::set<std::string> keys = {"precision", "kernels", "threads.intra_op", "threads.blas",
                                             "blas.core", "torch.version", "torch.build", "program.commit",
                                             "device", "device.name", "world_size", "backend"};
  return keys.count(key) > 0;
}

std::map<std::string, std::string> provenance_fields(const std::string& env_json) {
  std::map<std::string, std::string> out;
  const nlohmann::json j = nlohmann::json::parse(env_json.empty() ? "{}" : env_json, nullptr, false);
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  return out;
}

const std::vector<std::string>& provenance_summary_keys() {
  static const std::vector<std::string> keys = {"precision", "kernels", "threads.intra_op", "threads.blas",
                                                "blas.core", "torch.version", "device.name", "program.commit",
                                                "host"};
  return keys;
}

}  // namespace pha::core
