#include "nn/decode_state.h"

#include <algorithm>

#include <c10/util/Exception.h>

namespace pha::nn {

void KvCache::append(const at::Tensor& k_new, const at::Tensor& v_new) {
  TORCH_CHECK(k_new.dim() == 4 && v_new.sizes() == k_new.sizes(),
              "KvCache::append: k and v must be (B, t, G, hd) of one shape");
  const int64_t t = k_new.size(1);
  const int64_t cap = k.defined() ? k.size(1) : 0;
  if (len + t > cap) {
    const int64_t new_cap =
        reserve >= len + t && cap < reserve ? reserve : std::max<int64_t>({len + t, 2 * cap, 16});
    auto sizes = k_new.sizes().vec();
    sizes[1] = new_cap;
    at::Tensor nk = at::empty(sizes, k_new.options());
    at::Tensor nv = at::empty(sizes, v_new.options());
    if (len > 0) {
      nk.narrow(1, 0, len).copy_(keys());
      nv.narrow(1, 0, len).copy_(values());
    }
    k = nk;
    v = nv;
  }
  k.narrow(1, len, t).copy_(k_new);
  v.narrow(1, len, t).copy_(v_new);
  len += t;
}

namespace {
int64_t bytes_of(const at::Tensor& t) { return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0; }
}  // namespace

int64_t DecodeState::kv_cache_bytes() const {
  int64_t n = 0;
  for (const auto& layer : layers)
    for (const auto& s : layer) n += bytes_of(s.kv.k) + bytes_of(s.kv.v);
  return n;
}

int64_t DecodeState::gss_state_bytes() const {
  int64_t n = 0;
  for (const auto& layer : layers)
    for (const auto& s : layer)
      n += bytes_of(s.gss.s_re) + bytes_of(s.gss.s_im) + bytes_of(s.s6.conv) + bytes_of(s.s6.h);
  return n;
}

void DecodeState::reset() {
  position = 0;
  for (auto& layer : layers) {
    for (auto& s : layer) {
      const int64_t reserve = s.kv.reserve;
      s = SublayerState{};
      s.kv.reserve = reserve;
    }
  }
}

}  // namespace pha::nn
