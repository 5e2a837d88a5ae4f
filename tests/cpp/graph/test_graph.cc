// Lazy graph: recording, fusion grouping, ordering hazards, caching, size
// bound, threads -- every result checked against a scalar reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/graph/graph.h"
#include "asc/ops/registry.h"

using namespace asc;
using ops::Scalar;

namespace {

Tensor iota(const Shape& shape, DType dt, double scale = 1.0, double shift = 0.0) {
  Tensor t = Tensor::empty(shape, dt);
  visit_dtype(dt, [&](auto z) {
    using T = decltype(z);
    T* p = t.data_as<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(static_cast<float>(std::fmod(i * scale, 97.0) + shift));
  });
  return t;
}

double at(const Tensor& t, int64_t i) {
  int64_t off = 0, rem = i;
  for (int64_t d = t.ndim() - 1; d >= 0; --d) {
    off += (rem % t.shape()[d]) * t.strides()[d];
    rem /= t.shape()[d];
  }
  const uint8_t* p = t.data() + off;
  return visit_dtype(t.dtype(), [&](auto z) -> double {
    using T = decltype(z);
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
    else return static_cast<double>(v);
  });
}

Tensor call(const char* op, std::vector<Tensor> in, ops::Attrs a = {}) { return ops::call(op, in, a); }
Tensor scalar(double v, DType d = DType::kFloat32) { return ops::scalar_tensor(Scalar::from_float(v), d); }

ops::Attrs axes(std::vector<int64_t> ax, bool keepdims = false) {
  ops::Attrs a;
  a.all_axes = false;
  a.axes = std::move(ax);
  a.keepdims = keepdims;
  return a;
}

struct LazyMode : ::testing::Test {
  void SetUp() override {
    graph::set_eager(false);
    graph::flush_all();
  }
  void TearDown() override { graph::flush_all(); }
};

TEST_F(LazyMode, OpsArePendingUntilObserved) {
  Tensor a = iota({1000}, DType::kFloat32), b = iota({1000}, DType::kFloat32, 3.0), c = iota({1000}, DType::kFloat32, 7.0);
  const auto before = graph::stats();
  Tensor r = call("add", {call("multiply", {a, b}), c});
  EXPECT_TRUE(r.is_pending());
  EXPECT_EQ(graph::pending_nodes(), 2);
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(at(r, i), at(a, i) * at(b, i) + at(c, i)) << i;
  EXPECT_FALSE(r.is_pending());
  const auto after = graph::stats();
  EXPECT_EQ(after.graphs_run - before.graphs_run, 1);
  EXPECT_EQ(after.groups_run - before.groups_run, 1);  // one fused tile program
  EXPECT_EQ(after.nodes_run - before.nodes_run, 2);
}

TEST_F(LazyMode, DeadIntermediatesAreDroppedAndSharedValuesComputedOnce) {
  Tensor a = iota({300}, DType::kFloat32);
  const auto before = graph::stats();
  Tensor unused = call("exp", {a});
  unused = Tensor();  // dropped before anything observed it
  Tensor e1 = call("sin", {a}), e2 = call("sin", {a});  // common subexpression
  Tensor r = call("add", {e1, e2});
  e1 = Tensor();
  e2 = Tensor();
  for (int64_t i = 0; i < 300; ++i) ASSERT_FLOAT_EQ(static_cast<float>(at(r, i)), 2 * std::sin(static_cast<float>(at(a, i))));
  const auto after = graph::stats();
  EXPECT_EQ(after.nodes_dead - before.nodes_dead, 2);  // exp, and the second sin (merged)
  EXPECT_EQ(after.nodes_run - before.nodes_run, 2);   // one sin, one add
}

TEST_F(LazyMode, BroadcastsCastsAndScalarsFuseIntoOneGroup) {
  Tensor x = iota({64, 1}, DType::kInt32), y = iota({1, 48}, DType::kFloat16, 0.5);
  const auto before = graph::stats();
  Tensor r = call("multiply", {call("add", {x, y}), scalar(2.0, DType::kFloat32)});  // int32 + f16 -> f64 (NumPy)
  ASSERT_EQ(r.shape(), (Shape{64, 48}));
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < 48; ++j) ASSERT_DOUBLE_EQ(at(r, i * 48 + j), (at(x, i) + at(y, j)) * 2.0);
  EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1);
}

