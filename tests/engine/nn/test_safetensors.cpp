// Safetensors: round trip for every dtype, an independent minimal reader (written here, not
// the engine's) that parses the engine's files, corrupt and truncated files rejected with the
// file named; a refused write leaves the old file (the atomic writer: tests/engine/core).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "nn/safetensors.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pha::nn;

namespace {

class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("pha_test_st_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t count() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path_), {})); }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A file from a raw header text and data bytes (for hand-made corrupt files).
std::string raw_file(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

pha::nn::TensorMap sample_tensors() {
  at::manual_seed(1);
  pha::nn::TensorMap m;
  m["f32"] = at::randn({3, 4});
  m["f64.scalar"] = at::scalar_tensor(3.25, at::kDouble);
  m["f16"] = at::randn({5}).to(at::kHalf);
  m["bf16"] = at::randn({2, 3, 4}).to(at::kBFloat16);
  m["i64"] = at::arange(-3, 4, at::kLong);
  m["i32"] = at::tensor({1 << 30, -7, 0, 5}, at::kInt).reshape({2, 2});
  m["i16"] = at::tensor({-300, 300}, at::kShort);
  m["i8"] = at::tensor({-128, 127, 0}, at::kChar);
  m["u8.empty"] = at::empty({0, 3}, at::kByte);
  m["u8"] = at::tensor({0, 255, 17}, at::kByte);
  m["bool"] = at::tensor({1, 0, 0, 1}, at::kByte).to(at::kBool);
  m["transposed"] = at::arange(6, at::kFloat).reshape({2, 3}).t();  // not contiguous
  return m;
}

// The Error's where() when `f` throws core::Error; "" when it does not throw.
std::string error_where(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const pha::core::Error& e) {
    if (message) *message = e.what();
    return e.where();
  }
  return "";
}

}  // namespace

TEST(Safetensors, RoundTripEveryDtypeAndShape) {
  TempDir dir;
  const std::string path = dir.file("t.safetensors");
  pha::nn::TensorMap in = sample_tensors();
  pha::nn::Metadata meta = {{"format", "pt"}, {"note", "ünïcode, \"quotes\""}};
  pha::nn::save_safetensors(path, in, meta);
  pha::nn::SafetensorsFile out = pha::nn::load_safetensors(path);
  EXPECT_EQ(out.metadata, meta);
  ASSERT_EQ(out.tensors.size(), in.size());
  for (const auto& [name, t] : in) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(out.tensors.count(name));
    const at::Tensor& r = out.tensors.at(name);
    EXPECT_EQ(r.scalar_type(), t.scalar_type());
    EXPECT_EQ(r.sizes(), t.sizes());
    EXPECT_TRUE(r.is_contiguous());
    EXPECT_TRUE(at::equal(r, t));
  }
  EXPECT_EQ(dir.count(), 1u);  // no temporary file left behind
}

TEST(Safetensors, IndependentReaderParsesTheEngineFile) {
  TempDir dir;
  const std::string path = dir.file("t.safetensors");
  pha::nn::TensorMap in = sample_tensors();
  pha::nn::save_safetensors(path, in, {{"k", "v"}});
  const std::string bytes = read_bytes(path);

  // Minimal reader after the format description, independent of the engine code.
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  ASSERT_LE(8 + n, bytes.size());
  EXPECT_EQ((8 + n) % 8, 0u) << "data must start 8-byte aligned";
  const std::string header_text = bytes.substr(8, n);
  EXPECT_EQ(header_text.find_last_not_of(' ') + 1, header_text.find_last_of('}') + 1) << "padding is spaces";
  const json header = json::parse(header_text);
  const std::map<std::string, int> sizes = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                            {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      EXPECT_EQ(item.value(), json({{"k", "v"}}));
      continue;
    }
    SCOPED_TRACE(item.key());
    ASSERT_TRUE(in.count(item.key()));
    const at::Tensor t = in.at(item.key()).contiguous();
    const auto& v = item.value();
    EXPECT_EQ(v.size(), 3u);
    ASSERT_TRUE(sizes.count(v.at("dtype").get<std::string>()));
    std::vector<int64_t> shape = v.at("shape").get<std::vector<int64_t>>();
    EXPECT_EQ(shape, t.sizes().vec());
    uint64_t numel = 1;
    for (int64_t d : shape) numel *= static_cast<uint64_t>(d);
    auto offs = v.at("data_offsets").get<std::vector<uint64_t>>();
    ASSERT_EQ(offs.size(), 2u);
    EXPECT_EQ(offs[1] - offs[0], numel * sizes.at(v.at("dtype").get<std::string>()));
    spans.emplace_back(offs[0], offs[1]);
    // The bytes in the file are the tensor's little-endian bytes.
    ASSERT_LE(8 + n + offs[1], bytes.size());
    // An empty tensor has no storage (data_ptr() is null): memcmp must not see it, even for 0 bytes.
    if (offs[1] > offs[0]) {
      EXPECT_EQ(std::memcmp(bytes.data() + 8 + n + offs[0], t.data_ptr(), offs[1] - offs[0]), 0);
    }
  }
  EXPECT_EQ(spans.size(), in.size());
  std::sort(spans.begin(), spans.end());
  uint64_t at_byte = 0;
  for (const auto& [b, e] : spans) {
    EXPECT_EQ(b, at_byte) << "offsets must be contiguous";
    at_byte = e;
  }
  EXPECT_EQ(8 + n + at_byte, bytes.size()) << "no trailing bytes";
}

