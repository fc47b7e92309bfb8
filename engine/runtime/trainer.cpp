// Trainer implementation: the one torch translation unit of the runtime (model, AdamW groups,
// loss, evaluation forward passes, checkpoints, generation).
#include "runtime/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adamw.h>
#include <torch/utils.h>

#include "core/error.h"
#include "model/saved_config.h"
#include "distributed/grad_reducer.h"
#include "nn/checkpoint.h"
#include "nn/fused_adamw.h"
#include "nn/generate.h"
#include "nn/lens_probe.h"
#include "nn/pha_model.h"

namespace pha::runtime {

namespace F = torch::nn::functional;
using nlohmann::json;

double lr_factor(const project::TrainingConfig& cfg, int64_t step) {
  if (cfg.warmup_steps > 0 && step <= cfg.warmup_steps)
    return static_cast<double>(step) / static_cast<double>(cfg.warmup_steps);
  if (cfg.schedule == "wsd") {
    const int64_t stable_end = cfg.stable_end();
    if (step <= stable_end) return 1.0;
    // Cooldown steps stable_end+1 .. steps: progress 1/n .. 1, ending at min_lr_ratio.
    const double progress = static_cast<double>(step - stable_end) / static_cast<double>(cfg.steps - stable_end);
    const double p = std::min(1.0, progress);
    const double shape = cfg.cooldown_shape == "linear" ? 1.0 - p : 1.0 - std::sqrt(p);
    return cfg.min_lr_ratio + (1.0 - cfg.min_lr_ratio) * shape;
  }
  const int64_t decay_steps = cfg.steps - cfg.warmup_steps;
  if (decay_steps <= 0) return 1.0;
  const double progress =
      std::min(1.0, static_cast<double>(step - cfg.warmup_steps) / static_cast<double>(decay_steps));
  const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
  return cfg.min_lr_ratio + (1.0 - cfg.min_lr_ratio) * cosine;
}

struct Trainer::Impl {
  model::ModelConfig model_cfg;
  project::TrainingConfig cfg;
  std::string device;
  nn::PrecisionChoice precision;
  bool phase_timing = false;
  nn::PhaModel model{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer;
  std::vector<at::Tensor> params;
  std::vector<std::string> group_names;  // per optimizer group
  json groups = json::object();
  // Data-parallel (set_process_group); null for one process.
  std::shared_ptr<distributed::ProcessGroup> group;
  std::unique_ptr<distributed::GradReducer> reducer;

  // (B, T) int32 -> (B, T) int64 on the device
  at::Tensor to_device(const std::vector<int32_t>& v, int B, int T) const {
    if (static_cast<int64_t>(v.size()) != static_cast<int64_t>(B) * T)
      throw core::Error("batch", "has " + std::to_string(v.size()) + " ids, expected B x T = " + std::to_string(B * T));
    at::Tensor t = at::from_blob(const_cast<int32_t*>(v.data()), {B, T}, at::kInt).to(at::kLong);
    return device == "cpu" ? t : t.to(at::Device(device));
  }

  // logits (B, T, V) in fp32: under bf16 the model computes in bf16 and returns fp32 logits,
  // so the loss and the evaluation statistics run in fp32 (no autocast: the model casts by
  // hand, the same on CPU and CUDA, docs/model.md "Precision").
  at::Tensor logits(const at::Tensor& inputs) { return model->forward(inputs); }

  void build_optimizer() {
    std::vector<at::Tensor> decay, no_decay, dss, mixer;
    const auto infos = model->parameter_info();
    const auto named = model->named_parameters();
    int64_t n_decay = 0, n_no = 0, n_dss = 0, n_mixer = 0;
    for (const auto& info : infos) {
      at::Tensor p = named[info.name];
      if (info.role == nn::ParamRole::DssKernel) {
        dss.push_back(p);
        n_dss += info.numel;
      } else if (info.role == nn::ParamRole::Mixer) {
        mixer.push_back(p);
        n_mixer += info.numel;
      } else if (info.weight_decay) {
        decay.push_back(p);
        n_decay += info.numel;
      } else {
        no_decay.push_back(p);
        n_no += info.numel;
      }
      params.push_back(p);
    }
    auto opts = [&](double lr, double wd) {
      auto o = std::make_unique<torch::optim::AdamWOptions>(lr);
      o->betas({cfg.beta1, cfg.beta2}).eps(cfg.eps).weight_decay(wd);
      return o;
    };
    std::vector<torch::optim::OptimizerParamGroup> g;
    auto add = [&](std::vector<at::Tensor>& ps, const char* name, double lr, double wd) {
      if (ps.empty()) return;
      g.emplace_back(ps, opts(lr, wd));
      group_names.push_back(name);
    };
    add(decay, "decay", cfg.lr, cfg.weight_decay);
    add(no_decay, "no_decay", cfg.lr, 0.0);
    add(dss, "dss", cfg.dss_lr, 0.0);
    add(mixer, "mixer", cfg.mixer_lr, 0.0);
    optimizer = std::make_unique<torch::optim::AdamW>(std::move(g), torch::optim::AdamWOptions(cfg.lr));
    groups = {{"decay", n_decay}, {"no_decay", n_no}, {"dss", n_dss}, {"mixer", n_mixer}};
  }

  // Peak learning rate of a group (before the warmup / cosine factor).
  double base_lr(const std::string& group) const {
    if (group == "dss") return cfg.dss_lr;
    if (group == "mixer") return cfg.mixer_lr;
    return cfg.lr;
  }

  // Seconds since `t` (after the device finished, when timing phases); moves `t` to now.
  double lap(std::chrono::steady_clock::time_point& t) const {
    if (!phase_timing) return 0.0;
    if (device != "cpu") torch::cuda::synchronize();
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
  }

  // Data-parallel: the counted targets of each micro-batch over all ranks. Each rank's loss is
  // its NLL sum over that global count, so the summed gradient (and loss) equals what one
  // process computes on the whole batch, even when ranks count different targets.
  std::vector<double> global_counts(const std::vector<data::Batch>& micro) const {
    std::vector<double> c;
    for (const auto& b : micro)
      c.push_back(static_cast<double>(std::count_if(b.targets.begin(), b.targets.end(),
                                                    [](int32_t t) { return t != data::kIgnore; })));
    group->allreduce_sum(c);
    return c;
  }

  // logits (B, T, V), targets (B, T) -> the micro-batch loss: the token mean for one process,
  // this rank's share of the global mean when data-parallel.
  at::Tensor micro_loss(const at::Tensor& logits, const at::Tensor& targets, const std::vector<double>& counts,
                        size_t i) const {
    auto opts = F::CrossEntropyFuncOptions().ignore_index(data::kIgnore);
    if (!group) return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}), opts);
    return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}), opts.reduction(torch::kSum)) /
           counts[i];
  }

  void set_lr(double scale) {
    auto& gs = optimizer->param_groups();
    for (size_t i = 0; i < gs.size(); ++i) {
      auto& o = static_cast<torch::optim::AdamWOptions&>(gs[i].options());
      o.lr(base_lr(group_names[i]) * scale);
    }
  }
};

