// The precompiled header of the torch targets (cmake/PhaPch.cmake): the LibTorch headers our
// engine and kernel files include, and the standard and JSON headers nearly all of them use.
// Every file still includes what it uses; this header only makes parsing it cheap.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/optim/adamw.h>
#include <torch/types.h>
