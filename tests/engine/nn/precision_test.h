// The device the precision tests run on: "cpu" for test_precision, "cuda" for
// test_precision_cuda (the same tests; its main exits 77, "skipped", without a GPU).
#pragma once

#include <string>

namespace pha::nn::testing {

const std::string& test_device();

}  // namespace pha::nn::testing
