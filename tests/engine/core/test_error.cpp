#include "core/error.h"

#include <gtest/gtest.h>

TEST(Error, MessageNamesTheField) {
  pha::core::Error e("model.attention.kv_heads", "3 must divide model.attention.heads = 8");
  EXPECT_EQ(e.where(), "model.attention.kv_heads");
  EXPECT_STREQ(e.what(), "model.attention.kv_heads: 3 must divide model.attention.heads = 8");
}

TEST(Error, WithoutWhereIsTheMessageAlone) {
  pha::core::Error e("bad");
  EXPECT_TRUE(e.where().empty());
  EXPECT_STREQ(e.what(), "bad");
}
