// Safetensors writer and validating reader; files land through core/atomic_file.h.
#include "nn/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors stores little-endian data; this writer copies memory as it is");

namespace pha::nn {

using nlohmann::json;

namespace {

// The reference implementation's limit: a larger header is a corrupt (or hostile) file.
constexpr uint64_t kMaxHeaderSize = 100ull * 1000 * 1000;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeInfo {
  const char* name;
  at::ScalarType type;
  int64_t size;
};

const DtypeInfo kDtypes[] = {
    {"F64", at::kDouble, 8}, {"F32", at::kFloat, 4}, {"F16", at::kHalf, 2},  {"BF16", at::kBFloat16, 2},
    {"I64", at::kLong, 8},   {"I32", at::kInt, 4},   {"I16", at::kShort, 2}, {"I8", at::kChar, 1},
    {"U8", at::kByte, 1},    {"BOOL", at::kBool, 1},
};

uint64_t read_le64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Parses the header JSON, rejecting duplicate keys (which nlohmann would silently merge).
json parse_header(const std::string& text, const std::string& file) {
  std::vector<std::set<std::string>> keys;
  auto callback = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
      throw core::Error(file, "corrupt safetensors header: duplicate key \"" + parsed.get<std::string>() + "\"");
    }
    return true;
  };
  try {
    return json::parse(text, callback);
  } catch (const json::exception& e) {
    throw core::Error(file, std::string("corrupt safetensors header: not valid JSON (") + e.what() + ")");
  }
}

SafetensorsEntry parse_entry(const std::string& name, const json& v, const std::string& file) {
  auto bad = [&](const std::string& what) {
    return core::Error(file, "corrupt safetensors header: tensor \"" + name + "\": " + what);
  };
  if (name.empty()) throw core::Error(file, "corrupt safetensors header: empty tensor name");
  if (!v.is_object()) throw bad("expected an object {dtype, shape, data_offsets}");
  for (const auto& item : v.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets") {
      throw bad("unknown field \"" + item.key() + "\"");
    }
  }
  if (!v.contains("dtype") || !v["dtype"].is_string()) throw bad("missing or non-string \"dtype\"");
  if (!v.contains("shape") || !v["shape"].is_array()) throw bad("missing or non-array \"shape\"");
  if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2) {
    throw bad("\"data_offsets\" must be [begin, end]");
  }
  SafetensorsEntry e;
  e.name = name;
  e.dtype = v["dtype"].get<std::string>();
  int64_t elem = 0;
  for (const auto& d : kDtypes) {
    if (e.dtype == d.name) elem = d.size;
  }
  if (elem == 0) throw bad("unsupported dtype \"" + e.dtype + "\"");
  uint64_t numel = 1;
  for (const auto& dim : v["shape"]) {
    if (!dim.is_number_unsigned()) throw bad("shape entries must be non-negative integers");
    uint64_t n = dim.get<uint64_t>();
    if (n > uint64_t(std::numeric_limits<int64_t>::max()) || (n != 0 && numel > (1ull << 62) / n)) {
      throw bad("shape is too large");
    }
    numel *= n;
    e.shape.push_back(static_cast<int64_t>(n));
  }
  for (const auto& o : v["data_offsets"]) {
    if (!o.is_number_unsigned()) throw bad("data_offsets must be non-negative integers");
  }
  e.begin = v["data_offsets"][0].get<uint64_t>();
  e.end = v["data_offsets"][1].get<uint64_t>();
  if (e.end < e.begin) throw bad("data_offsets end < begin");
  if (numel > (1ull << 62) / uint64_t(elem) || e.end - e.begin != numel * uint64_t(elem)) {
    throw bad("data_offsets span " + std::to_string(e.end - e.begin) + " bytes; dtype " + e.dtype + " and shape need " +
              std::to_string(numel * uint64_t(elem)));
  }
  return e;
}

