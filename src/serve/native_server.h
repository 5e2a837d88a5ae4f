// pyasc-serve's native gRPC front end: a gRPC C++ server that owns its completion queues and
// threads, parses ModelInfer in C++, holds the GIL only for the model call (inputs handed over
// as zero-copy NumPy views of raw_input_contents) and serialises the response in C++. Every
// other RPC's bytes go to the Python implementation (python/pyasc/serve/native.py), so errors,
// statistics, sessions and routing have one source of truth.
#pragma once

#define PY_SSIZE_T_CLEAN  // the "#" formats of PyObject_CallFunction take Py_ssize_t
#include <Python.h>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace pyasc_serve {

struct NativeOptions {
  std::string address;           // "host:port" (port 0: a free one)
  int max_message_bytes = 64 << 20;
  int threads = 4;               // threads that poll the completion queues and run the calls
  bool empty_infer = false;      // ModelInfer answers an empty response without Python (transport floor)
  // After each event a queue's thread polls without sleeping for up to this many microseconds
  // before it blocks: a request arriving meanwhile skips the wake-up (epoll sleep -> runnable ->
  // scheduled), the cost of a ping-pong on an idle machine. 0: block at once (default); worth
  // it only with a free core per busy queue (on a loaded machine the spinner takes the core the
  // client or the model needs).
  int spin_us = 0;
  // Extra integer channel arguments of the server ("grpc.http2.bdp_probe", ...), for
  // measurements; the message size limits above win over arguments of the same names.
  std::vector<std::pair<std::string, int>> channel_args;
  // Completion queues the threads share (0: one per thread). One queue of N threads is a
  // leader/follower pool: the thread whose poll read a request takes its completion and runs
  // the call while another thread polls; one queue per thread matches a call to a queue whose
  // thread may not be the one that read it (a wake-up of that thread per request).
  int queues = 0;
  // Run-to-completion with a way out for slow models: with offload_threads > 0 a queue thread
  // runs a ModelInfer (or a ModelStreamInfer message) itself only when that model's recent
  // handler time (an exponential
  // average of about the last 8 calls, after 16) is under inline_us; other calls (unknown or
  // slow models) go to offload_threads worker threads, which write their responses, while the
  // queue thread goes back to polling. With one queue thread this is the model with no
  // thread hand-off for quick models (see docs/serve.md). 0: queue threads run every call.
  int offload_threads = 0;
  int inline_us = 200;
  // Timestamps at the stages of every unary ModelInfer on the fast path (see Call::Trace), kept
  // for TakeTraces: where a request's time goes inside the server, for the benchmark.
  bool trace = false;
};

class Call;

class NativeServer {
 public:
  // infer(model, version, id, inputs, outputs, params, session_id) -> (code, message, result)
  // dispatch(method, request_bytes, session_id) -> (code, message, response_bytes)
  // (both borrowed: the Python owner keeps them alive while the server runs)
  NativeServer(PyObject* infer, PyObject* dispatch, NativeOptions opt);
  ~NativeServer();
  NativeServer(const NativeServer&) = delete;
  NativeServer& operator=(const NativeServer&) = delete;

  int Start();                 // binds and starts the threads; returns the bound port (call without the GIL)
  // Idempotent (call without the GIL). Calls still running after `grace_s` are cancelled (the
  // client gets gRPC's status); a thread still inside a model call `abandon_s` after that is
  // left running, detached, and the server's state is kept for it (see abandoned()): a model
  // call that never returns cannot hold a stop. Returns the number of threads abandoned.
  int Stop(double grace_s, double abandon_s = 1.0);
  bool running() const { return running_.load(); }
  // Threads left inside calls by a stop: this object (and the grpc::Server, queues and
  // Python callables they use) must then never be freed.
  int abandoned() const { return abandoned_; }
  // NativeOptions::trace: per call, the 8 stage durations in ns since the last take
  std::vector<std::array<int64_t, 8>> TakeTraces();
  void AddTrace(const int64_t* t);

 private:
  friend class Call;
  void Loop(grpc::ServerCompletionQueue* cq);
  void Work();                                    // an offload thread
  void Exited();                                  // a queue or offload thread is leaving
  void Offload(Call* c);
  bool Quick(const std::string& model);           // run inline? (offload mode)
  void Record(const std::string& model, double us);
  bool offloading() const { return opt_.offload_threads > 0; }

  PyObject* infer_;
  PyObject* dispatch_;
  NativeOptions opt_;
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> cqs_;
  std::vector<std::thread> threads_;
  // Operations are issued under a shared lock; Stop closes the queues under the exclusive one,
  // so that nothing is ever started on a queue that is shut down.
  std::shared_mutex issue_mu_;
  bool closed_ = false;
  std::atomic<bool> running_{false};
  // threads (queue + offload) that have left their loops, for Stop's bounded wait
  std::mutex exit_mu_;
  std::condition_variable exit_cv_;
  int exited_ = 0;
  int abandoned_ = 0;
  // offload mode
  std::vector<std::thread> workers_;
  std::mutex job_mu_;
  std::condition_variable job_cv_;
  std::deque<Call*> jobs_;
  bool jobs_done_ = false;
  // steady_clock ticks: the end of a stop's grace period (queued calls after it are not run)
  std::atomic<int64_t> stop_deadline_{INT64_MAX};
  struct Speed {
    int64_t calls = 0;
    double ewma_us = 0;
  };
  std::mutex trace_mu_;
  std::vector<std::array<int64_t, 8>> traces_;
  std::mutex speed_mu_;
  std::unordered_map<std::string, Speed> speed_;
};

}  // namespace pyasc_serve
