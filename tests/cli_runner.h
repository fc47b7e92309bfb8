// Runs the `pha` program (path from PHA_CLI_PATH) and captures its exit code and output.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  std::string cmd = env + (env.empty() ? "" : " ") + std::string("'") + PHA_CLI_PATH + "' " + args + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A path as one shell word for run_cli's command line.
inline std::string shell_word(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
