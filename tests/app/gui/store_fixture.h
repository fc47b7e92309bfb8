// A run store made by a GUI test: runs with train/val curves (every point with its tokens and
// time), mixer snapshots and a kind, written through the store's own writer.
#pragma once

#include <QString>
#include <QTemporaryDir>
#include <string>
#include <vector>

#include "store/run_writer.h"
#include "store/store.h"

namespace pha::test {

struct FixtureRun {
  std::string name = "pha-tiny";
  std::string variant = "pha";
  std::int64_t params = 1'500'000;
  int steps = 150;
  std::vector<double> val;       // one value per evaluation, at steps / val.size() spacing
  std::string valKey = "val/loss";
  int mixerEvery = 0;            // 0: no snapshots; else 4 x 3 snapshots every that many steps
  pha::store::RunKind kind = pha::store::RunKind::Train;
  pha::store::RunStatus status = pha::store::RunStatus::Finished;
  std::string config = "{}";
  std::string group;       // runs.run_group ("": none)
  std::int64_t seed = -1;  // -1: not recorded
};

class StoreFixture {
 public:
  QString path() const { return m_dir.filePath("runs.sqlite"); }
  QString dir() const { return m_dir.path(); }

  // Training tokens: 1024 per step; wall time 0.5 s per step.
  std::int64_t add(const FixtureRun& r) {
    auto s = pha::store::Store::open(path().toStdString());
    pha::store::NewRun nr;
    nr.project = "p";
    nr.name = r.name;
    nr.variant = r.variant;
    nr.n_params = r.params;
    nr.kind = r.kind;
    nr.config_json = r.config;
    nr.group = r.group;
    nr.seed = r.seed;
    const auto id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    for (int i = 1; i <= r.steps; ++i) w.metric("train/loss", i, i * 1024, i * 500, 4.0 - 1.5 * i / r.steps + (i % 2 ? 0.2 : -0.2));
    for (std::size_t k = 0; k < r.val.size(); ++k) {
      const std::int64_t step = static_cast<std::int64_t>(r.steps * (k + 1) / r.val.size());
      w.metric(r.valKey, step, step * 1024, step * 500 + 100, r.val[k]);
    }
    if (r.mixerEvery > 0)
      for (int step = r.mixerEvery; step <= r.steps; step += r.mixerEvery) {
        const auto g = static_cast<float>(0.33 + 0.001 * step);
        w.mixer({step, 4, 3, {g, 0.33f, 0.34f, 0.33f, g, 0.34f, g, 0.33f, 0.34f, 0.33f, g, 0.34f}});
      }
    w.finish(r.status);
    return id;
  }

 private:
  QTemporaryDir m_dir;
};

}  // namespace pha::test
