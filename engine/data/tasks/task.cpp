#include "data/tasks/task.h"

#include <map>
#include <mutex>

#include "core/error.h"
#include "data/internal/composition_tasks.h"
#include "data/internal/mad_tasks.h"
#include "data/internal/mqar.h"

namespace pha::data {

Sample TaskGenerator::sample(uint64_t index) const {
  Sample s;
  s.inputs.resize(static_cast<size_t>(info_.seq_len));
  s.targets.resize(static_cast<size_t>(info_.seq_len));
  generate(index, s.inputs.data(), s.targets.data());
  return s;
}

Batch TaskGenerator::batch(uint64_t first_index, int B) const {
  Batch b;
  b.B = B;
  b.T = info_.seq_len;
  const size_t T = static_cast<size_t>(info_.seq_len);
  b.inputs.resize(static_cast<size_t>(B) * T);
  b.targets.resize(static_cast<size_t>(B) * T);
  for (int i = 0; i < B; ++i)
    generate(first_index + static_cast<uint64_t>(i), b.inputs.data() + static_cast<size_t>(i) * T,
             b.targets.data() + static_cast<size_t>(i) * T);
  return b;
}

namespace {

std::mutex g_registry_mutex;

std::map<std::string, TaskFactory>& registry() {
  static std::map<std::string, TaskFactory> r = [] {
    std::map<std::string, TaskFactory> m;
    m["mqar"] = make_mqar;
    m["mad_in_context_recall"] = make_mad_in_context_recall;
    m["mad_noisy_recall"] = make_mad_noisy_recall;
    m["mad_fuzzy_recall"] = make_mad_fuzzy_recall;
    m["mad_selective_copy"] = make_mad_selective_copy;
    m["mad_memorization"] = make_mad_memorization;
    m["selective_copy"] = make_seed2_selective_copy;
    m["ar_decode"] = make_ar_decode;
    m["mkar"] = make_mkar;
    m["needle"] = make_needle;
    return m;
  }();
  return r;
}

std::string names_list() {
  std::string s;
  for (const auto& n : task_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& refused_tasks() {
  static const std::vector<std::pair<std::string, std::string>> refused = {
      {"mad_compression",
       "MAD's compression task needs an encoder/decoder head (the whole sequence is rebuilt from the state at the "
       "compression token), which this workbench's causal language models do not have; trained as a causal LM, "
       "each target would be the input at the same position, so the model would solve it by echoing its input"},
  };
  return refused;
}

int64_t default_test_examples(const TaskInfo& info) { return info.suite == "mad" ? 1280 : 1000; }

std::string describe_set(const TaskInfo& info) {
  std::string T = std::to_string(info.shortest());
  if (info.shortest() != info.seq_len) T += "-" + std::to_string(info.seq_len);
  return "T " + T + ", " + std::to_string(info.num_examples) + " seq.";
}

void register_task(const std::string& name, TaskFactory factory) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  registry()[name] = std::move(factory);
}

std::vector<std::string> task_names() {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  std::vector<std::string> out;
  for (const auto& [name, f] : registry()) out.push_back(name);
  return out;
}

std::unique_ptr<TaskGenerator> make_task(const nlohmann::json& config) {
  if (!config.is_object()) throw core::Error("task", "must be a JSON object {\"task\": name, ...params}");
  auto it = config.find("task");
  if (it == config.end() || !it->is_string())
    throw core::Error("task.task", "is required: one of " + names_list());
  for (const auto& [name, why] : refused_tasks())
    if (*it == name) throw core::Error("task.task", "\"" + name + "\" is not offered: " + why);
  TaskFactory factory;
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    auto f = registry().find(it->get<std::string>());
    if (f != registry().end()) factory = f->second;
  }
  if (!factory) throw core::Error("task.task", "unknown task \"" + it->get<std::string>() + "\"; known: " + names_list());
  return factory(config);
}

std::vector<TaskSet> mqar_train_sets(uint64_t seed) {
  const int rows[][3] = {{64, 4, 100000}, {128, 8, 20000}, {256, 16, 20000}, {256, 32, 20000}, {256, 64, 20000}};
  std::vector<TaskSet> out;
  for (const auto& r : rows) {
    nlohmann::json c = {{"task", "mqar"}, {"seq_len", r[0]}, {"num_kv_pairs", r[1]}, {"num_examples", r[2]},
                        {"seed", seed}};
    out.push_back({"mqar_train_T" + std::to_string(r[0]) + "_kv" + std::to_string(r[1]), c});
  }
  return out;
}

std::vector<TaskSet> mqar_test_sets(uint64_t seed) {
  const int rows[][2] = {{64, 4}, {64, 8}, {64, 16}, {128, 32}, {256, 64}, {512, 128}, {1024, 256}};
  std::vector<TaskSet> out;
  for (const auto& r : rows) {
    nlohmann::json c = {{"task", "mqar"}, {"seq_len", r[0]}, {"num_kv_pairs", r[1]}, {"num_examples", 1000},
                        {"seed", seed + 10}};
    out.push_back({"mqar_test_T" + std::to_string(r[0]) + "_kv" + std::to_string(r[1]), c});
  }
  return out;
}

const std::vector<int>& length_sweep_lengths() {
  static const std::vector<int> lengths = {50, 75, 100, 150, 200, 400};
  return lengths;
}

std::vector<TaskSet> length_generalization_sets(const nlohmann::json& config, const std::vector<int>& lengths) {
  std::vector<TaskSet> out;
  auto base = make_task(config);  // validates the config first
  for (int T : lengths.empty() ? length_sweep_lengths() : lengths) {
    nlohmann::json c = base->params();
    c["seq_len"] = T;
    if (c.contains("seq_len_min")) c["seq_len_min"] = T;
    make_task(c);  // fails here, naming the field, if the task cannot be made at this T
    out.push_back({base->info().name + "_T" + std::to_string(T), c});
  }
  return out;
}

std::vector<TaskSet> ood_bits_sets(const nlohmann::json& config) {
  auto base = make_task(config);
  if (!base->params().contains("bits_p"))
    throw core::Error("task.bits_p", "task \"" + base->info().name + "\" has no binary-input mode for OOD bits sets");
  std::vector<TaskSet> out;
  for (double p : {0.1, 0.3, 0.7, 0.9}) {
    nlohmann::json c = base->params();
    c["bits_p"] = p;
    char name[32];
    std::snprintf(name, sizeof(name), "_bits_p%.1f", p);
    out.push_back({base->info().name + name, c});
  }
  return out;
}

}  // namespace pha::data
