// Project-folder operations (project/project_files.h): the store path, templates in one search
// order, projects made from text, and variants added to project.json validated, atomically,
// with the rest of the file kept as written.
#include "project/project_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "project/project.h"
#include "engine/runtime/runtime_test_util.h"

using nlohmann::json;
namespace fs = std::filesystem;
namespace rt = pha::runtime;

using pha::test::error_message;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// $PHA_PROJECTS_DIR set for one test.
class ProjectsDirOverride {
 public:
  explicit ProjectsDirOverride(const fs::path& dir) { setenv("PHA_PROJECTS_DIR", dir.c_str(), 1); }
  ~ProjectsDirOverride() { unsetenv("PHA_PROJECTS_DIR"); }
};

// A project.json in a hand-written layout (compact arrays, a blank line, an unusual key order),
// so a rewrite by a JSON library would show.
std::string handwritten_project(const pha::test::TempProject& p) {
  json j = p.text_project();
  return "{\n  \"name\": \"test\",\n\n  \"model\": " + j["model"].dump() + ",\n  \"data\": " + j["data"].dump() +
         ",\n  \"training\": " + j["training"].dump() + ",\n  \"variants\": [\"pha\",   \"transformer\"]\n}\n";
}

const json kWide = {{"variant", "gss-only"}, {"d_model", 48}, {"n_layers", 2}, {"gss", {{"expanded", 96}, {"reduced", 16}, {"state", 16}}},
                    {"ffn", {{"d_ff", 96}}}};

TEST(ProjectFiles, TheStorePathIsSpelledOnce) {
  EXPECT_EQ(pha::project::store_path_in("/a/proj"), "/a/proj/runs.sqlite");
  pha::project::Project p;
  p.dir = "/a/proj";
  EXPECT_EQ(p.store_path(), pha::project::store_path_in(p.dir));
  EXPECT_EQ(p.file(), "/a/proj/project.json");
  EXPECT_TRUE(pha::project::is_store_file("runs.sqlite-wal"));
  EXPECT_FALSE(pha::project::is_store_file("project.json"));
}

TEST(ProjectFiles, AddVariantAppendsItKeepsTheRestOfTheFileAndTheProjectLoads) {
  pha::test::TempProject p;
  const std::string before = handwritten_project(p);
  p.write_raw(before);
  pha::project::add_variant(p.dir().string(), "wide", kWide, json{{"lr", 0.001}});
  const std::string after = read_text(p.dir() / "project.json");
  // The file is the old text with one inserted piece, right after the last variant.
  const size_t at = before.find("\"transformer\"") + std::string("\"transformer\"").size();
  ASSERT_EQ(after.substr(0, at), before.substr(0, at));
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(after.size() - (before.size() - at)), before.substr(at)) << after;
  const auto project = pha::project::load_project(p.dir().string());
  ASSERT_EQ(pha::project::run_names(project), (std::vector<std::string>{"pha", "transformer", "wide"}));
  EXPECT_EQ(project.runs[2].variant, "gss-only");
  EXPECT_EQ(project.runs[2].model.d_model, 48);
  EXPECT_DOUBLE_EQ(project.runs[2].training.lr, 0.001);
  EXPECT_EQ(project.runs[2].training.steps, 6) << "the rest of the training comes from the project's section";
  for (const auto& e : fs::directory_iterator(p.dir()))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temporary file left: " << e.path();
}

TEST(ProjectFiles, AProjectWithoutVariantsKeepsItsRunFirst) {
  pha::test::TempProject p;
  p.write_project(p.text_project());
  pha::project::add_variant(p.dir().string(), "wide", kWide);
  const auto project = pha::project::load_project(p.dir().string());
  EXPECT_EQ(pha::project::run_names(project), (std::vector<std::string>{"test", "wide"}));
  EXPECT_EQ(project.runs[0].model.d_model, 32) << "the implicit run is unchanged";
  EXPECT_EQ(project.runs[1].training.steps, 6) << "no training given: the project's";
  // In a multi-line file the list goes in as indented lines before the closing brace.
  const std::string before = p.text_project().dump(2);
  p.write_raw(before);
  pha::project::add_variant(p.dir().string(), "wide", kWide);
  const std::string after = read_text(p.dir() / "project.json");
  const size_t end = before.rfind('}');
  EXPECT_EQ(after.substr(0, end - 1), before.substr(0, end - 1));
  const std::string inserted = ",\n  \"variants\": [\n    {\n      \"name\": \"test\"\n    },\n    {\n      \"name\": \"wide\",\n";
  EXPECT_EQ(after.substr(end - 1, inserted.size()), inserted) << after;
  EXPECT_EQ(after.substr(after.size() - 19), "      }\n    }\n  ]\n}") << after;
}

