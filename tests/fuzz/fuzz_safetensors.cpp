// libFuzzer target: the safetensors reader (engine/nn/safetensors.cpp). The input is a whole
// file. Oracle: only core::Error on bad input; an accepted header tiles the data section exactly,
// and load_safetensors gives the header's tensors holding exactly the file's bytes.
#include <cstring>

#include "fuzz_support.h"
#include "nn/safetensors.h"


extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pha::fuzz::MemFile file(data, size);
  pha::fuzz::only_pha_errors([&] {
    const pha::nn::SafetensorsHeader h = pha::nn::read_safetensors_header(file.path());
    FUZZ_CHECK(8 + h.header_size + h.data_size == size);
    uint64_t at = 0;
    for (const auto& e : h.entries) {
      FUZZ_CHECK(e.begin == at && e.end >= e.begin);
      at = e.end;
    }
    FUZZ_CHECK(at == h.data_size);

    const pha::nn::SafetensorsFile f = pha::nn::load_safetensors(file.path());
    FUZZ_CHECK(f.metadata == h.metadata);
    FUZZ_CHECK(f.tensors.size() == h.entries.size());
    const uint8_t* payload = data + 8 + h.header_size;
    for (const auto& e : h.entries) {
      const at::Tensor& t = f.tensors.at(e.name);
      FUZZ_CHECK(t.scalar_type() == pha::nn::scalar_type_from_safetensors(e.dtype));
      FUZZ_CHECK(t.sizes().vec() == e.shape);
      const size_t bytes = static_cast<size_t>(e.end - e.begin);
      FUZZ_CHECK(static_cast<size_t>(t.numel()) * t.element_size() == bytes);
      FUZZ_CHECK(bytes == 0 || std::memcmp(t.data_ptr(), payload + e.begin, bytes) == 0);
    }
  });
  return 0;
}
