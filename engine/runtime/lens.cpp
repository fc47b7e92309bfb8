// The hybrid lens on one run's checkpoint (lens.h; docs/lens.md): windows and token classes,
// per-token losses, effective weights, knock-outs, the GSS kernel spectrum, attention maps.
#include "runtime/lens.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/batch.h"
#include "model/model_config.h"
#include "project/project.h"
#include "runtime/job_data.h"
#include "runtime/internal/lens_internal.h"
#include "runtime/run_eval.h"
#include "runtime/trainer.h"
#include "store/store.h"
#include "core/numbers.h"

namespace pha::runtime {

using nlohmann::json;

namespace {

constexpr const char* kBranch[3] = {"gss", "attn", "ffn"};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

model::FloatMatrix nan_matrix(int rows, int cols) {
  model::FloatMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.values.assign(static_cast<size_t>(rows) * static_cast<size_t>(cols), core::kNaNf);
  return m;
}

float& cell(model::FloatMatrix& m, int r, int c) { return m.values[static_cast<size_t>(r) * m.cols + c]; }

}  // namespace

int64_t LensWindows::counted() const {
  int64_t n = 0;
  for (size_t i = 0; i < targets.size(); ++i) n += targets[i] != data::kIgnore && scored[i];
  return n;
}

struct Lens::Impl {
  std::string store_path;
  LensRunInfo info;
  project::DataSpec data;
  project::TrainingConfig training;
  model::ModelConfig model;
  std::unique_ptr<JobData> job_data;  // loaded on first use
  std::unique_ptr<Trainer> trainer;

  const JobData& job() {
    if (!job_data) job_data = std::make_unique<JobData>(data, training);
    return *job_data;
  }

  // The windows, B at a time, through one lens pass each; the per-batch results in order.
  template <typename Fn>
  void for_batches(const LensWindows& w, const model::LensPassRequest& req, Fn&& fn) {
    const int B = std::max(1, training.batch_size);
    for (int first = 0; first < w.B; first += B) {
      const int rows = std::min(B, w.B - first);
      data::Batch b;
      b.B = rows;
      b.T = w.T;
      const size_t off = static_cast<size_t>(first) * static_cast<size_t>(w.T);
      const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(w.T);
      b.inputs.assign(w.inputs.begin() + static_cast<std::ptrdiff_t>(off), w.inputs.begin() + static_cast<std::ptrdiff_t>(off + n));
      b.targets.assign(w.targets.begin() + static_cast<std::ptrdiff_t>(off), w.targets.begin() + static_cast<std::ptrdiff_t>(off + n));
      fn(trainer->lens_pass(b, req), off);
    }
  }