TEST(ProjectFiles, ARefusedVariantWritesNothing) {
  pha::test::TempProject p;
  const std::string before = handwritten_project(p);
  p.write_raw(before);
  EXPECT_EQ(error_message([&] { pha::project::add_variant(p.dir().string(), "transformer", kWide); }),
            "variants[2].name: \"transformer\" is taken; allowed: a name not in \"pha\", \"transformer\"");
  EXPECT_NE(error_message([&] { pha::project::add_variant(p.dir().string(), "a/b", kWide); }).find("allowed: a non-empty name without '/'"),
            std::string::npos);
  json bad = kWide;
  bad["variant"] = "pha";
  bad["attention"] = {{"heads", 4}, {"kv_heads", 3}};
  const std::string msg = error_message([&] { pha::project::add_variant(p.dir().string(), "bad", bad); });
  EXPECT_EQ(msg.rfind("variants[2].model.attention.kv_heads: 3 must divide", 0), 0u) << msg;
  EXPECT_NE(msg.find("is unchanged"), std::string::npos) << msg;
  EXPECT_EQ(read_text(p.dir() / "project.json"), before);
  EXPECT_EQ(pha::project::unique_variant_name(p.dir().string(), "pha"), "pha-2");
  EXPECT_EQ(pha::project::unique_variant_name(p.dir().string(), "wide"), "wide");
}