std::string Trainer::resolve_device(const std::string& setting) {
  const bool gpu = torch::cuda::is_available();
  if (setting == "cuda" && !gpu) throw core::Error("training.device", "\"cuda\" was asked for but no usable GPU was found");
  if (setting == "cuda" || (setting == "auto" && gpu)) return "cuda";
  return "cpu";
}

Trainer::Trainer(const model::ModelConfig& model_cfg, const project::TrainingConfig& cfg, const std::string& device)
    : impl_(std::make_unique<Impl>()) {
  impl_->model_cfg = model_cfg;
  impl_->cfg = cfg;
  impl_->device = resolve_device(device);
  impl_->precision = nn::resolve_precision(cfg.precision, impl_->device);
  torch::manual_seed(cfg.seed);
  impl_->model = nn::PhaModel(model_cfg);
  if (impl_->device != "cpu") impl_->model->to(at::Device(impl_->device));
  if (impl_->precision.bf16()) impl_->model->set_compute_dtype(at::kBFloat16);  // fp32 master weights stay
  impl_->build_optimizer();
}

Trainer::~Trainer() = default;

const std::string& Trainer::device() const { return impl_->device; }
bool Trainer::bf16_autocast() const { return impl_->precision.bf16(); }
const nn::PrecisionChoice& Trainer::precision() const { return impl_->precision; }
int64_t Trainer::num_parameters() const { return impl_->model->num_parameters(); }
json Trainer::group_summary() const { return impl_->groups; }

