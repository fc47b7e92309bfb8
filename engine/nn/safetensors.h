// Safetensors files (the Hugging Face format; docs/safetensors.md): an 8-byte little-endian
// header length N, N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__": {..}}
// padded with spaces to 8-byte alignment, then the raw little-endian tensor data, contiguous.
// Files are written atomically (temp file, fsync, rename); the reader checks everything and
// throws core::Error naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace pha::nn {

using TensorMap = std::map<std::string, at::Tensor>;
using Metadata = std::map<std::string, std::string>;

// Supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL. Throws core::Error for anything else.
std::string safetensors_dtype(at::ScalarType type);
at::ScalarType scalar_type_from_safetensors(const std::string& dtype);  // throws on unknown names
int64_t safetensors_dtype_size(const std::string& dtype);             // bytes per element

struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data section
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  // in data order
  Metadata metadata;
  uint64_t header_size = 0;  // N (the JSON, padding included)
  uint64_t data_size = 0;
};

struct SafetensorsFile {
  TensorMap tensors;  // CPU tensors
  Metadata metadata;
};

// Writes every tensor (moved to CPU, made contiguous) in name order. Atomic: a crash leaves
// either the old file or the new one, never half of one.
void save_safetensors(const std::string& path, const TensorMap& tensors, const Metadata& metadata = {});

SafetensorsFile load_safetensors(const std::string& path);

// Header only (names, dtypes, shapes, offsets, metadata), fully validated against the file
// size; reads no tensor data.
SafetensorsHeader read_safetensors_header(const std::string& path);

}  // namespace pha::nn
