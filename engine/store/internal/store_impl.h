// Internal: what a Store holds, shared by the files that implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace pha::store {

struct Store::Impl {
  std::unique_ptr<detail::Db> db;
  OpenOptions options;
  std::vector<std::int64_t> recovered;
};

namespace detail {
std::int64_t now_ms();
// The id of a metric key, or -1 when no run ever wrote it.
std::int64_t find_key_id(Db& db, const std::string& name);
}  // namespace detail

}  // namespace pha::store
