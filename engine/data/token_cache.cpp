#include "data/token_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/error.h"
#include "data/file_io.h"
#include "data/hash.h"

namespace fs = std::filesystem;

namespace pha::data {

namespace {

constexpr char kMagic[8] = {'P', 'H', 'A', 'T', 'O', 'K', 'E', 'N'};

struct Header {  // 64 bytes, little-endian host layout
  char magic[8];
  uint32_t version;
  uint32_t width;
  uint64_t count;
  uint64_t text_bytes;
  uint64_t key_length;
  uint64_t data_offset;
  uint64_t checksum;  // of the header with this field zero, the key and the ids
  uint64_t reserved;
};
static_assert(sizeof(Header) == 64, "cache header layout");

uint64_t file_checksum(Header h, const char* key, size_t key_len, const void* ids, size_t id_bytes) {
  h.checksum = 0;
  uint64_t a = checksum64(&h, sizeof(h));
  uint64_t b = checksum64(key, key_len);
  uint64_t c = checksum64(ids, id_bytes);
  return a ^ (b * 0x9E3779B97F4A7C15ull) ^ ((c << 1 | c >> 63) * 0xC2B2AE3D27D4EB4Full);
}

struct Mapping {
  void* addr = nullptr;
  size_t length = 0;
  ~Mapping() {
    if (addr) ::munmap(addr, length);
  }
};

}  // namespace

TokenCache::TokenCache(fs::path dir) : dir_(std::move(dir)) {}

fs::path TokenCache::path_for(const nlohmann::json& name_key, const std::string& name_hint) const {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(fnv1a64(name_key.dump())));
  return dir_ / (name_hint + "-" + hex + ".tok");
}

std::optional<CachedSplit> TokenCache::open(const fs::path& file, const nlohmann::json& key, std::string* why) const {
  auto fail = [&](const std::string& reason) -> std::optional<CachedSplit> {
    if (why) *why = reason;
    return std::nullopt;
  };
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("absent");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Header))) {
    ::close(fd);
    return fail("corrupt: shorter than the header");
  }
  auto map = std::make_shared<Mapping>();
  map->length = static_cast<size_t>(st.st_size);
  map->addr = ::mmap(nullptr, map->length, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map->addr == MAP_FAILED) {
    map->addr = nullptr;
    return fail("corrupt: cannot map");
  }
  const auto* base = static_cast<const char*>(map->addr);
  Header h;
  std::memcpy(&h, base, sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) return fail("corrupt: bad magic");
  if (h.version != kTokenCacheVersion) return fail("stale: format version " + std::to_string(h.version));
  if (h.width != 2 && h.width != 4) return fail("corrupt: bad id width");
  // Each size is bounded by the file length before it is added or multiplied, so no sum wraps
  // around (a key length near 2^64 once passed the check and the checksum read past the map).
  const uint64_t length = map->length;
  if (h.key_length > length - sizeof(Header) || h.data_offset < sizeof(Header) + h.key_length ||
      h.data_offset > length || h.data_offset % 8 != 0 || h.count > (length - h.data_offset) / h.width ||
      h.data_offset + h.count * h.width != length)
    return fail("corrupt: sizes do not match the file");
  const char* key_ptr = base + sizeof(Header);
  const void* ids = base + h.data_offset;
  if (file_checksum(h, key_ptr, h.key_length, ids, h.count * h.width) != h.checksum)
    return fail("corrupt: checksum mismatch");
  if (std::string_view(key_ptr, h.key_length) != key.dump()) return fail("stale: corpus or tokenizer changed");
  CachedSplit out;
  out.tokens = TokenArray(std::shared_ptr<const void>(map, map->addr), ids, h.count, static_cast<int>(h.width));
  out.text_bytes = h.text_bytes;
  out.path = file;
  return out;
}

CachedSplit TokenCache::write(const fs::path& file, const nlohmann::json& key, const std::vector<int32_t>& ids,
                              int32_t vocab_size, uint64_t text_bytes) const {
  const std::string key_text = key.dump();
  const int width = token_width_for(vocab_size);
  std::string data(ids.size() * static_cast<size_t>(width), '\0');
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size) throw core::Error(file.string(), "token id out of range while caching");
    if (width == 2) {
      uint16_t x = static_cast<uint16_t>(ids[i]);
      std::memcpy(&data[2 * i], &x, 2);
    } else {
      uint32_t x = static_cast<uint32_t>(ids[i]);
      std::memcpy(&data[4 * i], &x, 4);
    }
  }
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kTokenCacheVersion;
  h.width = static_cast<uint32_t>(width);
  h.count = ids.size();
  h.text_bytes = text_bytes;
  h.key_length = key_text.size();
  h.data_offset = (sizeof(Header) + key_text.size() + 7) / 8 * 8;
  h.checksum = file_checksum(h, key_text.data(), key_text.size(), data.data(), data.size());
  const std::string pad(h.data_offset - sizeof(Header) - key_text.size(), '\0');
  core::write_file_atomic(file, {std::string_view(reinterpret_cast<const char*>(&h), sizeof(h)), key_text, pad, data});
  std::string why;
  auto opened = open(file, key, &why);
  if (!opened) throw core::Error(file.string(), "token cache written but cannot be read back: " + why);
  return *opened;
}

}  // namespace pha::data