SafetensorsHeader parse_and_check(std::ifstream& in, const std::string& file) {
  in.seekg(0, std::ios::end);
  const uint64_t file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  if (file_size < 8) {
    throw core::Error(file, "truncated safetensors file: " + std::to_string(file_size) +
                          " bytes, shorter than the 8-byte header length");
  }
  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  SafetensorsHeader h;
  h.header_size = read_le64(len_bytes);
  if (h.header_size < 2 || h.header_size > kMaxHeaderSize) {
    throw core::Error(file, "corrupt safetensors file: header length " + std::to_string(h.header_size) + " is outside 2 to " +
                          std::to_string(kMaxHeaderSize));
  }
  if (h.header_size > file_size - 8) {
    throw core::Error(file, "truncated safetensors file: header length " + std::to_string(h.header_size) + " exceeds the " +
                          std::to_string(file_size - 8) + " bytes after it");
  }
  std::string text(h.header_size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in) throw core::Error(file, "cannot read the safetensors header");
  const json j = parse_header(text, file);
  if (!j.is_object()) throw core::Error(file, "corrupt safetensors header: expected a JSON object");
  for (const auto& item : j.items()) {
    if (item.key() == kMetadataKey) {
      if (!item.value().is_object()) throw core::Error(file, "corrupt safetensors header: __metadata__ must be an object");
      for (const auto& m : item.value().items()) {
        if (!m.value().is_string()) {
          throw core::Error(file, "corrupt safetensors header: __metadata__ value \"" + m.key() + "\" is not a string");
        }
        h.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    h.entries.push_back(parse_entry(item.key(), item.value(), file));
  }
  std::sort(h.entries.begin(), h.entries.end(),
            [](const auto& a, const auto& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  h.data_size = file_size - 8 - h.header_size;
  uint64_t expected = 0;
  for (const auto& e : h.entries) {
    if (e.begin != expected) {
      throw core::Error(file, "corrupt safetensors header: tensor \"" + e.name + "\" starts at byte " +
                            std::to_string(e.begin) + " of the data, expected " + std::to_string(expected) +
                            " (offsets must be contiguous, without gaps or overlaps)");
    }
    expected = e.end;
  }
  if (expected != h.data_size) {
    throw core::Error(file, std::string(expected > h.data_size ? "truncated" : "corrupt") +
                          " safetensors file: the header describes " + std::to_string(expected) +
                          " data bytes, the file holds " + std::to_string(h.data_size));
  }
  return h;
}

}  // namespace

std::string safetensors_dtype(at::ScalarType type) {
  for (const auto& d : kDtypes) {
    if (d.type == type) return d.name;
  }
  throw core::Error(std::string("dtype ") + c10::toString(type) +
              " cannot be stored in safetensors; allowed: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL");
}

at::ScalarType scalar_type_from_safetensors(const std::string& dtype) {
  for (const auto& d : kDtypes) {
    if (dtype == d.name) return d.type;
  }
  throw core::Error("unknown safetensors dtype \"" + dtype + "\"");
}

int64_t safetensors_dtype_size(const std::string& dtype) {
  for (const auto& d : kDtypes) {
    if (dtype == d.name) return d.size;
  }
  throw core::Error("unknown safetensors dtype \"" + dtype + "\"");
}

// ---- write / read -------------------------------------------------------------------------

void save_safetensors(const std::string& path, const TensorMap& tensors, const Metadata& metadata) {
  json header = json::object();
  std::vector<at::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() || name == kMetadataKey) throw core::Error(path, "invalid tensor name \"" + name + "\"");
    if (!tensor.defined()) throw core::Error(path, "tensor \"" + name + "\" is undefined");
    if (tensor.layout() != at::kStrided) throw core::Error(path, "tensor \"" + name + "\" is not dense");
    std::string dtype;
    try {
      dtype = safetensors_dtype(tensor.scalar_type());
    } catch (const core::Error& e) {
      throw core::Error(path, "tensor \"" + name + "\": " + e.what());
    }
    at::Tensor t = tensor.detach().to(at::kCPU).contiguous();
    const uint64_t bytes = static_cast<uint64_t>(t.numel()) * static_cast<uint64_t>(t.element_size());
    header[name] = {{"dtype", dtype}, {"shape", t.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(std::move(t));
  }
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(uint64_t(text.size()) >> (8 * i));

  core::AtomicFileWriter out(path);
  out.write(len, 8);
  out.write(text.data(), text.size());
  for (const auto& t : data) out.write(t.data_ptr(), static_cast<size_t>(t.numel()) * t.element_size());
  out.commit();
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(path, "cannot open the safetensors file");
  return parse_and_check(in, path);
}

SafetensorsFile load_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(path, "cannot open the safetensors file");
  SafetensorsHeader h = parse_and_check(in, path);
  SafetensorsFile out;
  out.metadata = std::move(h.metadata);
  in.seekg(static_cast<std::streamoff>(8 + h.header_size));
  for (const auto& e : h.entries) {  // in data order: one sequential pass
    at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(scalar_type_from_safetensors(e.dtype)));
    in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(e.end - e.begin));
    if (!in) throw core::Error(path, "truncated safetensors file while reading tensor \"" + e.name + "\"");
    if (e.dtype == "BOOL") {  // any byte but 0 and 1 is not a bool
      const auto* b = static_cast<const unsigned char*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (b[i] > 1)
          throw core::Error(path,
                      "corrupt safetensors data: BOOL tensor \"" + e.name + "\" holds byte " + std::to_string(b[i]));
      }
    }
    out.tensors.emplace(e.name, std::move(t));
  }
  return out;
}

}  // namespace pha::nn
