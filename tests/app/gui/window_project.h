// A project with three finished runs in its store (pha-tiny, transformerpp-tiny,
// sequential-tiny: 20 train/loss points and one val/loss each), for the window's tests.
#pragma once

#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

#include <fstream>

#include "engine/runtime/runtime_test_util.h"
#include "project/project_files.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pha::test {

// The quickstart template with its data pointed at a small corpus made by the test, one run per
// variant (no tuning, seeds or claims).
inline void writeQuickstartCopy(const TempProject& tp) {
  std::ifstream in(project::project_file_in(project::find_template("quickstart")));
  nlohmann::json j = nlohmann::json::parse(in);
  j["data"] = {{"kind", "file"}, {"path", tp.write_corpus()}, {"cache", false}, {"tokenizer", {{"kind", "byte"}}}};
  j.erase("tune");
  j.erase("seeds");
  j.erase("claims");
  tp.write_project(j);
}

struct WindowProject {
  TempProject tp;
  std::vector<std::int64_t> ids;
  WindowProject() {
    tp.write_project(tp.text_project());
    auto store = pha::store::Store::open(tp.store());
    for (const char* name : {"pha-tiny", "transformerpp-tiny", "sequential-tiny"}) {
      pha::store::NewRun nr;
      nr.project = "test";
      nr.name = name;
      nr.variant = "pha";
      nr.config_json = nlohmann::json{{"model", TempProject::tiny_model()}}.dump();
      ids.push_back(store.create_run(nr));
      pha::store::RunWriter w(store, ids.back());
      for (int s = 1; s <= 20; ++s) w.metric("train/loss", s, s * 64, s * 10, 5.0 - 0.1 * s);
      w.metric("val/loss", 20, 20 * 64, 200, 3.9);
      w.finish(pha::store::RunStatus::Finished);
    }
  }
  QString dir() const { return QString::fromStdString(tp.dir().string()); }
  QString store() const { return QString::fromStdString(tp.store()); }
  pha::store::Store open() const { return pha::store::Store::open(tp.store()); }
};

}  // namespace pha::test
