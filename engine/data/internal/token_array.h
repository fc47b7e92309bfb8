// A read-only array of token ids stored as uint16 (vocabularies up to 65536) or uint32, either
// memory-mapped from a token cache file or held in memory. Cheap to copy (shared ownership).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace pha::data {

class TokenArray {
 public:
  TokenArray() = default;
  // Narrow `ids` to the smallest width that holds vocab_size ids, in memory.
  static TokenArray from_ids(const std::vector<int32_t>& ids, int32_t vocab_size);
  // A view on `data` (width 2 or 4 bytes) kept alive by `owner`.
  TokenArray(std::shared_ptr<const void> owner, const void* data, size_t size, int width)
      : owner_(std::move(owner)), data_(data), size_(size), width_(width) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int width() const { return width_; }  // bytes per id
  const void* data() const { return data_; }

  int32_t operator[](size_t i) const {
    return width_ == 2 ? static_cast<int32_t>(static_cast<const uint16_t*>(data_)[i])
                       : static_cast<int32_t>(static_cast<const uint32_t*>(data_)[i]);
  }
  // out[0..n) = ids [begin, begin + n)
  void copy(size_t begin, size_t n, int32_t* out) const {
    if (width_ == 2) {
      const auto* p = static_cast<const uint16_t*>(data_) + begin;
      for (size_t i = 0; i < n; ++i) out[i] = p[i];
    } else {
      const auto* p = static_cast<const uint32_t*>(data_) + begin;
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(p[i]);
    }
  }
  std::vector<int32_t> to_vector() const {
    std::vector<int32_t> v(size_);
    copy(0, size_, v.data());
    return v;
  }

 private:
  std::shared_ptr<const void> owner_;
  const void* data_ = nullptr;
  size_t size_ = 0;
  int width_ = 2;
};

inline int token_width_for(int32_t vocab_size) { return vocab_size <= 65536 ? 2 : 4; }

inline TokenArray TokenArray::from_ids(const std::vector<int32_t>& ids, int32_t vocab_size) {
  const int w = token_width_for(vocab_size);
  auto buf = std::shared_ptr<unsigned char[]>(new unsigned char[ids.size() * static_cast<size_t>(w) + 1]);
  if (w == 2) {
    for (size_t i = 0; i < ids.size(); ++i) {
      uint16_t x = static_cast<uint16_t>(ids[i]);
      std::memcpy(buf.get() + 2 * i, &x, 2);
    }
  } else {
    for (size_t i = 0; i < ids.size(); ++i) {
      uint32_t x = static_cast<uint32_t>(ids[i]);
      std::memcpy(buf.get() + 4 * i, &x, 4);
    }
  }
  const void* data = buf.get();
  return TokenArray(std::shared_ptr<const void>(buf, data), data, ids.size(), w);
}

}  // namespace pha::data
