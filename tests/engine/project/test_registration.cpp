// Pre-registration through the job (project/project_registration.h): the first run of a project
// records its claims and design in the store with a hash; later runs never replace it; the report
// shows what changed after the data.
#include <gtest/gtest.h>

#include "data/sha256.h"
#include "project/project.h"
#include "project/project_registration.h"
#include "project/project_report.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/registration_store.h"
#include "store/store.h"

namespace registration_test {

using nlohmann::json;
namespace rt = pha::runtime;

struct Quiet : rt::RunObserver {};

int64_t train_once(const pha::test::TempProject& p) {
  Quiet obs;
  rt::RunControl ctl;
  const rt::JobResult r = rt::run_job(pha::test::job_spec(p), obs, ctl);
  EXPECT_EQ(r.status, rt::JobStatus::Finished) << r.reason;
  return r.run_id;
}

TEST(Registration, TheFirstRunRegistersTheDesignAndLaterEditsShowAsChangedAfterData) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 4}, {"eval_every", 0}});
  j["claims"] = json::array();
  p.write_project(j);
  const pha::project::Project before = pha::project::load_project(p.dir().string());
  const json design = pha::project::registered_design(before);
  EXPECT_TRUE(design.contains("training"));
  EXPECT_TRUE(design.contains("claims"));
  EXPECT_FALSE(design.contains("name"));
  train_once(p);
  {
    auto store = pha::store::Store::open(p.store());
    const auto reg = pha::store::registration(store, "test");
    ASSERT_TRUE(reg.has_value()) << "the first run registers the project";
    EXPECT_EQ(reg->hash, pha::data::sha256_hex(design.dump()));
    EXPECT_EQ(reg->hash, pha::project::design_hash(design));
    EXPECT_EQ(reg->runs_before, 0);
    EXPECT_EQ(json::parse(reg->design_json), design);
  }
  // The budget edited after the data, and trained again: the registration stays the first one.
  j["training"]["steps"] = 5;
  p.write_project(j);
  train_once(p);
  auto store = pha::store::Store::open(p.store());
  EXPECT_EQ(pha::store::registration(store, "test")->hash, pha::project::design_hash(design));
  const pha::analysis::Report report = pha::project::project_report(p.dir().string());
  EXPECT_TRUE(report.registration.present);
  ASSERT_EQ(report.registration.changes.size(), 1u);
  EXPECT_EQ(report.registration.changes[0], "training.steps: 4 -> 5");
  EXPECT_NE(pha::analysis::render_markdown(report).find("changed after data: training.steps: 4 -> 5"), std::string::npos);
}

}  // namespace registration_test