std::vector<OptimizerGroup> Trainer::optimizer_groups() const {
  std::vector<OptimizerGroup> out;
  const auto& gs = impl_->optimizer->param_groups();
  for (size_t i = 0; i < gs.size(); ++i) {
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(gs[i].options());
    OptimizerGroup g;
    g.name = impl_->group_names[i];
    for (const auto& p : gs[i].params()) g.numel += p.numel();
    g.lr = o.lr();
    g.weight_decay = o.weight_decay();
    out.push_back(std::move(g));
  }
  return out;
}
double Trainer::learning_rate(double lr_scale) const { return impl_->cfg.lr * lr_scale; }

void Trainer::set_process_group(std::shared_ptr<distributed::ProcessGroup> group) {
  impl_->reducer.reset();
  impl_->group = std::move(group);
  if (impl_->group && impl_->group->world_size() > 1)
    impl_->reducer = std::make_unique<distributed::GradReducer>(impl_->group, impl_->params);
  else
    impl_->group.reset();
}

TrainStepResult Trainer::train_step(const std::vector<data::Batch>& micro, double lr_scale) {
  Impl& m = *impl_;
  TrainStepResult r;
  m.model->train();
  m.optimizer->zero_grad();
  const double n = static_cast<double>(micro.size());
  at::Tensor loss_sum = at::zeros({}, at::kDouble);
  const std::vector<double> counts = m.group ? m.global_counts(micro) : std::vector<double>{};
  auto t = std::chrono::steady_clock::now();
  for (size_t i = 0; i < micro.size(); ++i) {
    const data::Batch& b = micro[i];
    at::Tensor inputs = m.to_device(b.inputs, b.B, b.T);    // (B, T)
    at::Tensor targets = m.to_device(b.targets, b.B, b.T);  // (B, T)
    at::Tensor logits = m.logits(inputs);                   // (B, T, V)
    at::Tensor loss = m.micro_loss(logits, targets, counts, i);
    r.forward_s += m.lap(t);
    if (m.reducer && i + 1 == micro.size()) m.reducer->arm();  // earlier micro-batches only accumulate
    (loss / n).backward();
    r.backward_s += m.lap(t);
    loss_sum += loss.detach().to(at::kCPU, at::kDouble);
    r.tokens += static_cast<int64_t>(b.B) * b.T;
  }
  r.loss = loss_sum.item<double>() / n;
  if (m.reducer) {  // gradients: the sum over ranks of their shares = the whole batch's
    m.reducer->finish();
    r.reduce_exposed_s = m.reducer->last_stats().exposed_s;
    r.reduce_inflight_s = m.reducer->last_stats().inflight_s;
    std::vector<double> l{r.loss};
    m.group->allreduce_sum(l);
    r.loss = l[0];
    r.tokens *= m.group->world_size();  // the global batch (every rank holds batch_size / N rows)
  }
  // Global L2 norm of the gradients (fp32 sums of squares).
  std::vector<at::Tensor> sq;
  for (const auto& p : m.params)
    if (p.grad().defined()) sq.push_back(p.grad().detach().to(at::kFloat).pow(2).sum());
  r.grad_norm = sq.empty() ? 0.0 : std::sqrt(at::stack(sq).sum().item<double>());
  r.finite = std::isfinite(r.loss) && std::isfinite(r.grad_norm);
  if (!r.finite) {
    m.optimizer->zero_grad();
    return r;
  }
  if (m.cfg.grad_clip > 0 && r.grad_norm > m.cfg.grad_clip) {
    const double coef = m.cfg.grad_clip / (r.grad_norm + 1e-6);
    for (auto& p : m.params)
      if (p.grad().defined()) p.grad().mul_(coef);
  }
  m.set_lr(lr_scale);
  nn::fused_adamw_step(*m.optimizer);  // the optimizer's own arithmetic and state, one pass per group
  r.optimizer_s = m.lap(t);
  return r;
}