  std::vector<float> nll(const LensWindows& w, const model::LensPassRequest& req) {
    std::vector<float> out(w.inputs.size(), core::kNaNf);
    for_batches(w, req, [&](const model::LensPassResult& r, size_t off) {
      std::copy(r.nll.begin(), r.nll.end(), out.begin() + static_cast<std::ptrdiff_t>(off));
    });
    return out;
  }
};

Lens::Lens(const std::string& store_path, int64_t run_id, const LensOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.store_path = store_path;
  auto s = store::Store::open(store_path);
  const auto run = s.get_run(run_id);
  if (!run) throw core::Error(store_path, "no run with id " + std::to_string(run_id) + " (see `pha runs list`)");
  const json cfg = json::parse(run->config_json, nullptr, false);
  if (!cfg.is_object() || !cfg.contains("data") || !cfg.contains("training"))
    throw core::Error(store_path, "run " + std::to_string(run_id) + " (\"" + run->name +
                                "\") is not a training run: the lens reads a trained model's checkpoint");
  const auto [ckpt, step] = pick_run_checkpoint(s, run_id, o.checkpoint, o.step);
  try {
    m.training = project::TrainingConfig::from_json(cfg["training"], "training");
    m.data = project::DataSpec::from_json(cfg["data"], "data");
  } catch (const core::Error& e) {
    throw core::Error(e.where(), core::message_of(e) + " (the data / training recorded for run " + std::to_string(run_id) + " in " +
                               store_path + ")");
  }
  const json ck_cfg = checkpoint_config(ckpt);
  if (!ck_cfg.contains("model")) throw core::Error(ckpt, "checkpoint records no model config");
  m.model = model::model_config_from_json(ck_cfg.at("model"), ckpt + ": model");
  // fp32 whatever the run trained in: the lens's numbers do not depend on how "auto" resolved
  // on this host (docs/lens.md); a bf16 run's master weights are fp32.
  m.training.precision = "fp32";
  m.trainer = std::make_unique<Trainer>(m.model, m.training, o.device);
  if (!o.at_init) m.trainer->load_weights(ckpt);
  m.trainer->set_record_stats(false);

  LensRunInfo& info = m.info;
  info.run_id = run_id;
  info.run_name = run->name;
  info.checkpoint = o.at_init ? "" : ckpt;
  info.step = o.at_init ? 0 : step;
  info.is_task = m.data.is_task;
  info.layers = static_cast<int>(m.model.layers.size());
  for (const model::LayerSpec& spec : m.model.layers) {
    std::array<bool, 3> has{false, false, false};
    bool mixed = false;
    for (const model::SubLayer& sub : spec.sublayers) {
      for (model::Branch b : sub.branches) has[static_cast<size_t>(b)] = true;
      mixed = mixed || sub.branches.size() > 1;
    }
    info.has_branch.push_back(has);
    info.mixed.push_back(mixed);
    info.heads.push_back(has[1] ? m.model.attention.heads : 0);
    info.gss_channels.push_back(has[0] ? m.model.gss.reduced : 0);
  }
  info.seq_len = m.data.is_task ? 0 : m.training.seq_len;
  const json tok = m.data.text.is_object() ? m.data.text.value("tokenizer", json::object()) : json::object();
  info.tokenizer = m.data.is_task ? "task" : tok.is_object() ? tok.value("kind", std::string("byte")) : "byte";
}

Lens::~Lens() = default;

const LensRunInfo& Lens::info() const { return impl_->info; }

LensWindows Lens::windows(const LensSource& src) const {
  Impl& m = *impl_;
  if (src.tokens < 0) throw core::Error("--tokens", "must be >= 0 (0: the whole split or text)");
  if (src.offset < 0) throw core::Error("--offset", "must be >= 0");
  if (m.data.is_task) {
    if (!src.text.empty())
      throw core::Error("--text", "run " + std::to_string(m.info.run_id) +
                                " was trained on a task; the lens reads its held-out examples (give --set, --examples)");
    return detail::task_windows(m.job(), src, m.info.run_id);
  }
  return detail::text_windows(m.job(), src, m.training.seq_len);
}

TokenLosses Lens::token_losses(const LensWindows& w) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  TokenLosses out;
  out.windows = w;
  out.nll.assign(w.inputs.size(), core::kNaNf);
  out.contribution.resize(static_cast<size_t>(m.info.layers));
  model::LensPassRequest req;
  req.probe = true;
  m.for_batches(w, req, [&](const model::LensPassResult& r, size_t off) {
    std::copy(r.nll.begin(), r.nll.end(), out.nll.begin() + static_cast<std::ptrdiff_t>(off));
    for (size_t l = 0; l < r.contribution.size(); ++l) {
      for (int b = 0; b < 3; ++b) {
        const auto& c = r.contribution[l][static_cast<size_t>(b)];
        if (c.empty()) continue;
        auto& dst = out.contribution[l][static_cast<size_t>(b)];
        if (dst.empty()) dst.assign(w.inputs.size(), core::kNaNf);
        std::copy(c.begin(), c.end(), dst.begin() + static_cast<std::ptrdiff_t>(off));
      }
    }
  });
  double sum = 0;
  for (size_t i = 0; i < out.nll.size(); ++i)
    if (!std::isnan(out.nll[i]) && w.scored[i]) sum += out.nll[i], ++out.counted;
  out.mean_nll = out.counted > 0 ? sum / static_cast<double>(out.counted) : core::kNaNf;
  out.seconds = seconds_since(t0);
  return out;
}

