// Helpers for the runtime tests: a temporary project folder with a small text corpus (made by
// the test, no installed data needed) and a tiny model, and store reads.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/job.h"

namespace pha::test {

class TempProject {
 public:
  TempProject() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("pha-runtime-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempProject() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempProject(const TempProject&) = delete;
  TempProject& operator=(const TempProject&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string store() const { return (dir_ / "runs.sqlite").string(); }

  // ~40 KB of varied English-like text with paragraphs, so the hash split has all three splits.
  std::string write_corpus() const {
    const char* words[] = {"the", "model", "mixes", "three", "branches", "state", "space", "attention", "and", "a",
                           "feed", "forward", "network", "learns", "which", "one", "to", "trust", "at", "each", "depth"};
    std::string text;
    uint64_t x = 12345;
    for (int p = 0; p < 400; ++p) {
      for (int w = 0; w < 16; ++w) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        text += words[(x >> 33) % (sizeof(words) / sizeof(words[0]))];
        text += w == 15 ? ".\n\n" : " ";
      }
    }
    const auto path = dir_ / "corpus.txt";
    std::ofstream(path) << text;
    return path.string();
  }

  static nlohmann::json tiny_model() {
    return {{"variant", "pha"},
            {"d_model", 32},
            {"n_layers", 2},
            {"context", 64},
            {"attention", {{"heads", 2}, {"kv_heads", 1}}},
            {"gss", {{"expanded", 64}, {"reduced", 16}, {"state", 16}}},
            {"ffn", {{"d_ff", 64}}}};
  }

  // A complete text project on the corpus; `training` is merged over small defaults.
  nlohmann::json text_project(const nlohmann::json& training = nlohmann::json::object()) const {
    nlohmann::json t = {{"steps", 6},       {"batch_size", 2},     {"seq_len", 32},     {"lr", 0.003},
                        {"warmup_steps", 2}, {"eval_every", 3},    {"eval_tokens", 256}, {"final_eval_tokens", 512},
                        {"mixer_every", 2},  {"seed", 7},          {"threads", 1}};
    t.merge_patch(training);
    return {{"name", "test"},
            {"data", {{"kind", "file"}, {"path", write_corpus()}, {"cache", false}, {"tokenizer", {{"kind", "byte"}}}}},
            {"model", tiny_model()},
            {"training", t}};
  }

  void write_project(const nlohmann::json& j) const { std::ofstream(dir_ / "project.json") << j.dump(2); }
  void write_raw(const std::string& text) const { std::ofstream(dir_ / "project.json") << text; }

 private:
  std::filesystem::path dir_;
};

inline runtime::JobSpec job_spec(const TempProject& p) {
  runtime::JobSpec spec;
  spec.project = p.dir().string();
  return spec;
}

}  // namespace pha::test
