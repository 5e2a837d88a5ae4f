#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "asc/runtime/launch.h"
#include "asc/runtime/stream.h"

using namespace asc::runtime;

TEST(Stream, RunsTasksInOrder) {
  auto s = Stream::create();
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) s->enqueue("t", [&order, i] { order.push_back(i); });
  ASSERT_TRUE(s->synchronize().ok());
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
  EXPECT_TRUE(s->query());
  EXPECT_EQ(s->completed(), s->last_enqueued());
}

TEST(Stream, QueryReflectsPendingWork) {
  auto s = Stream::create();
  std::promise<void> gate;
  auto f = gate.get_future().share();
  s->enqueue("block", [f] { f.wait(); });
  EXPECT_FALSE(s->query());
  gate.set_value();
  ASSERT_TRUE(s->synchronize().ok());
  EXPECT_TRUE(s->query());
}

TEST(Stream, ErrorIsStoredRaisedAtSyncAndStreamStaysUsable) {
  auto s = Stream::create();
  std::atomic<int> after{0};
  s->enqueue("cb", [] { throw asc::Error(asc::ErrorCode::kInvalidParam, "[my_callback] boom"); });
  s->enqueue("ok", [&] { after = 1; });
  asc::Status st = s->synchronize();
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("my_callback"), std::string::npos);
  EXPECT_EQ(after.load(), 1);  // later work still ran
  EXPECT_TRUE(s->synchronize().ok());  // error cleared
  s->enqueue("ok2", [&] { after = 2; });
  EXPECT_TRUE(s->synchronize().ok());
  EXPECT_EQ(after.load(), 2);
}

TEST(Stream, KernelErrorNamesKernelAndBlock) {
  auto s = Stream::create();
  asc::launch("failing_kernel",
              [] {
                if (current_block()->block_idx == 3) throw asc::Error(asc::ErrorCode::kIndexOutOfRange, "[GetValue] bad");
              },
              8, s.get());
  asc::Status st = s->synchronize();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[failing_kernel] block 3 of 8"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[GetValue] bad"), std::string::npos);
  // Usable afterwards.
  std::atomic<int> n{0};
  asc::launch("ok", [&] { n++; }, 4, s.get());
  EXPECT_TRUE(s->synchronize().ok());
  EXPECT_EQ(n.load(), 4);
}

TEST(Stream, NonAscExceptionBecomesAicoreException) {
  auto s = Stream::create();
  asc::launch("std_throw", [] { throw std::runtime_error("plain"); }, 1, s.get());
  asc::Status st = s->synchronize();
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  EXPECT_NE(st.message().find("plain"), std::string::npos);
}

TEST(Stream, CallbacksRunOnStreamInOrder) {
  auto s = Stream::create();
  std::vector<int> seen;
  std::atomic<int> counter{0};
  asc::launch("inc", [&] { counter++; }, 16, s.get());
  s->add_callback([&] { seen.push_back(counter.load()); });
  asc::launch("inc", [&] { counter++; }, 16, s.get());
  s->add_callback([&] { seen.push_back(counter.load()); });
  ASSERT_TRUE(s->synchronize().ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], 16);
  EXPECT_EQ(seen[1], 32);
}