TEST_F(LazyMode, ReductionsFuseAtTheGroupEnd) {
  const int64_t n = 100003;  // several tiles and a tail
  Tensor a = iota({n}, DType::kFloat32, 0.25), b = iota({n}, DType::kFloat32, 0.5);
  const auto before = graph::stats();
  Tensor s = call("sum", {call("multiply", {a, b})});
  double ref = 0;
  for (int64_t i = 0; i < n; ++i) ref += at(a, i) * at(b, i);
  EXPECT_NEAR(at(s, 0), ref, std::abs(ref) * 1e-6);
  EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1);
}

TEST_F(LazyMode, ReductionsOverEveryAxisSet) {
  Tensor x = iota({5, 6, 70}, DType::kFloat64, 1.5, -30.0);
  const std::vector<std::vector<int64_t>> sets = {{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}, {0, 1, 2}};
  for (const auto& set : sets) {
    for (const char* op : {"sum", "max", "min", "prod"}) {
      Tensor lazy = call(op, {call("multiply", {x, scalar(0.01, DType::kFloat64)})}, axes(set, true));
      graph::set_eager(true);
      Tensor eager = call(op, {call("multiply", {x, scalar(0.01, DType::kFloat64)})}, axes(set, true));
      graph::set_eager(false);
      ASSERT_EQ(lazy.shape(), eager.shape());
      for (int64_t i = 0; i < eager.numel(); ++i)
        ASSERT_NEAR(at(lazy, i), at(eager, i), 1e-9 * (1 + std::abs(at(eager, i)))) << op << " axes " << set.size();
    }
  }
}

TEST_F(LazyMode, RowSoftmaxIsOneRowFusedGroup) {
  const int64_t rows = 37, cols = 300;
  Tensor x = iota({rows, cols}, DType::kFloat32, 0.37, -10.0);
  const auto before = graph::stats();
  Tensor m = call("max", {x}, axes({1}, true));
  Tensor e = call("exp", {call("subtract", {x, m})});
  Tensor r = call("true_divide", {e, call("sum", {e}, axes({1}, true))});
  m = Tensor();
  e = Tensor();
  for (int64_t i = 0; i < rows; ++i) {
    double mx = -1e300, tot = 0;
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, at(x, i * cols + j));
    for (int64_t j = 0; j < cols; ++j) tot += std::exp(static_cast<float>(at(x, i * cols + j) - mx));
    for (int64_t j = 0; j < cols; ++j)
      ASSERT_NEAR(at(r, i * cols + j), std::exp(at(x, i * cols + j) - mx) / tot, 1e-6);
  }
  EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1);
}

TEST_F(LazyMode, WriteAfterReadKeepsTheOldValue) {
  Tensor a = iota({100}, DType::kFloat32);
  Tensor b = call("add", {a, scalar(1.0)});
  const double a0 = at(Tensor::view_of(a.storage(), a.dtype(), a.shape(), a.strides(), a.offset()), 0);  // materialises b
  EXPECT_FALSE(b.is_pending());
  Tensor c = call("multiply", {a, scalar(3.0)});  // pending reader of a
  a.slice(0, 0, 10, 1).copy_from(scalar(-5.0));   // write: c must read the old a first
  EXPECT_EQ(at(c, 0), a0 * 3.0);
  EXPECT_EQ(at(c, 50), 50 * 3.0);
  EXPECT_EQ(at(a, 0), -5.0);
  EXPECT_EQ(at(b, 0), a0 + 1.0);
}

TEST_F(LazyMode, ReadAfterWriteSeesTheNewValue) {
  Tensor a = iota({64}, DType::kFloat32);
  Tensor b = call("add", {a, scalar(1.0)});
  b.slice(0, 0, 4, 1).copy_from(scalar(100.0));  // writes into a pending result: computes it first
  Tensor c = call("multiply", {b, scalar(2.0)});
  EXPECT_EQ(at(c, 0), 200.0);
  EXPECT_EQ(at(c, 10), (10 + 1.0) * 2.0);
  // out= and in-place ops are writes too.
  Tensor d = call("add", {a, scalar(0.5)});
  Tensor e = call("negative", {a});
  ops::call(ops::get_op("add"), {a, a}, {}, &a);  // a += a, while d and e still read a
  EXPECT_EQ(at(d, 3), 3.5);
  EXPECT_EQ(at(e, 3), -3.0);
  EXPECT_EQ(at(a, 3), 6.0);
}

