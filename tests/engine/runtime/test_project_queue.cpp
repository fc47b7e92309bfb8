// The project queue (runtime/project_queue.h): which runs, in which order, and the "profile
// after the runs" policy the CLI and the window share.
#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/project.h"
#include "runtime/project_queue.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

json two_runs_with_profile(const pha::test::TempProject& p, bool after_runs) {
  json j = p.text_project();
  j["variants"] = {"pha", "transformer"};
  j["profile"] = {{"seq_lens", {16}}, {"after_runs", after_runs}};
  return j;
}

std::vector<std::string> describe(const std::vector<QueueItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.kind == QueueItemKind::Profile ? "<profile>" : i.run);
  return out;
}

TEST(ProjectQueue, RunsInProjectOrderThenTheProfileAfterACompletePass) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, true));
  const Project project = load_project(p.dir().string());
  const auto items = project_queue(project, {});
  EXPECT_EQ(describe(items), (std::vector<std::string>{"pha", "transformer", "<profile>"}));
  EXPECT_TRUE(items.back().after_finished_runs);

  // The profile follows only when every run before it finished; runs are never skipped.
  EXPECT_EQ(skip_reason(items.back(), 0), "");
  EXPECT_NE(skip_reason(items.back(), 1).find("1 run of the queue did not finish"), std::string::npos);
  EXPECT_EQ(skip_reason(items[1], 1), "");

  QueueOptions no_profile;
  no_profile.profile = false;  // --no-profile
  EXPECT_EQ(describe(project_queue(project, no_profile)), (std::vector<std::string>{"pha", "transformer"}));
  QueueOptions chosen;
  chosen.runs = {"transformer"};  // a partial pass measures nothing
  EXPECT_EQ(describe(project_queue(project, chosen)), (std::vector<std::string>{"transformer"}));
}

TEST(ProjectQueue, NoProfileWithoutAfterRunsOrWithoutASection) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, false));
  EXPECT_EQ(project_queue(load_project(p.dir().string()), {}).size(), 2u);
  p.write_project(p.text_project());
  const auto items = project_queue(load_project(p.dir().string()), {});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, QueueItemKind::Train);
}

TEST(ProjectQueue, ResumeNamesItsRunFromTheStoreAndUnknownNamesAreErrors) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, true));
  const Project project = load_project(p.dir().string());
  int64_t id = 0;
  {
    auto s = pha::store::Store::open(project.store_path());
    pha::store::NewRun nr;
    nr.name = "transformer";
    s.create_run(nr);
    id = s.create_run(nr);
  }
  QueueOptions resume;
  resume.resume_run_id = id;
  const auto items = project_queue(project, resume);
  ASSERT_EQ(items.size(), 1u) << "resuming trains that run only, and no profile";
  EXPECT_EQ(items[0].run, "transformer");
  EXPECT_EQ(items[0].resume_run_id, id);

  resume.resume_run_id = 99;
  EXPECT_THROW(project_queue(project, resume), pha::Error);
  QueueOptions unknown;
  unknown.runs = {"nosuchrun"};
  try {
    project_queue(project, unknown);
    FAIL() << "accepted an unknown run";
  } catch (const pha::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchrun"), std::string::npos) << e.what();
  }
}

}  // namespace