TEST(Safetensors, HeaderOnlyReadGivesEntriesInDataOrder) {
  TempDir dir;
  const std::string path = dir.file("t.safetensors");
  pha::nn::save_safetensors(path, sample_tensors());
  pha::nn::SafetensorsHeader h = pha::nn::read_safetensors_header(path);
  EXPECT_EQ(h.entries.size(), sample_tensors().size());
  EXPECT_TRUE(h.metadata.empty());
  EXPECT_EQ(h.header_size % 8, 0u);
  uint64_t pos = 0;
  for (const auto& e : h.entries) {
    EXPECT_EQ(e.begin, pos);
    pos = e.end;
  }
  EXPECT_EQ(pos, h.data_size);
}

TEST(Safetensors, CorruptAndTruncatedFilesNameTheFile) {
  TempDir dir;
  const std::string good_path = dir.file("good.safetensors");
  pha::nn::save_safetensors(good_path, {{"a", at::ones({2, 2})}, {"b", at::zeros({3}, at::kLong)}}, {{"m", "x"}});
  const std::string good = read_bytes(good_path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[i]);
  const std::string header = good.substr(8, n), data = good.substr(8 + n);

  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string h = header;
    auto pos = h.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    h.replace(pos, from.size(), to);
    return raw_file(h, data);
  };
  struct Case {
    std::string what, bytes, expected;
  };
  const std::vector<Case> cases = {
      {"empty file", "", "shorter than the 8-byte header length"},
      {"shorter than the length", good.substr(0, 5), "shorter than the 8-byte header length"},
      {"truncated header", good.substr(0, 8 + n / 2), "exceeds the 72 bytes after it"},
      {"truncated data", good.substr(0, good.size() - 1),
       "truncated safetensors file: the header describes 40 data bytes, the file holds 39"},
      {"trailing bytes", good + "xxxxxxxx", "the file holds 48"},
      {"huge header length", le64(1ull << 60) + good.substr(8), "is outside 2 to 100000000"},
      {"zero header length", le64(0) + good.substr(8), "header length 0 is outside"},
      {"not json", raw_file(std::string(header.size(), '#'), data), "not valid JSON"},
      {"not an object", raw_file("[1, 2]", ""), "expected a JSON object"},
      {"unknown dtype", replaced("\"F32\"", "\"F31\""), "unsupported dtype \"F31\""},
      {"shape disagrees with offsets", replaced("[2,2]", "[2,3]"), "span 16 bytes; dtype F32 and shape need 24"},
      {"negative shape", replaced("[2,2]", "[-2,2]"), "non-negative integers"},
      {"offset gap", raw_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})", "xxx"),
       "tensor \"a\" starts at byte 1 of the data, expected 0"},
      {"overlap",
       raw_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                "xxx"),
       "tensor \"b\" starts at byte 1 of the data, expected 2"},
      {"duplicate name",
       raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                "xx"),
       "duplicate key \"a\""},
      {"metadata not strings", raw_file(R"({"__metadata__":{"k":1}})", ""), "__metadata__ value \"k\" is not a string"},
      {"missing field", raw_file(R"({"a":{"dtype":"U8","shape":[1]}})", "x"), "\"data_offsets\" must be [begin, end]"},
      {"extra field", raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":0}})", "x"),
       "unknown field \"x\""},
      {"bad bool byte",
       raw_file(R"({"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x07", 2)),
       "holds byte 7"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string path = dir.file("bad.safetensors");
    write_bytes(path, c.bytes);
    std::string message;
    EXPECT_EQ(error_where([&] { pha::nn::load_safetensors(path); }, &message), path) << message;
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_EQ(error_where([&] { pha::nn::read_safetensors_header(path); }), c.what == "bad bool byte" ? "" : path);
  }
  // The unmodified bytes, written the same way, load: the cases fail for their own reason.
  write_bytes(dir.file("copy.safetensors"), raw_file(header, data));
  EXPECT_NO_THROW(pha::nn::load_safetensors(dir.file("copy.safetensors")));
  EXPECT_EQ(error_where([&] { pha::nn::load_safetensors(dir.file("missing.safetensors")); }), dir.file("missing.safetensors"));
}

TEST(Safetensors, UnsupportedDtypeFailsBeforeTouchingTheFile) {
  TempDir dir;
  const std::string path = dir.file("t.safetensors");
  pha::nn::save_safetensors(path, {{"old", at::ones({1})}});
  const std::string before = read_bytes(path);
  std::string message;
  EXPECT_EQ(error_where([&] { pha::nn::save_safetensors(path, {{"z", at::ones({2}, at::kComplexFloat)}}); }, &message), path);
  EXPECT_NE(message.find("tensor \"z\""), std::string::npos) << message;
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(dir.count(), 1u);
}
