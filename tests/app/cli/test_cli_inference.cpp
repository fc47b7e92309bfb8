// `pha bench inference` on the real binary (docs/cli.md, docs/performance.md "Inference"):
// presets measured in worker processes with the allocated-vs-formula line and the decode
// slopes printed and every point written as JSON; a trained project's model measured and
// recorded as an "inference: <model>" run with its source run and training length; bad input
// failing with exit code 3 and a message naming the option.
#include <fstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "model/flops.h"
#include "model/presets.h"
#include "store/inference_store.h"
#include "store/store.h"

using nlohmann::json;

namespace {

std::string inference_quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(CliInference, PresetsAndAProjectsModelsMeasuredInWorkers) {
  pha::test::TempProject p;
  const auto out = p.dir() / "points.json";
  CliResult r = run_cli("--threads 1 bench inference --models gss-only-tiny,transformerpp-tiny --seq-lens 16,64 "
                        "--batches 1,2 --max-batch-tokens 64 --generate 8 --decode-steps 4 --json " + inference_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("allocated bytes = formula"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("decode slope gss-only-tiny"), std::string::npos) << r.output;
  json points;
  std::ifstream(out) >> points;
  ASSERT_EQ(points.size(), 6u);  // 2 models x (16: B 1 and 2; 64: B 1; 64 x 2 > 64 skipped)
  for (const json& j : points) {
    const auto pt = pha::store::inference_result_from_json(j);
    EXPECT_TRUE(pt.error.empty()) << pt.error;
    const auto f = pha::model::decode_memory(pha::model::preset(pt.spec.model), pt.spec.batch, pt.spec.seq_len + 8, 4);
    EXPECT_EQ(pt.memory.kv_cache, f.kv_bytes);
    EXPECT_EQ(pt.memory.gss_state, f.gss_state_bytes);
    EXPECT_GT(pt.memory.peak, pt.memory.baseline);  // a fresh worker per point
    EXPECT_GT(pt.decode_tokens_per_s, 0.0);
  }

  json proj = p.text_project({{"precision", "fp32"}});
  p.write_project(proj);
  r = run_cli("--threads 1 train --quiet " + inference_quoted(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_cli("--threads 1 bench inference --project " + inference_quoted(p.dir()) +
              " --seq-lens 32 --batches 1 --generate 8 --decode-steps 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("recorded 1 inference run(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 points (1 models)"), std::string::npos) << "--project times each point 3 times\n" << r.output;
  auto s = pha::store::Store::open(p.store());
  const auto runs = pha::store::inference_runs(s);
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].points.size(), 3u);  // 3 timings in fresh workers (an efficiency claim tests over them)
  for (int rep = 0; rep < 3; ++rep) EXPECT_EQ(runs[0].points[static_cast<size_t>(rep)].spec.repeat, rep);
  const auto& pt = runs[0].points[0];
  EXPECT_EQ(pt.spec.source_run, 1);
  EXPECT_FALSE(pt.spec.checkpoint.empty());  // the run's last checkpoint was loaded
  EXPECT_EQ(pt.context, proj["training"]["seq_len"].get<int>());
  EXPECT_EQ(s.perf(runs[0].run_id).size(), 9u);  // prefill, decode, e2e per timing

  r = run_cli("bench inference --seq-lens 16,x");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("--seq-lens"), std::string::npos) << r.output;
  r = run_cli("bench inference --models pha-tiny --batches 0");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("batches"), std::string::npos) << r.output;
}

}  // namespace
