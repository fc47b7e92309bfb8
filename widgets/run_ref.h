// One saved run: the store file it lives in and its id there (what a view's line or row
// stands for).
#pragma once

#include <QString>
#include <QtGlobal>

namespace pha::widgets {

struct RunRef {
  QString storePath;
  qint64 runId = 0;
};

}  // namespace pha::widgets