EffectiveWeights Lens::effective_weights(const LensWindows& w) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  const int L = m.info.layers;
  EffectiveWeights out;
  out.layers = L;
  out.source = w.source;
  std::vector<std::array<double, 3>> ms(static_cast<size_t>(L), {0, 0, 0});
  int64_t n = 0;
  model::LensPassRequest req;
  req.probe = true;
  m.for_batches(w, req, [&](const model::LensPassResult& r, size_t off) {
    for (size_t i = 0; i < r.nll.size(); ++i) {
      if (w.targets[off + i] == data::kIgnore) continue;  // the positions the lens counts
      ++n;
      for (int l = 0; l < L; ++l)
        for (int b = 0; b < 3; ++b) {
          const auto& v = r.normed_ms[static_cast<size_t>(l)][static_cast<size_t>(b)];
          if (!v.empty()) ms[static_cast<size_t>(l)][static_cast<size_t>(b)] += v[i];
        }
    }
  });
  out.tokens = n;
  const model::ModelIntrospection intro = m.trainer->introspect();
  out.raw = nan_matrix(L, 3);
  out.gain_rms = nan_matrix(L, 3);
  out.effective = nan_matrix(L, 3);
  out.share = nan_matrix(L, 3);
  for (int l = 0; l < L; ++l) {
    double total = 0;
    for (int b = 0; b < 3; ++b) {
      if (!m.info.has_branch[static_cast<size_t>(l)][static_cast<size_t>(b)] || n == 0) continue;
      const double r = std::sqrt(ms[static_cast<size_t>(l)][static_cast<size_t>(b)] / static_cast<double>(n));
      cell(out.gain_rms, l, b) = static_cast<float>(r);
      if (!m.info.mixed[static_cast<size_t>(l)]) continue;
      const float raw = intro.mixer_weights.at(l, b);
      cell(out.raw, l, b) = raw;
      cell(out.effective, l, b) = static_cast<float>(raw * r);
      total += raw * r;
    }
    for (int b = 0; b < 3; ++b)
      if (!std::isnan(out.effective.at(l, b)) && total > 0)
        cell(out.share, l, b) = static_cast<float>(out.effective.at(l, b) / total);
  }
  out.seconds = seconds_since(t0);
  return out;
}

KnockoutResult Lens::knockouts(const LensWindows& w) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  const int L = m.info.layers;
  const size_t C = w.class_names.size();
  KnockoutResult out;
  out.layers = L;
  out.source = w.source;
  out.class_names = w.class_names;
  out.class_tokens.assign(C, 0);
  for (size_t i = 0; i < w.targets.size(); ++i)
    if (w.targets[i] != data::kIgnore && w.cls[i] >= 0) ++out.class_tokens[static_cast<size_t>(w.cls[i])];
  // mean NLL over every counted position and per class
  auto means = [&](const std::vector<float>& nll) {
    std::vector<double> sum(C + 1, 0.0);
    std::vector<int64_t> cnt(C + 1, 0);
    for (size_t i = 0; i < nll.size(); ++i) {
      if (std::isnan(nll[i])) continue;
      if (w.scored[i]) sum[C] += nll[i], ++cnt[C];
      if (w.cls[i] >= 0) sum[static_cast<size_t>(w.cls[i])] += nll[i], ++cnt[static_cast<size_t>(w.cls[i])];
    }
    std::vector<double> mean(C + 1);
    for (size_t c = 0; c <= C; ++c) mean[c] = cnt[c] > 0 ? sum[c] / static_cast<double>(cnt[c]) : core::kNaNf;
    return mean;
  };
  const std::vector<double> base = means(m.nll(w, {}));
  out.passes = 1;
  out.base_loss = base[C];
  out.base_by_class.assign(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(C));
  out.tokens = w.counted();
  out.delta = nan_matrix(L + 1, 3);
  out.delta_by_class.assign(C, nan_matrix(L + 1, 3));
  for (int l = -1; l < L; ++l) {
    for (int b = 0; b < 3; ++b) {
      bool present = false;
      for (int k = 0; k < L; ++k)
        if ((l == -1 || k == l) && m.info.has_branch[static_cast<size_t>(k)][static_cast<size_t>(b)]) present = true;
      if (!present) continue;
      model::LensPassRequest req;
      req.knockouts = {{l, b}};
      const std::vector<double> ko = means(m.nll(w, req));
      ++out.passes;
      const int row = l == -1 ? L : l;
      cell(out.delta, row, b) = static_cast<float>(ko[C] - base[C]);
      for (size_t c = 0; c < C; ++c) cell(out.delta_by_class[c], row, b) = static_cast<float>(ko[c] - base[c]);
    }
  }
  out.seconds = seconds_since(t0);
  return out;
}

