#include "bench_client.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace pyasc_serve {

BenchResult BenchUnary(const std::string& target, const std::string& method, const std::string& payload,
                       int concurrency, int requests, int warmup, int max_message_bytes,
                       const std::vector<std::pair<std::string, int>>& channel_args) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message_bytes);
  args.SetMaxSendMessageSize(max_message_bytes);
  for (const auto& [k, v] : channel_args) args.SetInt(k, v);
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  grpc::GenericStub stub(channel);
  grpc::Slice slice(payload.data(), payload.size());
  BenchResult out;
  std::mutex mu;
  std::atomic<int> warmed{0};
  std::atomic<int64_t> t0{0};
  using clock = std::chrono::steady_clock;
  auto now_ns = [] { return std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now().time_since_epoch()).count(); };
  int64_t t_end = 0;
  auto worker = [&] {
    grpc::CompletionQueue cq;
    std::vector<int64_t> lat;
    lat.reserve(requests);
    int64_t errors = 0;
    std::string first;
    auto one = [&]() -> bool {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      grpc::ByteBuffer req(&slice, 1), resp;
      grpc::Status st;
      auto call = stub.PrepareUnaryCall(&ctx, method, req, &cq);
      call->StartCall();
      call->Finish(&resp, &st, reinterpret_cast<void*>(1));
      void* tag;
      bool ok;
      cq.Next(&tag, &ok);
      if (!st.ok()) {
        if (first.empty()) first = std::to_string(st.error_code()) + ": " + st.error_message();
        ++errors;
      }
      return st.ok();
    };
    for (int i = 0; i < warmup; ++i) one();
    // all workers warm before the clock starts
    warmed.fetch_add(1);
    while (warmed.load() < concurrency) std::this_thread::yield();
    int64_t expect = 0;
    t0.compare_exchange_strong(expect, now_ns());
    for (int i = 0; i < requests; ++i) {
      int64_t a = now_ns();
      one();
      lat.push_back(now_ns() - a);
    }
    int64_t done = now_ns();
    cq.Shutdown();
    void* tag;
    bool ok;
    while (cq.Next(&tag, &ok)) {
    }
    std::lock_guard<std::mutex> g(mu);
    out.latencies_ns.insert(out.latencies_ns.end(), lat.begin(), lat.end());
    out.errors += errors;
    if (out.first_error.empty()) out.first_error = first;
    if (done > t_end) t_end = done;
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < (concurrency < 1 ? 1 : concurrency); ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  out.wall_ns = t_end - t0.load();
  return out;
}

}  // namespace pyasc_serve