TEST_F(LazyMode, ViewsOfPendingArrays) {
  Tensor a = iota({8, 10}, DType::kFloat32);
  Tensor p = call("add", {a, scalar(1.0)});
  Tensor v = p.transpose().slice(0, 9, -1, -2);  // reversed, strided, transposed view of a pending result
  Tensor r = call("multiply", {v, scalar(10.0)});
  ASSERT_EQ(r.shape(), (Shape{5, 8}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 8; ++j) ASSERT_EQ(at(r, i * 8 + j), (at(a, j * 10 + (9 - 2 * i)) + 1) * 10);
  p = Tensor();  // the producer's tensor is gone; the view still reads it
  Tensor q = call("add", {a, scalar(2.0)});
  Tensor qv = q.slice(1, 2, 5, 1);
  q = Tensor();
  Tensor r2 = call("subtract", {qv, scalar(1.0)});
  for (int64_t i = 0; i < 8; ++i) ASSERT_EQ(at(r2, i * 3), at(a, i * 10 + 2) + 1);
}

TEST_F(LazyMode, SizeBoundMaterialisesLongLoops) {
  const int64_t old = graph::max_nodes();
  graph::set_max_nodes(50);
  const auto before = graph::stats();
  Tensor x = iota({16}, DType::kFloat64);
  for (int i = 0; i < 500; ++i) x = call("add", {call("multiply", {x, scalar(0.5, DType::kFloat64)}), scalar(1.0, DType::kFloat64)});
  EXPECT_LT(graph::pending_nodes(), 50);
  EXPECT_GE(graph::stats().auto_flushes - before.auto_flushes, 19);
  double ref = at(iota({16}, DType::kFloat64), 5);
  for (int i = 0; i < 500; ++i) ref = ref * 0.5 + 1.0;
  EXPECT_DOUBLE_EQ(at(x, 5), ref);
  graph::set_max_nodes(old);
  EXPECT_THROW(graph::set_max_nodes(0), Error);
}

TEST_F(LazyMode, ProgramsAreCachedByStructure) {
  auto run = [](int64_t n, double k) {
    Tensor a = iota({n}, DType::kFloat32), b = iota({n}, DType::kFloat32, 2.0);
    Tensor r = call("add", {call("multiply", {a, b}), scalar(k)});
    return at(r, n - 1);
  };
  run(1000, 1.0);
  const auto before = graph::stats();
  const double v = run(5000, 2.0);  // other arrays, sizes and scalar values: same structure
  const auto after = graph::stats();
  EXPECT_EQ(after.program_cache_hits - before.program_cache_hits, 1);
  EXPECT_EQ(after.program_cache_misses - before.program_cache_misses, 0);
  EXPECT_EQ(v, std::fmod(4999.0, 97.0) * std::fmod(9998.0, 97.0) + 2.0);
}

TEST_F(LazyMode, GraphsOfOtherThreads) {
  Tensor a = iota({1000}, DType::kFloat32);
  Tensor from_thread;
  std::thread t([&] { from_thread = call("multiply", {a, scalar(2.0)}); });  // pending in the thread's graph
  t.join();  // the thread's graph ran at its exit or is materialised on use
  Tensor r = call("add", {from_thread, scalar(1.0)});
  EXPECT_EQ(at(r, 7), 15.0);
  std::vector<std::thread> ts;
  std::vector<double> got(4);
  for (int k = 0; k < 4; ++k)
    ts.emplace_back([&, k] {
      Tensor x = a;
      for (int i = 0; i < 20; ++i) x = call("add", {x, scalar(1.0)});
      got[static_cast<size_t>(k)] = at(call("sum", {x}), 0);
    });
  for (auto& th : ts) th.join();
  double ref = 0;
  for (int64_t i = 0; i < 1000; ++i) ref += at(a, i) + 20;
  for (double g : got) EXPECT_NEAR(g, ref, 1e-3);
}

// The small-graph path: one-node graphs evaluated at once (run directly, no
// schedule), node memory recycled per thread, nodes allocated on one thread
// and released on another. Counters are exact (updated under the graph lock).
TEST_F(LazyMode, OneNodeGraphsAndRecycledNodes) {
  Tensor a = iota({10}, DType::kFloat32, 1.0, 0.5), b = iota({10}, DType::kFloat32, 3.0, -20.0);
  const graph::Stats s0 = graph::stats();
  constexpr int kIters = 300;
  for (int i = 0; i < kIters; ++i) {
    Tensor r = call(i % 2 ? "less" : "add", {a, b});
    graph::eval({r});
    ASSERT_FALSE(r.is_pending());
    for (int64_t k = 0; k < 10; ++k) {
      const double want = i % 2 ? (at(a, k) < at(b, k) ? 1.0 : 0.0) : static_cast<double>(static_cast<float>(at(a, k) + at(b, k)));
      ASSERT_EQ(at(r, k), want) << i << " " << k;
    }
  }
  const graph::Stats s1 = graph::stats();
  EXPECT_EQ(s1.nodes_recorded - s0.nodes_recorded, kIters);
  EXPECT_EQ(s1.graphs_run - s0.graphs_run, kIters);
  EXPECT_EQ(s1.groups_run - s0.groups_run, kIters);
  EXPECT_EQ(s1.nodes_run - s0.nodes_run, kIters);

  // Nodes recorded on threads that exit, released (with their memory) here;
  // and threads recording and releasing concurrently.
  std::vector<Tensor> made(8);
  std::vector<std::thread> ts;
  for (int k = 0; k < 8; ++k)
    ts.emplace_back([&, k] {
      Tensor x = a;
      for (int i = 0; i < 50; ++i) {
        x = call("add", {x, scalar(1.0)});
        if (i % 7 == 0) graph::eval({x});  // one-node and longer graphs, recycled blocks
      }
      made[static_cast<size_t>(k)] = call("multiply", {x, scalar(static_cast<double>(k))});  // left pending
    });
  for (auto& t : ts) t.join();
  for (int k = 0; k < 8; ++k)
    for (int64_t i : {0, 9}) {
      const float want = static_cast<float>((static_cast<float>(at(a, i)) + 50.0f) * static_cast<float>(k));
      EXPECT_EQ(at(made[static_cast<size_t>(k)], i), want) << k << " " << i;
    }
  made.clear();  // the last references: nodes of exited threads die on this one
}

// An in-place update (out=) of a value the graph computed is recorded while
// no raw pointer to it was handed out (Storage::kUnexposed); once data() gave
// one out, updates run at once, so the pointer sees them.
TEST_F(LazyMode, UpdatesOfUnexposedValuesAreRecorded) {
  Tensor a = iota({300}, DType::kFloat32), b = iota({300}, DType::kFloat32, 3.0);
  Tensor c = call("add", {a, b});
  graph::eval({c});
  ASSERT_FALSE(c.is_pending());
  EXPECT_EQ(c.storage()->lazy_flags(), Storage::kUnexposed);
  const Tensor one = scalar(1.0);
  const Tensor in[2] = {c, one};
  ops::call(ops::get_op("add"), in, 2, {}, &c);
  EXPECT_TRUE(c.is_pending());  // recorded
  Tensor r = call("multiply", {c, scalar(2.0)});  // read after write
  const float* p = c.data_as<float>();  // observes c: exposed from now on
  EXPECT_EQ(c.storage()->lazy_flags(), 0);
  for (int64_t i : {0, 7, 299}) {
    const float want = static_cast<float>(static_cast<float>(at(a, i) + at(b, i)) + 1.0f);
    EXPECT_EQ(p[i], want) << i;
    EXPECT_EQ(at(r, i), want * 2.0f) << i;
  }
  ops::call(ops::get_op("add"), in, 2, {}, &c);
  EXPECT_FALSE(c.is_pending());  // ran eagerly: the pointer sees it
  EXPECT_EQ(p[7], static_cast<float>(static_cast<float>(at(a, 7) + at(b, 7)) + 1.0f) + 1.0f);
}

TEST_F(LazyMode, ErrorsRaiseAtTheCall) {
  Tensor a = iota({3}, DType::kFloat32), b = iota({4}, DType::kFloat32);
  try {
    call("add", {a, b});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
    EXPECT_NE(std::string(e.what()).find("[add]"), std::string::npos);
  }
  EXPECT_EQ(graph::pending_nodes(), 0);
}

TEST_F(LazyMode, EagerAndLazyAgreeOnAllDtypes) {
  for (DType d : {DType::kBool, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16,
                  DType::kUInt32, DType::kUInt64, DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    Tensor x = iota({3, 17}, d, 1.0), y = iota({17}, d, 3.0);
    auto expr = [&] {
      Tensor t = call("maximum", {call("add", {x, y}), call("multiply", {y, y})});
      return call("sum", {t}, axes({0}));
    };
    Tensor lazy = expr();
    graph::set_eager(true);
    Tensor eager = expr();
    graph::set_eager(false);
    ASSERT_EQ(lazy.dtype(), eager.dtype()) << dtype_name(d);
    for (int64_t i = 0; i < eager.numel(); ++i) ASSERT_EQ(at(lazy, i), at(eager, i)) << dtype_name(d) << " " << i;
  }
}

}  // namespace
