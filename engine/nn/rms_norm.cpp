#include "nn/internal/rms_norm.h"

#include <c10/util/Exception.h>

#include "llama_ops/llama_ops.h"

namespace pha::nn {

RMSNormImpl::RMSNormImpl(int64_t dim, double eps) : dim_(dim), eps_(eps) {
  TORCH_CHECK(dim >= 1, "RMSNorm: dim must be >= 1, got ", dim);
  weight = register_parameter("weight", at::ones({dim}));
}

at::Tensor RMSNormImpl::forward(const at::Tensor& x) {
  TORCH_CHECK(x.size(-1) == dim_, "RMSNorm: last dim must be ", dim_, ", got ", x.sizes());
  return pha::kernels::rms_norm(x, weight, eps_);  // (..., dim): kernels/llama_ops
}

}  // namespace pha::nn
