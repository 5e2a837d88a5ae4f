// A lean gRPC client for benchmarks/bench_serve.py: sends one pre-serialised request over and
// over (generic stub, no Python on the path), so that what it measures is the server and the
// transport, not a client library.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pyasc_serve {

struct BenchResult {
  std::vector<int64_t> latencies_ns;  // per measured call, in completion order
  int64_t wall_ns = 0;                // first measured call issued -> last one done, all workers
  int64_t errors = 0;
  std::string first_error;
};

// `concurrency` threads share one channel; each sends `warmup` unmeasured then `requests`
// measured calls back to back;
// `channel_args`: extra integer channel arguments of the client. `method` is the full path ("/inference.GRPCInferenceService/ModelInfer").
BenchResult BenchUnary(const std::string& target, const std::string& method, const std::string& payload,
                       int concurrency, int requests, int warmup, int max_message_bytes,
                       const std::vector<std::pair<std::string, int>>& channel_args = {});

}  // namespace pyasc_serve
