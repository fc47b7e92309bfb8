// `pha model` (layers, branches, parameters, FLOPs per token and a memory estimate of a preset
// or config file; --list for the presets) and `pha bench model` (training-step tokens/s of
// runtime::bench_steps, the engine's step benchmark through Trainer, in fp32 | bf16 | auto on
// cpu | cuda, with model FLOP utilisation against both the fp32 and the bf16 GEMM rate
// measured on that device in the same process).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/error.h"
#include "device/system_info.h"
#include "model/flops.h"
#include "nn/precision.h"
#include "model/presets.h"
#include "runtime/trainer.h"
#include "runtime/step_bench.h"

namespace pha::cli {

namespace {

using nlohmann::json;
using namespace pha::model;

std::string grouped(int64_t v) {  // 1234567 -> "1,234,567"
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return (v < 0 ? "-" : "") + s;
}

std::string mib(int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

std::string sublayers_text(const LayerSpec& layer) {
  std::string out;
  for (const auto& s : layer.sublayers) {
    std::string set;
    for (Branch b : s.branches) set += (set.empty() ? "" : "+") + std::string(branch_name(b));
    out += (out.empty() ? "" : " ") + ("{" + set + "}");
  }
  return out;
}

// ---- pha model ----------------------------------------------------------------------------

struct ModelOptions {
  std::string preset, config;
  int seq_len = 0;  // 0: the config's context
  int batch = kReferenceBatch;  // the reference figure's batch (model/flops.h)
  bool json = false, list = false;
};

ModelConfig resolve_config(const std::string& preset_name, const std::string& config_file) {
  if (!preset_name.empty() && !config_file.empty()) throw core::Error("--preset/--config", "give one, not both");
  if (!config_file.empty()) return load_model_config(config_file);
  return preset(preset_name.empty() ? "pha-tiny" : preset_name);
}

json report_json(const ModelConfig& c, int t, int b) {
  const ParamCount pc = count_parameters(c);
  const FlopsEstimate fe = estimate_flops(c, t, b);
  const MemoryEstimate train = estimate_memory(c, b, t, true), infer = estimate_memory(c, b, t, false);
  auto flops = [](const Flops& f) {
    return json{{"gss_matmul", f.gss_matmul},   {"gss_conv", f.gss_conv},       {"gss_kernel", f.gss_kernel},
                {"attn_matmul", f.attn_matmul}, {"attn_scores", f.attn_scores}, {"ffn", f.ffn},
                {"head", f.head},               {"total", f.total()}};
  };
  auto memory = [](const MemoryEstimate& m) {
    return json{{"weights", m.weights},         {"gradients", m.gradients}, {"optimizer", m.optimizer},
                {"activations", m.activations}, {"logits", m.logits},       {"total", m.total()}};
  };
  json layers = json::array();
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const auto& lp = pc.layers[i];
    layers.push_back({{"kind", block_kind_name(c.layers[i].kind)},
                      {"sublayers", sublayers_text(c.layers[i])},
                      {"params", {{"gss", lp.branches.gss}, {"attn", lp.branches.attention}, {"ffn", lp.branches.ffn},
                                  {"norms", lp.norms}, {"mixer", lp.mixer}, {"total", lp.total}}},
                      {"forward_flops_per_token", fe.layer_forward[i]}});
  }
  return {{"config", to_json(c)},
          {"layers", layers},
          {"params",
           {{"embedding", pc.embedding}, {"head", pc.head}, {"final_norm", pc.final_norm},
            {"gss", pc.branches.gss}, {"attn", pc.branches.attention}, {"ffn", pc.branches.ffn},
            {"norms", pc.norms}, {"mixer", pc.mixer}, {"non_embedding", pc.non_embedding}, {"total", pc.total}}},
          {"seq_len", t},
          {"batch", b},
          {"flops_per_token", {{"forward", flops(fe.forward)}, {"training", flops(fe.training)}}},
          {"memory_bytes", {{"training", memory(train)}, {"inference", memory(infer)}}}};
}

void print_report(const ModelConfig& c, int t, int b) {
  const ParamCount pc = count_parameters(c);
  const FlopsEstimate fe = estimate_flops(c, t, b);
  std::printf("%s\n", fmt::format("model {} (variant {}): V {}, d {}, {} layers, context {}, mixer {}, {} embeddings",
                                  c.name, c.variant, c.vocab_size, c.d_model, c.n_layers, c.context,
                                  c.mixer == MixerMode::Learned ? "learned" : "uniform",
                                  c.tie_embeddings ? "tied" : "untied")
                          .c_str());
  std::printf("%s\n", fmt::format("  attention: {} q heads, {} kv heads, head_dim {}; GSS: F {}, H {}, N {}; "
                                  "FFN: d_ff {}, d_aux {}",
                                  c.attention.heads, c.attention.kv_heads, c.head_dim(), c.gss_expanded(),
                                  c.gss.reduced, c.gss.state, c.d_ff(), c.d_aux())
                          .c_str());
  std::printf("\n%-5s %-10s %-20s %12s %12s %12s %8s %6s %12s %12s\n", "layer", "kind", "sublayers", "gss", "attn",
              "ffn", "norms", "mixer", "params", "MFLOP/tok");
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const auto& lp = pc.layers[i];
    std::printf("%-5zu %-10s %-20s %12s %12s %12s %8s %6s %12s %12.3f\n", i, block_kind_name(c.layers[i].kind),
                sublayers_text(c.layers[i]).c_str(), grouped(lp.branches.gss).c_str(),
                grouped(lp.branches.attention).c_str(), grouped(lp.branches.ffn).c_str(), grouped(lp.norms).c_str(),
                grouped(lp.mixer).c_str(), grouped(lp.total).c_str(), fe.layer_forward[i] / 1e6);
  }
  std::printf("%-38s %12s %12s %12s %8s %6s %12s\n", "all layers", grouped(pc.branches.gss).c_str(),
              grouped(pc.branches.attention).c_str(), grouped(pc.branches.ffn).c_str(), grouped(pc.norms).c_str(),
              grouped(pc.mixer).c_str(), grouped(pc.non_embedding - pc.final_norm).c_str());
  std::printf("\nparameters: %s total = embedding %s + head %s + final norm %s + layers %s (non-embedding %s)\n",
              grouped(pc.total).c_str(), grouped(pc.embedding).c_str(),
              c.tie_embeddings ? "(tied) 0" : grouped(pc.head).c_str(), grouped(pc.final_norm).c_str(),
              grouped(pc.non_embedding - pc.final_norm).c_str(), grouped(pc.non_embedding).c_str());
  const Flops& f = fe.forward;
  std::printf("\nFLOPs per token at T = %d, B = %d (MFLOP): forward %.3f, training step %.3f\n", t, b, f.total() / 1e6,
              fe.training.total() / 1e6);
  std::printf("  forward: gss %.3f (matmul %.3f, FFT conv %.3f, kernel %.3f), attention %.3f (matmul %.3f, "
              "scores %.3f), ffn %.3f, head %.3f\n",
              f.gss() / 1e6, f.gss_matmul / 1e6, f.gss_conv / 1e6, f.gss_kernel / 1e6, f.attention() / 1e6,
              f.attn_matmul / 1e6, f.attn_scores / 1e6, f.ffn / 1e6, f.head / 1e6);
  for (bool training : {true, false}) {
    const MemoryEstimate m = estimate_memory(c, b, t, training);
    std::printf("memory estimate, %s, B = %d, T = %d (fp32): %s = weights %s + grads %s + AdamW %s + activations "
                "%s + logits %s\n",
                training ? "training " : "inference", b, t, mib(m.total()).c_str(), mib(m.weights).c_str(),
                mib(m.gradients).c_str(), mib(m.optimizer).c_str(), mib(m.activations).c_str(),
                mib(m.logits).c_str());
  }
}

// The preset table: parameters, the budget each preset was built to (a companion names the PHA
// preset it matches and the dimensions scaled to match it: presets.h PresetBudget), purpose.
void list_presets(bool as_json) {
  if (as_json) {
    json list = json::array();
    for (const auto& n : preset_names()) {
      const PresetBudget b = preset_budget(n);
      list.push_back({{"name", n},
                      {"params", count_parameters(preset(n)).total},
                      {"budget", {{"reference", b.reference}, {"nominal", b.nominal}, {"scaled", b.scaled},
                                  {"text", preset_budget_text(n)}}},
                      {"description", preset_description(n)}});
    }
    std::printf("%s\n", list.dump(2).c_str());
    return;
  }
  std::printf("%-18s %12s  %-44s %s\n", "preset", "parameters", "budget (matched to: how)", "description");
  for (const auto& n : preset_names()) {
    std::printf("%-18s %12s  %-44s %s\n", n.c_str(), grouped(count_parameters(preset(n)).total).c_str(),
                preset_budget_text(n).c_str(), preset_description(n).c_str());
  }
  std::printf("\nCompanions match their reference within 3%%: depth first, then d_ff (GSS F without an FFN); "
              "docs/model-config.md, Presets\n");
}

void run_model(const ModelOptions& o) {
  if (o.list) {
    list_presets(o.json);
    return;
  }
  const ModelConfig c = resolve_config(o.preset, o.config);
  const int t = o.seq_len > 0 ? o.seq_len : c.context;
  if (o.json) {
    std::printf("%s\n", report_json(c, t, o.batch).dump(2).c_str());
  } else {
    print_report(c, t, o.batch);
  }
}

// ---- pha bench model ----------------------------------------------------------------------

struct BenchOptions {
  std::vector<std::string> presets = {"pha-tiny", "pha-d512"};
  std::string config;
  std::vector<int> seq_lens = {512, 2048};
  int tokens = 4096;  // B * T per step
  int steps = 10;
  int warmup = 2;
  int gemm_size = 2048;
  std::string precision = "auto";  // TrainingConfig.precision: auto | fp32 | bf16, as training takes it
  std::string device = "cpu";      // cpu | cuda | auto (Trainer::resolve_device)
  bool json = false;
  std::string trace;  // chrome-trace file of one extra profiled step (last row)
};

// The peak the row's MFU divides by: the n x n GEMM rate of both dtypes on the row's device,
// measured just before the row (shared machines drift), so one table shows the MFU against the
// fp32 rate and against the bf16 rate whatever precision trains.
struct GemmRates {
  double fp32 = 0, bf16 = 0;  // GFLOP/s
};

GemmRates measure_rates(int n, const std::string& device) {
  return {nn::measure_gemm_gflops_as("fp32", n, 5, device), nn::measure_gemm_gflops_as("bf16", n, 5, device)};
}

struct BenchResult {
  std::string name;
  int t = 0, b = 0;
  runtime::StepBenchResult step;
  double train_flops_per_token = 0;
  GemmRates gemm;
  double mfu_fp32 = 0, mfu_bf16 = 0;  // model FLOP/s over gemm.fp32 / gemm.bf16
  std::string precision() const { return step.bf16_autocast ? "bf16" : "fp32"; }
};

BenchResult bench_one(const ModelConfig& c, int t, const BenchOptions& o, const std::string& device,
                      const GemmRates& gemm) {
  BenchResult r;
  r.name = c.name;
  r.t = t;
  r.b = std::max(1, o.tokens / t);
  runtime::StepBenchSpec spec;
  spec.model = c;
  spec.seq_len = t;
  spec.batch = r.b;
  spec.warmup = o.warmup;
  spec.repeats = o.steps;
  spec.device = device;
  spec.precision = o.precision;
  spec.phase_times = true;
  spec.trace = o.trace;
  r.step = runtime::bench_steps(spec);
  r.train_flops_per_token = estimate_flops(c, t, r.b).training.total();
  r.gemm = gemm;
  const double model_flops = r.train_flops_per_token * r.step.tokens_per_s;
  r.mfu_fp32 = model_flops / (gemm.fp32 * 1e9);
  r.mfu_bf16 = model_flops / (gemm.bf16 * 1e9);
  return r;
}

// --device resolved the way training resolves training.device, with the error naming the flag.
std::string resolve_bench_device(const std::string& setting) {
  try {
    return runtime::Trainer::resolve_device(setting);
  } catch (const core::Error&) {
    throw core::Error("--device", "\"cuda\" was asked for but no usable CUDA GPU was found (this build's LibTorch "
                            "or this machine has none; `pha info` shows the CUDA line); use --device cpu");
  }
}

json row_json(const BenchResult& r) {
  const runtime::StepBenchResult& st = r.step;
  return {{"model", r.name},
          {"seq_len", r.t},
          {"batch", r.b},
          {"params", st.n_params},
          {"device", st.device},
          {"precision", r.precision()},
          {"step_s", st.median_step_s},
          {"forward_s", st.forward_s},
          {"backward_s", st.backward_s},
          {"optimizer_s", st.optimizer_s},
          {"tokens_per_s", st.tokens_per_s},
          {"train_flops_per_token", r.train_flops_per_token},
          {"gemm_gflops_fp32", r.gemm.fp32},
          {"gemm_gflops_bf16", r.gemm.bf16},
          {"mfu_fp32", r.mfu_fp32},
          {"mfu_bf16", r.mfu_bf16},
          {"peak_rss_bytes", st.peak_bytes}};
}

void print_bench_header(const BenchOptions& o, int threads, const std::string& device, const nn::PrecisionChoice& p) {
  std::printf("threads %d, BLAS %s, device %s, precision %s\n", threads, device::blas_library().c_str(), device.c_str(),
              p.text().c_str());
  std::printf("MFU = training FLOPs/token x tokens/s / the %dx%d GEMM rate on %s measured just before the row, "
              "in fp32 (MFU32) and in bf16 (MFU16)\n",
              o.gemm_size, o.gemm_size, device.c_str());
  std::printf("training step = runtime::Trainer's (forward + cross-entropy, backward, gradient norm + clipping + "
              "AdamW); median of %d steps after %d warm-up\n\n",
              o.steps, o.warmup);
  std::printf("%-12s %6s %4s %4s %10s %9s %9s %9s %9s %11s %10s %8s %8s %7s %7s %10s\n", "model", "T", "B", "prec",
              "params", "step ms", "fwd ms", "bwd ms", "optim ms", "tokens/s", "GFLOP/tok", "fp32 GF", "bf16 GF",
              "MFU32", "MFU16", "peak RSS");
  std::fflush(stdout);
}

void print_bench_row(const BenchResult& r) {
  const runtime::StepBenchResult& st = r.step;
  std::printf("%-12s %6d %4d %4s %10s %9.1f %9.1f %9.1f %9.1f %11.0f %10.4f %8.1f %8.1f %6.1f%% %6.1f%% %10s\n",
              r.name.c_str(), r.t, r.b, r.precision().c_str(), grouped(st.n_params).c_str(), st.median_step_s * 1e3,
              st.forward_s * 1e3, st.backward_s * 1e3, st.optimizer_s * 1e3, st.tokens_per_s,
              r.train_flops_per_token / 1e9, r.gemm.fp32, r.gemm.bf16, 100 * r.mfu_fp32, 100 * r.mfu_bf16,
              mib(st.peak_bytes).c_str());
  std::fflush(stdout);
}

void run_bench(const BenchOptions& o, const GlobalOptions& global) {
  if (o.steps < 1) throw core::Error("--steps", "must be >= 1");
  std::vector<ModelConfig> configs;
  if (!o.config.empty()) {
    configs.push_back(load_model_config(o.config));
  } else {
    for (const auto& p : o.presets) configs.push_back(preset(p));
  }
  const std::string device = resolve_bench_device(o.device);
  const nn::PrecisionChoice precision = nn::resolve_precision(o.precision, device);
  const int threads = device::configure_threads(global.threads);
  if (!o.json) print_bench_header(o, threads, device, precision);
  json results = json::array();
  for (const auto& c : configs) {
    for (int t : o.seq_lens) {
      const BenchResult r = bench_one(c, t, o, device, measure_rates(o.gemm_size, device));
      if (o.json) {
        results.push_back(row_json(r));
      } else {
        print_bench_row(r);
      }
    }
  }
  if (o.json) {
    std::printf("%s\n", json{{"threads", threads}, {"blas", device::blas_library()}, {"gemm_size", o.gemm_size},
                             {"steps", o.steps}, {"warmup", o.warmup}, {"device", device},
                             {"precision_setting", o.precision}, {"precision", precision.precision},
                             {"precision_reason", precision.reason}, {"results", results}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("\npeak RSS is the process's high-water mark (VmHWM) so far: it only grows across rows. FLOPs per token: "
                "docs/performance.md\n");
  }
}

}  // namespace

void add_model_commands(CLI::App& app, GlobalOptions& global) {
  auto mo = std::make_shared<ModelOptions>();
  auto* model = app.add_subcommand("model", "Show a model's layers, parameters, FLOPs per token and memory estimate");
  model->add_option("--preset", mo->preset, "Preset name (pha model --list); default pha-tiny");
  model->add_option("--config", mo->config, "Model config JSON file (docs/model-config.md) or a project file");
  model->add_option("--seq-len,-T", mo->seq_len, "Sequence length T for FLOPs and memory (default: context)")
      ->check(CLI::PositiveNumber);
  model->add_option("--batch,-B", mo->batch, "Batch size B for the memory estimate")->check(CLI::PositiveNumber);
  model->add_flag("--json", mo->json, "Print JSON instead of tables");
  model->add_flag("--list", mo->list, "List the presets with their parameter counts");
  model->callback([mo] { run_model(*mo); });

  auto bo = std::make_shared<BenchOptions>();
  // Other areas may add their own `bench` subcommands: share one `bench`.
  CLI::App* bench = nullptr;
  for (CLI::App* s : app.get_subcommands([](CLI::App* a) { return a->get_name() == "bench"; })) bench = s;
  if (!bench) {
    bench = app.add_subcommand("bench", "Benchmarks");
    bench->require_subcommand(1);
  }
  auto* bm = bench->add_subcommand("model", "Training-step tokens/s and model FLOP utilisation (MFU)");
  bm->add_option("--preset", bo->presets, "Presets to run (repeatable; default pha-tiny pha-d512)");
  bm->add_option("--config", bo->config, "Model config JSON file instead of presets");
  bm->add_option("--seq-len,-T", bo->seq_lens, "Sequence lengths (repeatable; default 512 2048)")
      ->check(CLI::PositiveNumber);
  bm->add_option("--tokens", bo->tokens, "Tokens per step B*T (B = max(1, tokens / T)); default 4096")
      ->check(CLI::PositiveNumber);
  bm->add_option("--steps", bo->steps, "Timed steps (median reported); default 10")->check(CLI::PositiveNumber);
  bm->add_option("--warmup", bo->warmup, "Untimed warm-up steps; default 2")->check(CLI::NonNegativeNumber);
  bm->add_option("--gemm-size", bo->gemm_size, "Size n of the n x n GEMM that measures the peak; default 2048")
      ->check(CLI::PositiveNumber);
  bm->add_option("--precision", bo->precision,
                 "Training precision as training.precision takes it: fp32, bf16 (mixed, fp32 master weights) or "
                 "auto (bf16 where the hardware has native bf16); default auto")
      ->check(CLI::IsMember({"auto", "fp32", "bf16"}));
  bm->add_option("--device", bo->device, "cpu, cuda (an error when no CUDA GPU is usable) or auto; default cpu")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  bm->add_flag("--json", bo->json, "Print JSON instead of a table");
  bm->add_option("--trace", bo->trace,
                 "Write a chrome://tracing file of one extra profiled training step per row (last row wins)");
  bm->callback([bo, &global] { run_bench(*bo, global); });
}

}  // namespace pha::cli