LossSums Trainer::eval_loss(const data::Batch& b) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  m.model->eval();
  at::Tensor logits = m.logits(m.to_device(b.inputs, b.B, b.T));  // (B, T, V)
  at::Tensor targets = m.to_device(b.targets, b.B, b.T).reshape({-1});
  // cross_entropy is nll_loss of log_softmax: computed once, then summed whole (the figure the
  // metrics report, as before) and per sequence (the spread behind its standard error).
  const at::Tensor logp = at::log_softmax(logits.reshape({-1, logits.size(-1)}).to(at::kFloat), 1);  // (B*T, V)
  at::Tensor nll = at::nll_loss(logp, targets, {}, at::Reduction::Sum, data::kIgnore);
  const at::Tensor per_token = at::nll_loss(logp, targets, {}, at::Reduction::None, data::kIgnore);  // (B*T)
  const at::Tensor row_nll = per_token.reshape({b.B, b.T}).to(at::kDouble).sum(1).to(at::kCPU).contiguous();     // (B)
  const at::Tensor row_count = targets.ne(data::kIgnore).reshape({b.B, b.T}).sum(1).to(at::kCPU, at::kLong).contiguous();
  LossSums s;
  s.nll = nll.to(at::kDouble).item<double>();
  s.count = targets.ne(data::kIgnore).sum().item<int64_t>();
  s.row_nll.assign(row_nll.data_ptr<double>(), row_nll.data_ptr<double>() + b.B);
  s.row_count.assign(row_count.data_ptr<int64_t>(), row_count.data_ptr<int64_t>() + b.B);
  m.model->train();
  return s;
}

std::vector<int32_t> Trainer::predict(const data::Batch& b) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  m.model->eval();
  at::Tensor ids = m.logits(m.to_device(b.inputs, b.B, b.T)).argmax(-1).to(at::kCPU, at::kInt).contiguous();  // (B, T)
  m.model->train();
  return std::vector<int32_t>(ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel());
}

void Trainer::forward_only(const data::Batch& b) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  m.model->eval();
  at::Tensor logits = m.logits(m.to_device(b.inputs, b.B, b.T));
  (void)logits.sum().item<float>();  // synchronise before the clock stops
  m.model->train();
}

model::LensPassResult Trainer::lens_pass(const data::Batch& b, const model::LensPassRequest& request) {
  Impl& m = *impl_;
  return nn::lens_pass(*m.model, m.to_device(b.inputs, b.B, b.T), m.to_device(b.targets, b.B, b.T), request);
}

std::vector<model::FloatMatrix> Trainer::gss_impulse_responses(int64_t T) const {
  return nn::gss_impulse_responses(*impl_->model, T);
}

void Trainer::set_record_stats(bool on) { impl_->model->set_record_stats(on); }
void Trainer::set_phase_timing(bool on) { impl_->phase_timing = on; }
model::ModelIntrospection Trainer::introspect() const { return impl_->model->introspect(); }