TEST(Event, CrossStreamWait) {
  auto a = Stream::create();
  auto b = Stream::create();
  std::promise<void> gate;
  auto f = gate.get_future().share();
  std::atomic<int> value{0};
  a->enqueue("slow", [f, &value] {
    f.wait();
    value = 42;
  });
  Event e;
  e.record(a.get());
  EXPECT_FALSE(e.query());
  b->wait_event(e);
  int seen = -1;
  b->add_callback([&] { seen = value.load(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(b->query());  // b is blocked on a
  gate.set_value();
  ASSERT_TRUE(b->synchronize().ok());
  EXPECT_EQ(seen, 42);
  EXPECT_TRUE(e.query());
}

TEST(Event, ElapsedTime) {
  auto s = Stream::create();
  Event start, end;
  start.record(s.get());
  s->enqueue("sleep", [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
  end.record(s.get());
  auto early = start.elapsed_time(end);  // may or may not be complete; never crash
  (void)early;
  ASSERT_TRUE(end.synchronize().ok());
  auto ms = start.elapsed_time(end);
  ASSERT_TRUE(ms.ok());
  EXPECT_GE(ms.value(), 19.0f);
  EXPECT_LT(ms.value(), 2000.0f);
  Event untimed(false);
  untimed.record(s.get());
  ASSERT_TRUE(untimed.synchronize().ok());
  EXPECT_FALSE(start.elapsed_time(untimed).ok());
}

TEST(Event, UnrecordedIsComplete) {
  Event e;
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(e.synchronize().ok());
}

TEST(Stream, PerThreadDefaultStreams) {
  uint64_t main_id = current_stream()->id();
  uint64_t other_id = 0;
  std::thread t([&] { other_id = current_stream()->id(); });
  t.join();
  EXPECT_NE(main_id, other_id);
  EXPECT_EQ(current_stream()->id(), main_id);
}

TEST(Stream, GuardMakesStreamCurrent) {
  auto s = Stream::create();
  uint64_t before = current_stream()->id();
  {
    StreamGuard g(s);
    EXPECT_EQ(current_stream()->id(), s->id());
    auto s2 = Stream::create();
    {
      StreamGuard g2(s2);
      EXPECT_EQ(current_stream()->id(), s2->id());
    }
    EXPECT_EQ(current_stream()->id(), s->id());
  }
  EXPECT_EQ(current_stream()->id(), before);
}

TEST(Stream, AsyncCopiesAreOrdered) {
  auto s = Stream::create();
  std::vector<float> a(1 << 16), b(1 << 16, 0.f), c(1 << 16, 0.f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  s->memcpy_async(b.data(), a.data(), a.size() * 4, MemcpyKind::kHostToDevice);
  s->memcpy_async(c.data(), b.data(), a.size() * 4, MemcpyKind::kDeviceToDevice);
  ASSERT_TRUE(s->synchronize().ok());
  EXPECT_EQ(c, a);
  // Null pointers fail at sync with a clear message.
  s->memcpy_async(nullptr, a.data(), 16, MemcpyKind::kHostToDevice);
  auto st = s->synchronize();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[memcpy] null destination"), std::string::npos) << st.message();
}

TEST(Stream, SynchronizeDeviceWaitsForAllStreams) {
  auto a = Stream::create();
  auto b = Stream::create();
  std::atomic<int> n{0};
  for (int i = 0; i < 10; ++i) {
    a->enqueue("x", [&] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); n++; });
    b->enqueue("y", [&] { n++; });
  }
  ASSERT_TRUE(synchronize_device().ok());
  EXPECT_EQ(n.load(), 20);
}

TEST(Stream, LastReferenceDroppedByOwnTask) {
  std::atomic<bool> ran_after{false};
  std::promise<void> done;
  auto fut = done.get_future();
  {
    auto s = Stream::create();
    auto* holder = new std::shared_ptr<Stream>(s);
    // The second task releases the last reference from the stream's own worker;
    // the queued third task must still run, and nothing may deadlock.
    s->enqueue("hold", [] {});
    s->enqueue("drop", [holder] { delete holder; });
    s->enqueue("after", [&ran_after, &done] {
      ran_after = true;
      done.set_value();
    });
  }
  ASSERT_EQ(fut.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(ran_after.load());
}

// A host callback that waits for its own stream would wait for itself: the
// wait reports an error (which the callback may raise, stored for the next
// host synchronize()) instead of hanging. Bounded by wait_for so a regression
// fails instead of blocking the suite.
TEST(Stream, SynchronizeFromOwnCallbackIsAnErrorNotADeadlock) {
  auto s = Stream::create();
  auto other = Stream::create();
  std::promise<asc::Status> own, device, event, foreign;
  auto f_own = own.get_future(), f_dev = device.get_future(), f_ev = event.get_future(),
       f_foreign = foreign.get_future();
  Event later;
  s->add_callback([&] {
    own.set_value(s->synchronize());
    device.set_value(synchronize_device());
    later.record(s.get());  // recorded behind this callback
    event.set_value(later.synchronize());
    foreign.set_value(other->synchronize());  // another stream: a plain wait
  });
  for (auto* f : {&f_own, &f_dev, &f_ev, &f_foreign})
    ASSERT_EQ(f->wait_for(std::chrono::seconds(20)), std::future_status::ready);
  const asc::Status st = f_own.get();
  EXPECT_EQ(st.code(), asc::ErrorCode::kFailure);
  EXPECT_NE(st.message().find("host callback"), std::string::npos) << st.message();
  EXPECT_EQ(f_dev.get().code(), asc::ErrorCode::kFailure);
  EXPECT_EQ(f_ev.get().code(), asc::ErrorCode::kFailure);
  EXPECT_TRUE(f_foreign.get().ok());
  EXPECT_TRUE(s->synchronize().ok());  // nothing was stored: the callback returned normally

  // A callback that throws the error: raised by the next host synchronize().
  s->add_callback([&] { s->synchronize().ThrowIfError(); });
  std::promise<asc::Status> host;
  auto f_host = host.get_future();
  std::thread t([&] { host.set_value(s->synchronize()); });
  ASSERT_EQ(f_host.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  t.join();
  const asc::Status raised = f_host.get();
  EXPECT_EQ(raised.code(), asc::ErrorCode::kFailure);
  EXPECT_NE(raised.message().find("stream.synchronize"), std::string::npos) << raised.message();
  EXPECT_TRUE(s->synchronize().ok());
}