KernelSpectrum Lens::spectrum(int64_t horizon) {
  Impl& m = *impl_;
  KernelSpectrum out;
  out.train_len = m.data.is_task ? detail::task_seq_len(m.job()) : m.training.seq_len;
  out.horizon = horizon > 0 ? horizon : 4 * static_cast<int64_t>(std::max(out.train_len, 1));
  if (out.horizon > (int64_t{1} << 20)) throw core::Error("--horizon", "must be at most 1,048,576 lags");
  out.state = m.info.checkpoint.empty() ? "init" : "step " + std::to_string(m.info.step);
  const auto responses = m.trainer->gss_impulse_responses(out.horizon);
  for (size_t l = 0; l < responses.size(); ++l) {
    const model::FloatMatrix& k = responses[l];
    if (k.rows == 0) continue;
    KernelSpectrum::Layer layer;
    layer.layer = static_cast<int>(l);
    layer.channels = k.rows;
    layer.lags = k.cols;
    layer.abs_k.resize(k.values.size());
    for (size_t i = 0; i < k.values.size(); ++i) layer.abs_k[i] = std::fabs(k.values[i]);
    for (int h = 0; h < k.rows; ++h)
      layer.half_life.push_back(detail::half_life(layer.abs_k.data() + static_cast<size_t>(h) * k.cols, k.cols));
    out.layers.push_back(std::move(layer));
  }
  if (out.layers.empty())
    out.none_reason = "run " + std::to_string(m.info.run_id) + "'s model has no GSS branch, so it has no kernel spectrum";
  return out;
}

AttentionMap Lens::attention(const LensWindows& w, int window, int layer, int head) {
  Impl& m = *impl_;
  bool any = false;
  for (int h : m.info.heads) any = any || h > 0;
  if (!any)
    throw core::Error("--layer", "run " + std::to_string(m.info.run_id) + " (\"" + m.info.run_name +
                               "\") has no attention branch in any layer, so it has no attention map");
  if (window < 0 || window >= w.B)
    throw core::Error("--window", "window " + std::to_string(window) + " does not exist (the source has " +
                                std::to_string(w.B) + " windows, 0-" + std::to_string(w.B - 1) + ")");
  data::Batch b;
  b.B = 1;
  b.T = w.T;
  const auto first = w.inputs.begin() + static_cast<std::ptrdiff_t>(window) * w.T;
  b.inputs.assign(first, first + w.T);
  const auto tfirst = w.targets.begin() + static_cast<std::ptrdiff_t>(window) * w.T;
  b.targets.assign(tfirst, tfirst + w.T);
  model::LensPassRequest req;
  req.attention_layer = layer;
  req.attention_head = head;
  const model::LensPassResult r = m.trainer->lens_pass(b, req);
  AttentionMap out;
  out.layer = layer;
  out.head = head;
  out.heads = m.info.heads[static_cast<size_t>(layer)];
  out.T = w.T;
  out.weights = r.attention;
  const auto tt = w.input_text.begin() + static_cast<std::ptrdiff_t>(window) * w.T;
  out.tokens.assign(tt, tt + w.T);
  return out;
}

std::vector<store::LensRow> Lens::rows(const EffectiveWeights& w) const {
  std::vector<store::LensRow> out;
  const int64_t at = now_ms();
  for (int l = 0; l < w.layers; ++l)
    for (int b = 0; b < 3; ++b) {
      if (std::isnan(w.raw.at(l, b))) continue;
      for (const auto& [kind, m] : {std::pair<const char*, const model::FloatMatrix*>{"raw_weight", &w.raw},
                                    {"effective_weight", &w.effective}, {"effective_share", &w.share}})
        out.push_back({kind, l, kBranch[b], "", impl_->info.step, m->at(l, b), w.tokens, w.source, at});
    }
  return out;
}

std::vector<store::LensRow> Lens::rows(const KnockoutResult& k) const {
  std::vector<store::LensRow> out;
  const int64_t at = now_ms();
  const int64_t step = impl_->info.step;
  out.push_back({"base_loss", -1, "", "", step, k.base_loss, k.tokens, k.source, at});
  for (size_t c = 0; c < k.class_names.size(); ++c)
    if (k.class_tokens[c] > 0)
      out.push_back({"base_loss", -1, "", k.class_names[c], step, k.base_by_class[c], k.class_tokens[c], k.source, at});
  for (int row = 0; row <= k.layers; ++row)
    for (int b = 0; b < 3; ++b) {
      if (std::isnan(k.delta.at(row, b))) continue;
      const int layer = row == k.layers ? -1 : row;
      out.push_back({"knockout", layer, kBranch[b], "", step, k.delta.at(row, b), k.tokens, k.source, at});
      for (size_t c = 0; c < k.class_names.size(); ++c)
        if (k.class_tokens[c] > 0 && !std::isnan(k.delta_by_class[c].at(row, b)))
          out.push_back({"knockout", layer, kBranch[b], k.class_names[c], step, k.delta_by_class[c].at(row, b),
                         k.class_tokens[c], k.source, at});
    }
  return out;
}

}  // namespace pha::runtime
