// The inference benchmark (runtime/inference_bench.h, store/inference_store.h): one point
// measured in this process on a tiny model (timings present, allocated state bytes = formula,
// memory split adds up), the JSON round trip, sweep validation with field names, the decode
// slope, and recording / reading back inference runs in a store.
#include <gtest/gtest.h>

#include "core/error.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/variants.h"
#include "runtime/inference_bench.h"
#include "runtime_test_util.h"
#include "store/store.h"

namespace pha::runtime {
namespace {

nlohmann::json tiny_model(const std::string& variant) {
  model::ModelConfig cfg = model::make_variant_config(variant, 256, 32, 2);
  cfg.attention.heads = 4;
  cfg.attention.kv_heads = 2;
  cfg.gss.reduced = 16;
  cfg.gss.state = 8;
  cfg.name = "tiny-" + variant;
  return model::to_json(cfg);
}

TEST(InferenceBench, OnePointInProcess) {
  for (const std::string variant : {"pha", "transformerpp", "gss-only"}) {
    InferencePointSpec spec;
    spec.model = "tiny-" + variant;
    spec.model_config = tiny_model(variant);
    spec.seq_len = 48;
    spec.batch = 2;
    spec.generate = 12;
    spec.decode_timed = 6;
    spec.decode_warmup = 2;
    spec.threads = 1;
    if (variant == "gss-only") spec.train_seq_len = 32;  // a source run trained at T = 32
    const InferencePointResult r = measure_inference_point(spec);
    SCOPED_TRACE(variant);
    EXPECT_TRUE(r.error.empty());
    EXPECT_GT(r.ttft_ms, 0.0);
    EXPECT_GT(r.decode_ms_per_token, 0.0);
    EXPECT_EQ(r.decode_ms.size(), 11u);  // generate - 1 steps after the first token
    EXPECT_GE(r.e2e_ms, r.ttft_ms);
    EXPECT_NEAR(r.prefill_tokens_per_s, 2 * 48 / (r.ttft_ms / 1e3), 1e-6 * r.prefill_tokens_per_s);
    EXPECT_NEAR(r.decode_tokens_per_s, 2 * 1e3 / r.decode_ms_per_token, 1e-6 * r.decode_tokens_per_s);
    const model::ModelConfig cfg = model::model_config_from_json(spec.model_config);
    const model::DecodeMemory f = model::decode_memory(cfg, 2, 48 + 12, 4);
    EXPECT_EQ(r.memory.kv_cache, f.kv_bytes);
    EXPECT_EQ(r.memory.kv_formula, f.kv_bytes);
    EXPECT_EQ(r.memory.gss_state, f.gss_state_bytes);
    EXPECT_EQ(r.memory.gss_state_formula, f.gss_state_bytes);
    EXPECT_EQ(r.memory.weights, r.n_params * 4);  // fp32, no buffers in these models
    EXPECT_EQ(variant == "gss-only", r.memory.kv_cache == 0);
    EXPECT_EQ(variant == "transformerpp", r.memory.gss_state == 0);
    EXPECT_GE(r.memory.peak, r.memory.baseline);  // equal when an earlier point in this process peaked higher
    EXPECT_EQ(r.memory.activations,
              std::max<int64_t>(0, r.memory.peak - r.memory.baseline - r.memory.weights - r.memory.kv_cache -
                                       r.memory.gss_state));
    EXPECT_EQ(r.context, variant == "gss-only" ? 32 : cfg.context);
    EXPECT_EQ(r.dtype, "float32");
    EXPECT_NE(r.decode_path.find(variant == "transformerpp" ? "KV cache" : "recurrence"), std::string::npos);
    EXPECT_FALSE(r.env.empty());

    const InferencePointResult back = inference_result_from_json(nlohmann::json::parse(to_json(r).dump()));
    EXPECT_EQ(to_json(back), to_json(r));
  }
}

TEST(InferenceBench, BadSpecsNameTheField) {
  const auto field_of = [](auto f) {
    try {
      f();
    } catch (const core::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  InferenceSweep s;
  s.seq_lens = {0};
  EXPECT_NE(field_of([&] { validate_inference_sweep(s); }).find("seq_lens"), std::string::npos);
  s = InferenceSweep{};
  s.batches.clear();
  EXPECT_NE(field_of([&] { validate_inference_sweep(s); }).find("batches"), std::string::npos);
  s = InferenceSweep{};
  s.model_configs = {nlohmann::json::object()};  // 3 models, 1 config
  EXPECT_NE(field_of([&] { validate_inference_sweep(s); }).find("model_configs"), std::string::npos);
  s = InferenceSweep{};
  s.generate = 10;  // 2 + 32 decode steps do not fit in 9
  EXPECT_NE(field_of([&] { validate_inference_sweep(s); }).find("decode_timed"), std::string::npos);
  s = InferenceSweep{};
  s.device = "cuda";
  EXPECT_NE(field_of([&] { validate_inference_sweep(s); }).find("device"), std::string::npos);
  EXPECT_NE(field_of([&] { inference_spec_from_json({{"seq_len", "long"}}); }).find("wrong type"), std::string::npos);
  EXPECT_NE(field_of([&] { inference_spec_from_json({{"batch", 0}}); }).find("batch"), std::string::npos);

  // Skipped points: batch x L above max_batch_tokens (batch 1 is always measured).
  InferenceSweep c;
  c.models = {"pha-tiny"};
  c.seq_lens = {1024, 65536};
  c.batches = {1, 8};
  c.max_batch_tokens = 65536;
  EXPECT_EQ(inference_point_count(c), 3u);
}

InferencePointResult point(const std::string& model, int64_t L, int64_t B, double decode_ms) {
  InferencePointResult p;
  p.spec.model = model;
  p.spec.seq_len = L;
  p.spec.batch = B;
  p.decode_ms_per_token = decode_ms;
  p.decode_tokens_per_s = B * 1e3 / decode_ms;
  p.prefill_tokens_per_s = 1000;
  p.e2e_tokens_per_s = 100;
  p.memory.peak = 100 << 20;
  p.method = "test";
  return p;
}

TEST(InferenceBench, DecodeSlope) {
  std::vector<InferencePointResult> pts = {point("flat", 1024, 1, 1.0), point("flat", 2048, 1, 1.0),
                                           point("flat", 4096, 1, 1.0), point("lin", 1024, 1, 1.0),
                                           point("lin", 2048, 1, 2.0), point("lin", 4096, 1, 4.0)};
  const DecodeSlope flat = decode_slope(pts, "flat", 1);
  EXPECT_EQ(flat.n, 3);
  EXPECT_NEAR(flat.slope_ms_per_1k, 0.0, 1e-12);
  EXPECT_NEAR(flat.ratio_last_first, 1.0, 1e-12);
  const DecodeSlope lin = decode_slope(pts, "lin", 1);
  EXPECT_NEAR(lin.slope_ms_per_1k, 1.0, 1e-9);  // 1 ms per 1,024 tokens of context
  EXPECT_NEAR(lin.intercept_ms, 0.0, 1e-9);
  EXPECT_NEAR(lin.ratio_last_first, 4.0, 1e-12);
  EXPECT_EQ(decode_slope(pts, "lin", 8).n, 0);
}

TEST(InferenceBench, RecordedAndReadBack) {
  test::TempProject tp;
  std::vector<InferencePointResult> pts = {point("a", 256, 1, 1.0), point("a", 1024, 1, 2.0), point("b", 256, 1, 3.0)};
  pts[0].spec.model_config = pts[1].spec.model_config = tiny_model("pha");
  pts[2].spec.model_config = tiny_model("transformerpp");
  InferencePointResult failed = point("b", 1024, 1, 0.0);
  failed.error = "timed out after 5 s";
  pts.push_back(failed);
  const std::vector<int64_t> ids = store_inference_results(tp.store(), "proj", pts);
  ASSERT_EQ(ids.size(), 2u);
  auto store = store::Store::open(tp.store());
  EXPECT_EQ(store.get_run(ids[0])->name, "inference: a");
  EXPECT_EQ(store.get_run(ids[0])->kind, store::RunKind::Profile);
  EXPECT_EQ(store.perf(ids[0]).size(), 6u);  // prefill, decode, e2e per measured point
  EXPECT_EQ(store.perf(ids[1]).size(), 3u);  // the failed point is left out of the rows ...
  EXPECT_NE(store.get_run(ids[1])->notes.find("timed out"), std::string::npos);  // ... and named in the notes
  const auto runs = inference_runs(store, "proj");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(inference_runs(store, "other").empty());
  nlohmann::json wanted = tiny_model("pha");
  wanted["name"] = "renamed";  // configs are compared without their name
  const ModelInference m = inference_of_model(store, wanted);
  EXPECT_EQ(m.run_id, ids[0]);
  ASSERT_EQ(m.points.size(), 2u);
  EXPECT_DOUBLE_EQ(m.points[1].decode_ms_per_token, 2.0);
  EXPECT_EQ(inference_of_model(store, tiny_model("gss-only")).run_id, 0);
  EXPECT_TRUE(is_inference_run_config(store.get_run(ids[0])->config_json));
}

}  // namespace
}  // namespace pha::runtime
