// The OpenBLAS kernel policy's decision (core/blas_core.h): which cores it replaces, and with what.
#include <gtest/gtest.h>

#include "core/blas_core.h"

using pha::core::CpuVectorFeatures;
using pha::core::CpuVectorLevel;

namespace {
pha::core::CpuVectorFeatures cpu(pha::core::CpuVectorLevel level, bool bf16 = false) {
  pha::core::CpuVectorFeatures f;
  f.level = level;
  f.avx512_bf16 = bf16;
  return f;
}
}  // namespace

TEST(BlasCore, ReplacesTheGenericFallbackWithTheCoreForTheCpusLevel) {
  EXPECT_EQ(pha::core::better_openblas_core("Prescott", cpu(pha::core::CpuVectorLevel::Avx512, true)), "Cooperlake");
  EXPECT_EQ(pha::core::better_openblas_core("Prescott", cpu(pha::core::CpuVectorLevel::Avx512)), "SkylakeX");
  EXPECT_EQ(pha::core::better_openblas_core("Prescott", cpu(pha::core::CpuVectorLevel::Avx2)), "Haswell");
  EXPECT_EQ(pha::core::better_openblas_core("Nehalem", cpu(pha::core::CpuVectorLevel::Avx512)), "SkylakeX");
  EXPECT_EQ(pha::core::better_openblas_core("Sandybridge", cpu(pha::core::CpuVectorLevel::Avx2)), "Haswell");
  EXPECT_EQ(pha::core::better_openblas_core("prescott", cpu(pha::core::CpuVectorLevel::Avx2)), "Haswell");  // any case
}

TEST(BlasCore, KeepsAnAvx2OrNewerCoreAnUnknownNameAndAnOldCpu) {
  EXPECT_EQ(pha::core::better_openblas_core("Haswell", cpu(pha::core::CpuVectorLevel::Avx512, true)), "");
  EXPECT_EQ(pha::core::better_openblas_core("Zen", cpu(pha::core::CpuVectorLevel::Avx512)), "");
  EXPECT_EQ(pha::core::better_openblas_core("SkylakeX", cpu(pha::core::CpuVectorLevel::Avx512, true)), "");
  EXPECT_EQ(pha::core::better_openblas_core("GraniteRapids", cpu(pha::core::CpuVectorLevel::Avx512, true)), "");
  EXPECT_EQ(pha::core::better_openblas_core("", cpu(pha::core::CpuVectorLevel::Avx512)), "");
  EXPECT_EQ(pha::core::better_openblas_core("Prescott", cpu(pha::core::CpuVectorLevel::Avx)), "");
  EXPECT_EQ(pha::core::better_openblas_core("Prescott", cpu(pha::core::CpuVectorLevel::Sse)), "");
}

TEST(BlasCore, CoreLevels) {
  EXPECT_EQ(pha::core::openblas_core_level("Prescott"), 0);
  EXPECT_EQ(pha::core::openblas_core_level("Sandybridge"), 1);
  EXPECT_EQ(pha::core::openblas_core_level("HASWELL"), 2);
  EXPECT_EQ(pha::core::openblas_core_level("Cooperlake"), 3);
  EXPECT_EQ(pha::core::openblas_core_level("NoSuchCore"), -1);
}
