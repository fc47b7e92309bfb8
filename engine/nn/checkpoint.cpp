// Training checkpoints on top of safetensors, plus module / AdamW / RNG state helpers.
#include "nn/checkpoint.h"
#include "model/model_config.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/version.h>

#include <mutex>
#include <sstream>
#include <type_traits>

#include "core/error.h"
#include "nn/internal/optimizer_state_key.h"

namespace pha::nn {

namespace {

constexpr const char* kModelPrefix = "model.";
constexpr const char* kOptimizerPrefix = "optimizer.";
constexpr const char* kRngName = "rng.cpu";
constexpr const char* kMetaPrefix = "meta.";

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// Name of every parameter of `module`, by TensorImpl.
std::map<const void*, std::string> parameter_names(const torch::nn::Module& module) {
  std::map<const void*, std::string> names;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) names[p.value().unsafeGetTensorImpl()] = p.key();
  return names;
}

std::string list_some(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string shape_str(at::IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

}  // namespace

// ---- module, optimizer and RNG state ------------------------------------------------------

TensorMap module_state(const torch::nn::Module& module) {
  TensorMap out;
  for (const auto& p : module.named_parameters(true)) out[p.key()] = p.value().detach();
  for (const auto& b : module.named_buffers(true)) out[b.key()] = b.value().detach();
  return out;
}

void load_module_state(torch::nn::Module& module, const TensorMap& state, const std::string& source) {
  std::map<std::string, at::Tensor> targets;
  for (const auto& p : module.named_parameters(true)) targets[p.key()] = p.value();
  for (const auto& b : module.named_buffers(true)) targets[b.key()] = b.value();
  std::vector<std::string> missing, unexpected;
  for (const auto& [name, t] : targets) {
    if (!state.count(name)) missing.push_back(name);
  }
  for (const auto& [name, t] : state) {
    if (!targets.count(name)) unexpected.push_back(name);
  }
  if (!missing.empty()) throw core::Error(source, "model tensors missing from the file: " + list_some(missing));
  if (!unexpected.empty()) throw core::Error(source, "tensors the model does not have: " + list_some(unexpected));
  torch::NoGradGuard no_grad;
  for (auto& [name, target] : targets) {
    const at::Tensor& src = state.at(name);
    if (!src.sizes().equals(target.sizes())) {
      throw core::Error(source, "tensor \"" + name + "\" has shape " + shape_str(src.sizes()) + ", the model needs " +
                              shape_str(target.sizes()));
    }
    target.copy_(src);
  }
}

TensorMap adamw_state(const torch::optim::AdamW& optimizer, const torch::nn::Module& module) {
  const auto names = parameter_names(module);
  const auto& states = optimizer.state();
  TensorMap out;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      auto it = states.find(optimizer_state_key(states, p));
      if (it == states.end()) continue;  // no step taken for this parameter yet
      auto name_it = names.find(p.unsafeGetTensorImpl());
      if (name_it == names.end()) throw core::Error("optimizer state: a parameter of the optimizer is not in the module");
      const auto& s = static_cast<const torch::optim::AdamWParamState&>(*it->second);
      const std::string& n = name_it->second;
      out[n + ".exp_avg"] = s.exp_avg().detach();
      out[n + ".exp_avg_sq"] = s.exp_avg_sq().detach();
      if (s.max_exp_avg_sq().defined()) out[n + ".max_exp_avg_sq"] = s.max_exp_avg_sq().detach();
      out[n + ".step"] = at::scalar_tensor(static_cast<int64_t>(s.step()), at::kLong);
    }
  }
  return out;
}

void load_adamw_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module, const TensorMap& state,
                      const std::string& source) {
  const auto names = parameter_names(module);
  auto& states = optimizer.state();
  states.clear();
  size_t used = 0;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      auto name_it = names.find(p.unsafeGetTensorImpl());
      if (name_it == names.end()) throw core::Error(source, "a parameter of the optimizer is not in the module");
      const std::string& n = name_it->second;
      auto get = [&](const std::string& suffix) -> at::Tensor {
        auto it = state.find(n + suffix);
        if (it == state.end()) return {};
        ++used;
        return it->second;
      };
      at::Tensor step = get(".step"), avg = get(".exp_avg"), avg_sq = get(".exp_avg_sq"),
                 max_sq = get(".max_exp_avg_sq");
      // Parameter never stepped. A lone .max_exp_avg_sq is not that: it was once dropped silently.
      if (!step.defined() && !avg.defined() && !avg_sq.defined() && !max_sq.defined()) continue;
      if (!step.defined() || !avg.defined() || !avg_sq.defined()) {
        throw core::Error(source, "optimizer state of \"" + n + "\" is incomplete (needs .step, .exp_avg, .exp_avg_sq)");
      }
      for (const at::Tensor* t : {&avg, &avg_sq, &max_sq}) {
        if (t->defined() && !t->sizes().equals(p.sizes())) {
          throw core::Error(source, "optimizer state of \"" + n + "\" has shape " + shape_str(t->sizes()) +
                                  ", the parameter has " + shape_str(p.sizes()));
        }
      }
      if (step.numel() != 1) throw core::Error(source, "optimizer state \"" + n + ".step\" must be a scalar");
      auto s = std::make_unique<torch::optim::AdamWParamState>();
      s->step(step.to(at::kLong).item<int64_t>());
      s->exp_avg(avg.to(p.options()).clone());
      s->exp_avg_sq(avg_sq.to(p.options()).clone());
      if (max_sq.defined()) s->max_exp_avg_sq(max_sq.to(p.options()).clone());
      states[optimizer_state_key(states, p)] = std::move(s);
    }
  }
  if (used != state.size()) {
    std::vector<std::string> extra;
    for (const auto& [name, t] : state) {
      bool known = false;
      for (const auto& [impl, pname] : names) {
        for (const char* suffix : {".step", ".exp_avg", ".exp_avg_sq", ".max_exp_avg_sq"}) {
          known = known || name == pname + suffix;
        }
      }
      if (!known) extra.push_back(name);
    }
    throw core::Error(source, "optimizer state for tensors the optimizer does not hold: " + list_some(extra));
  }
}