namespace {
// Weights trained with one embed_scale or branch_norm mean something else under the other (or
// lack tensors the other has): refuse plainly, naming the field to set.
void check_saved_field(const nn::TrainingCheckpoint& ck, const std::string& field, const std::string& absent,
                       const std::string& here, const std::string& path) {
  if (!ck.config.is_object() || !ck.config.contains("model") || !ck.config["model"].is_object()) return;
  const std::string saved = ck.config["model"].value(field, absent);
  if (saved != here)
    throw core::Error(path, "was trained with model." + field + " \"" + saved + "\" but the model here has \"" + here +
                          "\"; set model." + field + " to \"" + saved + "\" to use it");
}
void check_embed_scale(const nn::TrainingCheckpoint& ck, const model::ModelConfig& mc, const std::string& path) {
  check_saved_field(ck, "embed_scale", "none", mc.embed_scale, path);
  if (model::has_single_branch_sublayer(mc)) check_saved_field(ck, "branch_norm", "mixed", mc.branch_norm, path);
}
}  // namespace

int64_t Trainer::save_checkpoint(const std::string& path, int64_t step, const json& run_config) const {
  Impl& m = *impl_;
  nn::TrainingCheckpoint ck;
  ck.model = nn::module_state(*m.model);
  ck.optimizer = nn::adamw_state(*m.optimizer, *m.model);
  ck.step = step;
  ck.rng_state = nn::default_rng_state();
  ck.config = {{"model", model::to_json(m.model_cfg)}, {"training", m.cfg.used}, {"run", run_config}};
  ck.metadata["device"] = m.device;
  nn::save_checkpoint(path, ck);
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

int64_t Trainer::load_checkpoint(const std::string& path) {
  Impl& m = *impl_;
  nn::TrainingCheckpoint ck = nn::load_checkpoint(path);
  check_embed_scale(ck, m.model_cfg, path);
  nn::load_module_state(*m.model, ck.model, path);
  nn::load_adamw_state(*m.optimizer, *m.model, ck.optimizer, path);
  if (ck.rng_state.defined()) nn::set_default_rng_state(ck.rng_state);
  return ck.step;
}

void Trainer::load_weights(const std::string& path) {
  nn::TrainingCheckpoint ck = nn::load_checkpoint(path);
  check_embed_scale(ck, impl_->model_cfg, path);
  nn::load_module_state(*impl_->model, ck.model, path);
}

std::vector<int32_t> Trainer::generate(const std::vector<int32_t>& prompt, int max_new, const SamplingSettings& s) {
  nn::SamplingOptions o;
  o.temperature = s.temperature;
  o.top_k = s.top_k;
  o.top_p = s.top_p;
  o.seed = s.seed;
  o.vocab_limit = s.vocab_limit;
  std::vector<int64_t> ids(prompt.begin(), prompt.end());
  auto out = nn::generate(*impl_->model, ids, max_new, o);
  return std::vector<int32_t>(out.begin(), out.end());
}

void record_chrome_trace(const std::string& path, const std::function<void()>& fn) {
  torch::autograd::profiler::RecordProfile guard(path);
  fn();
}

json checkpoint_config(const std::string& path) {
  const nn::SafetensorsHeader h = nn::read_safetensors_header(path);
  auto it = h.metadata.find("pha.config");
  if (it == h.metadata.end()) throw core::Error(path, "is not a PHA checkpoint (no pha.config metadata)");
  json cfg;
  try {
    cfg = json::parse(it->second);
  } catch (const json::exception& e) {
    throw core::Error(path, std::string("pha.config metadata is not valid JSON: ") + e.what());
  }
  if (cfg.is_object() && cfg.contains("model")) model::apply_saved_model_defaults(cfg["model"]);
  return cfg;
}

void export_checkpoint_weights(const std::string& checkpoint, const std::string& out) {
  nn::TrainingCheckpoint ck = nn::load_checkpoint(checkpoint);
  nn::Metadata meta;
  meta["pha.config"] = ck.config.contains("model") ? ck.config["model"].dump() : "{}";
  meta["pha.step"] = std::to_string(ck.step);
  nn::save_safetensors(out, ck.model, meta);
}

}  // namespace pha::runtime
