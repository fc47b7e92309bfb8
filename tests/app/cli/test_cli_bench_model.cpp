// `pha bench model` on the real binary: the engine's step benchmark (runtime::bench_steps,
// through Trainer) reported with tokens/s, the phase split, MFU against both the fp32 and the
// bf16 GEMM rate measured in the same process, peak RSS (VmHWM), the --trace file, and the
// --precision / --device choices.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

TEST(CliBenchModel, JsonRowsAreMeasuredThroughTheTrainerWithMfuAndATrace) {
  const std::string trace = (std::filesystem::temp_directory_path() / "pha-bench-model-trace.json").string();
  std::filesystem::remove(trace);
  const CliResult r = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 2 --warmup 1 "
                              "--gemm-size 256 --precision fp32 --json --trace '" + trace + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["precision"], "fp32");
  ASSERT_EQ(j["results"].size(), 1u) << j.dump();
  const nlohmann::json& row = j["results"][0];
  EXPECT_EQ(row["model"], "pha-tiny");
  EXPECT_EQ(row["batch"], 2);
  EXPECT_EQ(row["device"], "cpu");
  EXPECT_NEAR(row["tokens_per_s"].get<double>(), 64.0 / row["step_s"].get<double>(), 1e-6 * row["tokens_per_s"].get<double>());
  EXPECT_EQ(row["precision"], "fp32");
  for (const char* k : {"forward_s", "backward_s", "optimizer_s", "gemm_gflops_fp32", "gemm_gflops_bf16",
                        "train_flops_per_token"})
    EXPECT_GT(row[k].get<double>(), 0.0) << k;
  const double model_flops = row["train_flops_per_token"].get<double>() * row["tokens_per_s"].get<double>();
  EXPECT_NEAR(row["mfu_fp32"].get<double>(), model_flops / (row["gemm_gflops_fp32"].get<double>() * 1e9), 1e-9);
  EXPECT_NEAR(row["mfu_bf16"].get<double>(), model_flops / (row["gemm_gflops_bf16"].get<double>() * 1e9), 1e-9);
  EXPECT_GT(row["peak_rss_bytes"].get<int64_t>(), 10 << 20);
  EXPECT_GT(row["params"].get<int64_t>(), 1000000);
  EXPECT_TRUE(std::filesystem::exists(trace)) << "--trace writes one extra profiled step";
  {  // the fused kernels' forwards are named in it, not hidden in their callers' time
    std::ifstream in(trace);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* op : {"pha::cpu_causal_attention", "pha::rope_cosine", "pha::mix_residual_norm",
                           "pha::gss_causal_conv", "pha::dss_kernel"})
      EXPECT_NE(text.find(op), std::string::npos) << op;
  }
  std::filesystem::remove(trace);

  const CliResult table = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 1 --warmup 0 "
                                  "--gemm-size 256");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const char* field : {"tokens/s", "MFU32", "MFU16", "fp32 GF", "bf16 GF", "peak RSS", "runtime::Trainer"})
    EXPECT_NE(table.output.find(field), std::string::npos) << field << "\n" << table.output;
}

// --precision bf16 trains the row in bf16 mixed precision (Trainer's bf16 path, not a label),
// and an unknown precision or device is refused before anything is built.
TEST(CliBenchModel, PrecisionFlagSelectsTheTrainersPrecisionAndBadValuesAreRefused) {
  const CliResult r = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 1 --warmup 0 "
                              "--gemm-size 128 --precision bf16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["precision_setting"], "bf16");
  EXPECT_EQ(j["precision"], "bf16");
  EXPECT_FALSE(j["precision_reason"].get<std::string>().empty());
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["precision"], "bf16");
  EXPECT_GT(j["results"][0]["mfu_bf16"].get<double>(), 0.0);

  const CliResult bad = run_cli("bench model --preset pha-tiny -T 32 --tokens 64 --precision fp16");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--precision"), std::string::npos) << bad.output;
  const CliResult bad_device = run_cli("bench model --preset pha-tiny -T 32 --tokens 64 --device tpu");
  EXPECT_NE(bad_device.exit_code, 0);
  EXPECT_NE(bad_device.output.find("--device"), std::string::npos) << bad_device.output;
}

// --device cuda runs on the GPU where there is one, and otherwise fails with an error naming the
// flag, never by falling back to the CPU.
TEST(CliBenchModel, DeviceCudaRunsOnTheGpuOrSaysThereIsNone) {
  const CliResult r = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 1 --warmup 0 "
                              "--gemm-size 128 --device cuda --precision bf16 --json");
  if (r.exit_code == 0) {
    const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    EXPECT_EQ(j["device"], "cuda");
    EXPECT_EQ(j["results"][0]["device"], "cuda");
  } else {
    EXPECT_NE(r.output.find("--device"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("no usable CUDA GPU"), std::string::npos) << r.output;
  }
}