at::Tensor default_rng_state() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void set_default_rng_state(const at::Tensor& state) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  try {
    gen.set_state(state);
  } catch (const c10::Error& e) {
    throw core::Error("rng state", std::string("not a CPU generator state: ") + e.what_without_backtrace());
  }
}

// ---- checkpoint files ---------------------------------------------------------------------

void save_checkpoint(const std::string& path, const TrainingCheckpoint& ck) {
  TensorMap tensors;
  for (const auto& [name, t] : ck.model) tensors[kModelPrefix + name] = t;
  for (const auto& [name, t] : ck.optimizer) tensors[kOptimizerPrefix + name] = t;
  if (ck.rng_state.defined()) tensors[kRngName] = ck.rng_state;
  Metadata meta;
  meta["pha.format"] = kCheckpointFormat;
  meta["pha.step"] = std::to_string(ck.step);
  meta["pha.config"] = ck.config.dump();
  meta["pha.torch_version"] = TORCH_VERSION;
  for (const auto& [key, value] : ck.metadata) meta[kMetaPrefix + key] = value;
  save_safetensors(path, tensors, meta);
}

TrainingCheckpoint load_checkpoint(const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  auto meta = [&](const std::string& key) -> const std::string& {
    auto it = file.metadata.find(key);
    if (it == file.metadata.end()) throw core::Error(path, "not a PHA checkpoint: metadata \"" + key + "\" is missing");
    return it->second;
  };
  if (meta("pha.format") != kCheckpointFormat) {
    throw core::Error(path, "checkpoint format \"" + meta("pha.format") + "\" is not supported; allowed: \"" +
                          kCheckpointFormat + "\"");
  }
  TrainingCheckpoint ck;
  const std::string& step = meta("pha.step");
  try {
    size_t used = 0;
    ck.step = std::stoll(step, &used);
    if (used != step.size()) throw std::invalid_argument("trailing characters");
  } catch (const std::exception&) {
    throw core::Error(path, "checkpoint metadata pha.step = \"" + step + "\" is not an integer");
  }
  try {
    ck.config = nlohmann::json::parse(meta("pha.config"));
    if (ck.config.is_object() && ck.config.contains("model")) model::apply_saved_model_defaults(ck.config["model"]);
  } catch (const nlohmann::json::exception& e) {
    throw core::Error(path, std::string("checkpoint metadata pha.config is not valid JSON: ") + e.what());
  }
  for (const auto& [key, value] : file.metadata) {
    if (starts_with(key, kMetaPrefix)) ck.metadata[key.substr(std::string(kMetaPrefix).size())] = value;
  }
  for (auto& [name, t] : file.tensors) {
    if (starts_with(name, kModelPrefix)) {
      ck.model[name.substr(std::string(kModelPrefix).size())] = t;
    } else if (starts_with(name, kOptimizerPrefix)) {
      ck.optimizer[name.substr(std::string(kOptimizerPrefix).size())] = t;
    } else if (name == kRngName) {
      if (t.scalar_type() != at::kByte || t.dim() != 1) throw core::Error(path, "rng.cpu must be a 1-D U8 tensor");
      // torch validates a state only when it is set; try it on a scratch generator, so that a bad
      // state is this file's error now rather than torch's when the run resumes (found by fuzzing).
      try {
        at::detail::createCPUGenerator().set_state(t);
      } catch (const c10::Error& e) {
        throw core::Error(path, std::string("rng.cpu is not a CPU generator state: ") + e.what_without_backtrace());
      }
      ck.rng_state = t;
    } else {
      throw core::Error(path,
                  "unexpected tensor \"" + name + "\" in a checkpoint; allowed prefixes: model., optimizer., rng.cpu");
    }
  }
  return ck;
}

}  // namespace pha::nn
