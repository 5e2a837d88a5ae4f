#include <gtest/gtest.h>

#include <string>

#include "asc/kernel/simd.h"

// The target picked at run time is one of the targets compiled into libasc.
TEST(SimdInfo, SelectedTargetIsCompiled) {
  const std::string compiled = asc::kernel::simd::compiled_targets();
  const std::string selected = asc::kernel::simd::target_name();
  ASSERT_FALSE(compiled.empty());
  ASSERT_FALSE(selected.empty());
  EXPECT_NE((" " + compiled + " ").find(" " + selected + " "), std::string::npos) << compiled << " / " << selected;
}
