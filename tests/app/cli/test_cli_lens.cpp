// `pha lens` on the real binary (docs/lens.md): two seeded replicas trained with `pha train`,
// knock-outs and effective weights recorded for every run at once (what the report's lens
// claims read), a per-token comparison written as CSV, the spectrum at init, and bad input
// failing with exit code 3 and a message naming the argument.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/lens_store.h"
#include "store/store.h"

using nlohmann::json;

namespace {

std::string lens_quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(CliLens, RecordsEveryRunsKnockoutsAndComparesTwoRunsPerToken) {
  pha::test::TempProject p;
  json proj = p.text_project({{"precision", "fp32"}});
  proj["seeds"] = {1, 2};
  p.write_project(proj);
  const std::string dir = lens_quoted(p.dir());
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  r = run_cli("--threads 1 lens knockout --project " + dir + " --run all --tokens 256 --record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("zeroed, the other weights not renormalised"), std::string::npos) << r.output;
  r = run_cli("--threads 1 lens weights --project " + dir + " --run all --tokens 256 --record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  {
    auto s = pha::store::Store::open(p.store());
    for (int64_t run : {1, 2}) {
      int knockouts = 0, shares = 0;
      for (const auto& row : pha::store::read_lens(s, run)) {
        knockouts += row.kind == "knockout" && row.cls.empty();
        shares += row.kind == "effective_share";
      }
      EXPECT_EQ(knockouts, 9) << "run " << run << ": 2 layers x 3 branches + 3 everywhere";
      EXPECT_EQ(shares, 6) << "run " << run;
    }
  }

  const auto csv = p.dir() / "tokens.csv";
  r = run_cli("--threads 1 lens tokens --project " + dir + " --run 1 --compare 2 --tokens 256 --bootstrap 100 --csv " +
              lens_quoted(csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("copyable"), std::string::npos) << r.output;
  std::ifstream in(csv);
  std::stringstream body;
  body << in.rdbuf();
  const std::string text = body.str();
  EXPECT_EQ(text.rfind("window,position,class,input,target,nll_a,nll_b,diff\n", 0), 0u) << text.substr(0, 200);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 257);

  r = run_cli("--threads 1 lens spectrum --project " + dir + " --run 1 --init");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("as initialised"), std::string::npos) << r.output;

  r = run_cli("--threads 1 lens attention --project " + dir + " --run 1 --layer 5");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("--layer"), std::string::npos) << r.output;
  r = run_cli("--threads 1 lens tokens --project " + dir + " --run 1 --split train");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("--split"), std::string::npos) << r.output;
}

}  // namespace
