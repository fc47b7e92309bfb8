// Two saved runs in two different project stores, written through pha::store exactly as the
// trainer writes them: metrics, mixer snapshots, evals over sequence lengths, perf rows.
// The expected numbers are the ones written here.
#pragma once

#include <QString>
#include <QTemporaryDir>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

struct WrittenRun {
  QString storePath;
  std::int64_t id = 0;
  std::string name;
  nlohmann::json config;
  std::int64_t nParams = 0;
  std::vector<double> trainLoss;  // at steps 0..n-1
  std::vector<double> valLoss;    // at steps 10, 20, ...
  double bestVal = 0.0;
  std::int64_t bestValStep = 0;
  std::vector<float> mixerFirst;  // 2 x 3 at step 10
  std::vector<float> mixerLast;   // 2 x 3 at step 50
};

class CompareFixture {
 public:
  CompareFixture();
  QString dir() const { return m_dir.path(); }

  WrittenRun a;  // projects/alpha/runs.sqlite: pha-tiny, fewer parameters, better val/loss
  WrittenRun b;  // projects/beta/runs.sqlite: d_model doubled, another lr, one extra data key

 private:
  QTemporaryDir m_dir;
};