TEST(ProjectFiles, TemplatesAreSearchedInOneOrder) {
  pha::test::TempProject own;
  fs::create_directories(own.dir() / "mine");
  fs::create_directories(own.dir() / "quickstart");
  std::ofstream(own.dir() / "mine" / "project.json") << "{}";
  std::ofstream(own.dir() / "quickstart" / "project.json") << "{}";
  ProjectsDirOverride env(own.dir());
  const auto dirs = pha::project::template_dirs();
  ASSERT_GE(dirs.size(), 2u) << "$PHA_PROJECTS_DIR and the source tree";
  EXPECT_EQ(dirs.front(), fs::canonical(own.dir()).string());
  EXPECT_EQ(dirs.back(), fs::canonical(std::string(PHA_SOURCE_DIR) + "/projects").string());
  EXPECT_EQ(pha::project::find_template("quickstart"), (fs::canonical(own.dir()) / "quickstart").string()) << "the first folder wins";
  EXPECT_EQ(pha::project::find_template("mqar"), (fs::canonical(std::string(PHA_SOURCE_DIR) + "/projects") / "mqar").string());
  const auto names = pha::project::template_names();
  for (const char* n : {"mine", "mqar", "quickstart", "seed2"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_NE(error_message([] { pha::project::find_template("nope"); }).find("projects/nope: project template not found (looked in $PHA_PROJECTS_DIR"),
            std::string::npos);
}

TEST(ProjectFiles, CopyTemplateLeavesResultsBehind) {
  pha::test::TempProject own;
  const fs::path t = own.dir() / "templates" / "demo";
  fs::create_directories(t / "checkpoints" / "run-1");
  std::ofstream(t / "project.json") << "{\"name\": \"demo\"}";
  std::ofstream(t / "notes.txt") << "keep";
  std::ofstream(t / "runs.sqlite") << "results";
  std::ofstream(t / "runs.sqlite-wal") << "results";
  std::ofstream(t / "checkpoints" / "run-1" / "step-1.safetensors") << "weights";
  ProjectsDirOverride env(own.dir() / "templates");
  const std::string dest = pha::project::copy_template("demo", (own.dir() / "work" / "copy/").string());
  EXPECT_EQ(dest, (own.dir() / "work" / "copy").string());
  EXPECT_EQ(read_text(fs::path(dest) / "project.json"), "{\"name\": \"demo\"}");
  EXPECT_TRUE(fs::exists(fs::path(dest) / "notes.txt"));
  EXPECT_FALSE(fs::exists(fs::path(dest) / "runs.sqlite"));
  EXPECT_FALSE(fs::exists(fs::path(dest) / "runs.sqlite-wal"));
  EXPECT_FALSE(fs::exists(fs::path(dest) / "checkpoints"));
  EXPECT_NE(error_message([&] { pha::project::copy_template("demo", dest); }).find("already holds a project"), std::string::npos);
}

TEST(ProjectFiles, AProjectFromATextFileOrAFolderTrainsTheQuickstartVariants) {
  pha::test::TempProject p;
  const std::string corpus = p.write_corpus();
  const fs::path workspace = p.dir() / "workspace";
  const std::string made = pha::project::create_project_from_text(corpus, workspace.string());
  EXPECT_EQ(made, (workspace / "corpus").string());
  const auto project = pha::project::load_project(made);
  EXPECT_EQ(project.name, "corpus");
  EXPECT_EQ(project.json["data"]["kind"], "file");
  EXPECT_EQ(project.json["data"]["path"], corpus);
  // The quickstart's study on the user's text: each variant at 2 learning rates on 3 seeds.
  const std::vector<std::string> names = pha::project::run_names(project);
  ASSERT_EQ(names.size(), 18u);
  EXPECT_EQ(names.front(), "pha-tiny/lr=0.003,seed=0");
  EXPECT_EQ(names.back(), "sequential-tiny/lr=0.01,seed=2");
  EXPECT_EQ(project.claims.size(), 2u);
  EXPECT_EQ(pha::project::create_project_from_text(corpus, workspace.string()), (workspace / "corpus-2").string());

  const fs::path books = p.dir() / "books";
  fs::create_directories(books);
  fs::copy_file(corpus, books / "a.txt");
  fs::copy_file(corpus, books / "b.txt");
  const auto folder = pha::project::load_project(pha::project::create_project_from_text(books.string(), workspace.string()));
  EXPECT_EQ(folder.name, "books");
  EXPECT_EQ(folder.json["data"]["kind"], "folder");

  fs::create_directories(p.dir() / "empty");
  EXPECT_NE(error_message([&] { pha::project::create_project_from_text((p.dir() / "empty").string(), workspace.string()); })
                .find("no .txt files in this folder"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(workspace / "empty")) << "a refused project writes nothing";
  EXPECT_NE(error_message([&] { pha::project::create_project_from_text((p.dir() / "missing.txt").string(), workspace.string()); })
                .find("allowed: a text file or a folder of .txt files"),
            std::string::npos);
}

}  // namespace

// The quickstart's working copy (`pha quickstart`, the window's default project): copied when
// missing, an untrained copy of an older template replaced, a copy with runs kept and said.
TEST(ProjectFiles, TheTemplatesWorkingCopyIsRefreshedOnlyWhenNothingWasTrained) {
  pha::test::TempProject p;
  const fs::path work = p.dir() / "quickstart";
  std::string note;
  pha::project::template_working_copy("quickstart", work.string(), &note);
  EXPECT_NE(note.find("copied the template"), std::string::npos) << note;
  pha::project::template_working_copy("quickstart", work.string(), &note);
  EXPECT_EQ(note, "") << "a current copy is left alone";
  const auto read = [](const fs::path& f) {
    std::ifstream in(f);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string current = read(work / "project.json");
  std::ofstream(work / "project.json") << R"({"name": "quickstart", "tune": {"training.lr": [0.001, 0.003]}})";
  pha::project::template_working_copy("quickstart", work.string(), &note);
  EXPECT_NE(note.find("an untrained copy of an older quickstart template"), std::string::npos) << note;
  EXPECT_EQ(read(work / "project.json"), current);
  // With a run store the copy is the user's: kept, and said.
  std::ofstream(work / "project.json") << R"({"name": "quickstart", "tune": {"training.lr": [0.001, 0.003]}})";
  std::ofstream(work / "runs.sqlite") << "";
  pha::project::template_working_copy("quickstart", work.string(), &note);
  EXPECT_NE(note.find("has runs: it is used as it is"), std::string::npos) << note;
  EXPECT_NE(read(work / "project.json"), current);
}
