// src/nn/onednn.h: engine, dtype mapping and errors, the primitive cache.
#include "nn/onednn.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace asc::nn {
namespace {

TEST(OneDnn, DtypeMappingAndErrors) {
  EXPECT_EQ(to_dnnl(DType::kFloat32, "t"), dnnl::memory::data_type::f32);
  EXPECT_EQ(to_dnnl(DType::kBFloat16, "t"), dnnl::memory::data_type::bf16);
  EXPECT_TRUE(dnnl_supported(DType::kFloat16));
  EXPECT_FALSE(dnnl_supported(DType::kFloat64));
  try {
    to_dnnl(DType::kFloat64, "conv2d");
    FAIL() << "float64 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidDtype);
    EXPECT_NE(e.message().find("[conv2d]"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("float64"), std::string::npos) << e.message();
  }
}

TEST(OneDnn, StridedDescriptor) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::kFloat32);
  dnnl::memory::desc d = desc_of(t, "t");
  EXPECT_EQ(d.get_size(), 2u * 3 * 4 * 4);
  EXPECT_NO_THROW(cpu_engine());
  EXPECT_NO_THROW(thread_stream());
}

TEST(OneDnn, GuardedTranslatesErrors) {
  try {
    guarded("pool", [] { throw dnnl::error(dnnl_unimplemented, "no implementation"); });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kApiNotSupport);
    EXPECT_NE(e.message().find("[pool] oneDNN"), std::string::npos) << e.message();
  }
}

TEST(OneDnn, CacheMakesOncePerKeyAcrossThreads) {
  PrimitiveCache& c = PrimitiveCache::instance();
  c.clear();
  std::atomic<int> made{0};
  auto make = [&]() -> std::shared_ptr<const int> {
    made.fetch_add(1);
    return std::make_shared<const int>(42);
  };
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    ts.emplace_back([&] {
      for (int k = 0; k < 100; ++k) {
        if (*c.get<int>("key", make) == 42) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), 400);
  EXPECT_LE(made.load(), 4);  // planned at most once per racing thread, then always hits
  EXPECT_GE(c.stats().hits, 396);
  EXPECT_EQ(c.stats().size, 1);
}

}  // namespace
}  // namespace asc::nn
