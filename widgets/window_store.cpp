#include "widgets/window_store.h"

namespace pha::widgets {

store::OpenOptions windowReadOptions() {
  store::OpenOptions o;
  o.verify = false;
  return o;
}

}  // namespace pha::widgets
