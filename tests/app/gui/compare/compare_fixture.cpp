#include "compare_fixture.h"

#include <QDir>

#include "model/model_config.h"
#include "model/presets.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace ps = pha::store;

namespace {

void writeRun(const QString& storePath, const std::string& project, WrittenRun& run, double offset) {
  auto store = ps::Store::open(storePath.toStdString());
  ps::NewRun nr;
  nr.project = project;
  nr.name = run.name;
  nr.variant = "pha";
  nr.config_json = run.config.dump();
  nr.n_params = run.nParams;
  nr.device = "cpu";
  run.id = store.create_run(nr);
  ps::RunWriter w(store, run.id);
  for (int s = 0; s < 50; ++s) {
    run.trainLoss.push_back(5.0 - 0.05 * s + offset);
    w.metric("train/loss", s, s * 1024, s * 100, run.trainLoss.back());
  }
  // val/loss: the best value is not the last one.
  const double val[] = {3.0, 2.5, 2.2, 2.4, 2.3};
  for (int i = 0; i < 5; ++i) {
    run.valLoss.push_back(val[i] + offset);
    w.metric("val/loss", (i + 1) * 10, (i + 1) * 10 * 1024, (i + 1) * 1000, run.valLoss.back());
  }
  run.bestVal = 2.2 + offset;
  run.bestValStep = 30;
  run.mixerFirst = {0.34f, 0.33f, 0.33f, 0.30f, 0.40f, 0.30f};
  run.mixerLast = {0.60f, 0.20f, 0.20f, 0.10f, float(0.70 - offset), float(0.20 + offset)};
  w.mixer({10, 2, 3, run.mixerFirst});
  w.mixer({50, 2, 3, run.mixerLast});
  for (std::int64_t t : {64, 128, 256}) w.eval({50, "mqar", t, "accuracy", 0.9 - 0.001 * double(t) - offset});
  w.eval({50, "valid", 0, "loss", 2.3 + offset});  // not a length sweep: left out of the Length tab
  w.perf({128, 8, 5000.0 - 1000.0 * offset, static_cast<std::int64_t>(1e8 * (1 + offset)), "cpu", "train", "test"});
  w.finish(ps::RunStatus::Finished);
}

}  // namespace

CompareFixture::CompareFixture() {
  QDir(m_dir.path()).mkpath("alpha");
  QDir(m_dir.path()).mkpath("beta");
  nlohmann::json model = pha::model::to_json(pha::model::preset("pha-tiny"));
  a.name = "run-a";
  a.config = {{"model", model}, {"train", {{"lr", 0.001}, {"steps", 50}}}, {"data", {{"source", "tiny"}}}};
  a.nParams = 100000;
  b.name = "run-b";
  b.config = a.config;
  b.config["model"]["d_model"] = model["d_model"].get<int>() * 2;
  b.config["train"]["lr"] = 0.002;
  b.config["data"]["shuffle"] = true;
  b.nParams = 300000;
  writeRun(m_dir.path() + "/alpha/runs.sqlite", "alpha", a, 0.0);
  writeRun(m_dir.path() + "/beta/runs.sqlite", "beta", b, 0.1);
  a.storePath = m_dir.path() + "/alpha/runs.sqlite";
  b.storePath = m_dir.path() + "/beta/runs.sqlite";
}
