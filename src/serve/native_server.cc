// The native gRPC front end (see native_server.h and docs/serve.md, "Native gRPC front end").
#include "native_server.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "inference.pb.h"

namespace py = pybind11;

namespace pyasc_serve {
namespace {

constexpr char kService[] = "/inference.GRPCInferenceService/";

// The RPCs forwarded as bytes to Python; anything else of the service is UNIMPLEMENTED, as in
// the Python front end (shared memory, trace and logging are not served).
bool Forwarded(const std::string& m) {
  static const char* const kNames[] = {"ServerLive", "ServerReady", "ModelReady", "ServerMetadata",
                                       "ModelMetadata", "ModelConfig", "ModelStatistics", "RepositoryIndex",
                                       "RepositoryModelLoad", "RepositoryModelUnload"};
  for (const char* n : kNames)
    if (m == n) return true;
  return false;
}

grpc::ByteBuffer BytesToBuffer(const char* data, size_t n) {
  grpc::Slice s(data, n);
  return grpc::ByteBuffer(&s, 1);
}

std::string BufferToBytes(const grpc::ByteBuffer& bb) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!bb.Valid() || !bb.Dump(&slices).ok()) return out;
  out.reserve(bb.Length());
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

template <class M>
bool Serialize(const M& msg, grpc::ByteBuffer* out) {
  bool own = false;
  return grpc::SerializationTraits<M>::Serialize(msg, out, &own).ok();
}

// Holds the GIL for one scope on a thread whose Python thread state was made at its start.
class Gil {
 public:
  Gil() : st_(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(st_); }

 private:
  PyGILState_STATE st_;
};

std::string PyErrorText() {
  // (GIL held) the pending Python exception as "Type: message"; clears it
  py::error_already_set e;
  return e.what();
}

py::object ParamToPy(const inference::InferParameter& p) {
  switch (p.parameter_choice_case()) {
    case inference::InferParameter::kBoolParam: return py::bool_(p.bool_param());
    case inference::InferParameter::kInt64Param: return py::int_(p.int64_param());
    case inference::InferParameter::kStringParam: return py::str(p.string_param());
    case inference::InferParameter::kDoubleParam: return py::float_(p.double_param());
    case inference::InferParameter::kUint64Param: return py::int_(p.uint64_param());
    default: return py::none();
  }
}

}  // namespace

// One RPC. Exactly one operation of a Call is outstanding at any time, so its tag coming back
// is the only place that touches it; it deletes itself when done.
class Call {
 public:
  Call(NativeServer* s, grpc::ServerCompletionQueue* cq) : s_(s), cq_(cq), stream_(&ctx_) {}

  // Posts the wait for a new call; false (and nothing posted) once the server is closing.
  bool Post() {
    return Issue([&] { s_->service_.RequestCall(&ctx_, &stream_, cq_, cq_, this); });
  }

  void Proceed(bool ok) {
    switch (state_) {
      case State::kRequest: return OnRequest(ok);
      case State::kRead: return OnRead(ok);
      case State::kWrite: return OnWrite(ok);
      case State::kFinish:
        if (traced_) Trace(8);  // the response is with the transport
        delete this;
        return;
    }
  }

 private:
  enum class State { kRequest, kRead, kWrite, kFinish };
  enum class Kind { kForward, kInfer, kStream, kUnknown };

  template <class F>
  bool Issue(F&& f) {
    std::shared_lock<std::shared_mutex> lock(s_->issue_mu_);
    if (s_->closed_) return false;
    f();
    return true;
  }

  // Issues f, or deletes the call when the server is closing; the caller returns right after.
  template <class F>
  void IssueOrDie(F&& f) {
    if (!Issue(std::forward<F>(f))) delete this;
  }

  void Finish(const grpc::Status& st) {
    state_ = State::kFinish;
    IssueOrDie([&] { stream_.Finish(st, this); });
  }

  void Read() {
    state_ = State::kRead;
    IssueOrDie([&] { stream_.Read(&in_, this); });
  }

  void OnRequest(bool ok) {
    if (!ok) {  // shutting down
      delete this;
      return;
    }
    const std::string& m = ctx_.method();
    Kind kind = Kind::kUnknown;
    if (m.compare(0, sizeof(kService) - 1, kService) == 0) {
      method_ = m.substr(sizeof(kService) - 1);
      if (method_ == "ModelInfer") kind = Kind::kInfer;
      else if (method_ == "ModelStreamInfer") kind = Kind::kStream;
      else if (Forwarded(method_)) kind = Kind::kForward;
    }
    kind_ = kind;
    // A stream does not hold the thread between its messages: its queue takes calls again now.
    if (kind != Kind::kInfer && kind != Kind::kForward) Repost();
    if (kind == Kind::kUnknown) return Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "Method not found!"));
    for (const auto& [k, v] : ctx_.client_metadata()) {
      if (k == "session-id") {
        session_.assign(v.data(), v.size());
        has_session_ = true;
        break;
      }
    }
    Read();
  }

  // Posts the wait for this queue's next call. A queue has one waiting call per thread on it,
  // posted again only when the handler is done: gRPC then matches new calls to queues with a
  // free thread (a call matched to a queue whose threads are all in model calls would wait).
  void Repost() {
    if (reposted_) return;
    reposted_ = true;
    auto* next = new Call(s_, cq_);
    if (!next->Post()) delete next;
  }

  void OnRead(bool ok) {
    if (s_->opt_.trace) Trace(0);
    if (!ok) {
      Repost();
      // unary: the client sent no message; stream: the client is done sending
      if (kind_ == Kind::kStream) return Finish(grpc::Status::OK);
      return Finish(grpc::Status(grpc::StatusCode::INTERNAL, "no request message"));
    }
    // offload mode: a message for a model not known to be quick goes to a worker thread, and
    // this thread takes the next event at once (a stream's next message is read only after
    // this one's response is written, so its messages still run one at a time, in order)
    if ((kind_ == Kind::kInfer || kind_ == Kind::kStream) && s_->offloading() && !s_->opt_.empty_infer &&
        Parse() && !s_->Quick(req_.model_name())) {
      if (kind_ == Kind::kInfer) Repost();  // a stream reposted when it started
      s_->Offload(this);
      return;
    }
    Run();
  }

 public:
  // Runs the handler of the message just read and issues the response (on a queue thread, or
  // on an offload thread).
  void Run() {
    if (kind_ == Kind::kStream) return StreamStep();
    Handle();
  }

  // Ends a call taken from the offload queue after a stop's grace period, unrun.
  void Abandon() {
    in_.Clear();
    Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
  }

 private:
  // One message of a ModelStreamInfer stream: its response (or error_message) is written, then
  // the next message is read (OnWrite).
  void StreamStep() {
    grpc::ByteBuffer out;
    inference::ModelStreamInferResponse resp;
    auto t0 = std::chrono::steady_clock::now();
    grpc::Status st = Infer(resp.mutable_infer_response());
    if (s_->offloading() && parse_ok_)
      s_->Record(req_.model_name(),
                 std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    if (!st.ok()) {
      resp.clear_infer_response();
      resp.set_error_message(st.error_message());
    }
    in_.Clear();
    Serialize(resp, &out);
    state_ = State::kWrite;
    IssueOrDie([&] { stream_.Write(out, this); });
  }

  void Handle() {
    grpc::ByteBuffer out;
    grpc::Status st;
    if (kind_ == Kind::kInfer) {
      if (s_->opt_.empty_infer) {
        st = grpc::Status::OK;
        out = BytesToBuffer("", 0);
      } else {
        auto t0 = std::chrono::steady_clock::now();
        inference::ModelInferResponse resp;
        st = Infer(&resp);
        if (st.ok()) Serialize(resp, &out);
        if (traced_) Trace(6);
        if (s_->offloading() && parse_ok_)
          s_->Record(req_.model_name(),
                     std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
    } else {
      std::string body;
      st = Forward(method_, &body);
      if (st.ok()) out = BytesToBuffer(body.data(), body.size());
    }
    in_.Clear();
    Repost();  // the handler is done: this thread can take the next call
    if (!st.ok()) return Finish(st);
    state_ = State::kFinish;
    if (traced_) Trace(7);
    IssueOrDie([&] { stream_.WriteAndFinish(out, grpc::WriteOptions(), grpc::Status::OK, this); });
  }

 private:
  // Parses in_ into req_ once per message (Infer consumes it); false when it is not a
  // ModelInferRequest.
  bool Parse() {
    if (parsed_) return parse_ok_;
    parsed_ = true;
    req_.Clear();
    grpc::ProtoBufferReader reader(&in_);
    parse_ok_ = req_.ParseFromZeroCopyStream(&reader);
    return parse_ok_;
  }

  void OnWrite(bool ok) {
    if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream closed"));
    Read();
  }

  PyObject* SessionArg() const {
    if (!has_session_) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(session_.data(), static_cast<Py_ssize_t>(session_.size()), "replace");
  }

  // (GIL held) unpacks (code, message, payload); returns the status and sets *payload
  static grpc::Status Unpack(PyObject* res, PyObject** payload) {
    *payload = nullptr;
    if (!res) {
      return grpc::Status(grpc::StatusCode::INTERNAL, PyErrorText());
    }
    if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 3) {
      return grpc::Status(grpc::StatusCode::INTERNAL, "native front end: bad result from the Python handler");
    }
    long code = PyLong_AsLong(PyTuple_GET_ITEM(res, 0));
    if (code != 0) {
      Py_ssize_t n = 0;
      const char* msg = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(res, 1), &n);
      if (!msg) return grpc::Status(grpc::StatusCode::INTERNAL, PyErrorText());
      if (code < 0 || code > 16) code = grpc::StatusCode::INTERNAL;
      return grpc::Status(static_cast<grpc::StatusCode>(code), std::string(msg, n));
    }
    *payload = PyTuple_GET_ITEM(res, 2);
    return grpc::Status::OK;
  }

  // A unary RPC handled by Python: request bytes in, response bytes out.
  grpc::Status Forward(const std::string& method, std::string* body) {
    std::string req = BufferToBytes(in_);
    Gil gil;
    PyObject* res = PyObject_CallFunction(s_->dispatch_, "s#y#N", method.data(), (Py_ssize_t)method.size(),
                                          req.data(), (Py_ssize_t)req.size(), SessionArg());
    PyObject* payload;
    grpc::Status st = Unpack(res, &payload);
    if (st.ok()) {
      char* data;
      Py_ssize_t n;
      if (PyBytes_AsStringAndSize(payload, &data, &n) != 0) st = grpc::Status(grpc::StatusCode::INTERNAL, PyErrorText());
      else body->assign(data, n);
    }
    Py_XDECREF(res);
    return st;
  }

  // ModelInfer: parse in C++, run the model in Python, build the response in C++.
  grpc::Status Infer(inference::ModelInferResponse* resp) {
    bool ok = Parse();
    parsed_ = false;  // consumed: a stream's next message is parsed again
    if (!ok)
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "ModelInfer: the request is not a valid "
                                                              "ModelInferRequest message");
    inference::ModelInferRequest& req = req_;
    // Only raw_input_contents is taken apart here; typed `contents`, a raw count that does not
    // match the inputs and output parameters (classification) take the Python decoder, which
    // holds the rules and the error messages.
    bool fast = req.inputs_size() > 0 && req.raw_input_contents_size() == req.inputs_size();
    for (const auto& o : req.outputs()) fast = fast && o.parameters().empty();
    const bool trace = s_->opt_.trace && fast && kind_ == Kind::kInfer;
    if (trace) Trace(1);
    if (!fast) {
      std::string body;
      grpc::Status st = Forward("ModelInfer", &body);
      if (st.ok() && !resp->ParseFromString(body))
        st = grpc::Status(grpc::StatusCode::INTERNAL, "ModelInfer: bad response from the Python handler");
      return st;
    }
    Gil gil;
    if (trace) Trace(2);
    try {
      py::list inputs(req.inputs_size());
      for (int i = 0; i < req.inputs_size(); ++i) {
        const auto& t = req.inputs(i);
        // the bytes move into a heap string owned by the array: a zero-copy view that stays
        // valid for as long as Python holds it (a model may keep its inputs)
        auto* raw = new std::string(std::move(*req.mutable_raw_input_contents(i)));
        py::capsule owner(raw, [](void* p) { delete static_cast<std::string*>(p); });
        py::array_t<uint8_t> data({static_cast<py::ssize_t>(raw->size())}, {static_cast<py::ssize_t>(1)},
                                  reinterpret_cast<const uint8_t*>(raw->data()), owner);
        // read-only, as the bytes the Python front end hands over
        py::detail::array_proxy(data.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        py::tuple shape(t.shape_size());
        for (int d = 0; d < t.shape_size(); ++d) shape[d] = py::int_(t.shape(d));
        inputs[i] = py::make_tuple(t.name(), t.datatype(), std::move(shape), std::move(data));
      }
      py::list outputs(req.outputs_size());
      for (int i = 0; i < req.outputs_size(); ++i) outputs[i] = py::str(req.outputs(i).name());
      py::dict params;
      for (const auto& [k, v] : req.parameters()) params[py::str(k)] = ParamToPy(v);
      py::object sid = py::reinterpret_steal<py::object>(SessionArg());
      if (trace) Trace(3);
      PyObject* res = PyObject_CallFunctionObjArgs(
          s_->infer_, py::str(req.model_name()).ptr(), py::str(req.model_version()).ptr(), py::str(req.id()).ptr(),
          inputs.ptr(), outputs.ptr(), params.ptr(), sid.ptr(), nullptr);
      py::object hold = py::reinterpret_steal<py::object>(res);
      if (trace) Trace(4);
      PyObject* payload;
      grpc::Status st = Unpack(res, &payload);
      if (!st.ok()) return st;
      // payload: (model_name, model_version, id, [(name, datatype, shape, buffer)])
      py::tuple r = py::reinterpret_borrow<py::tuple>(payload);
      resp->set_model_name(r[0].cast<std::string>());
      resp->set_model_version(r[1].cast<std::string>());
      resp->set_id(r[2].cast<std::string>());
      for (py::handle item : r[3]) {
        py::tuple o = py::reinterpret_borrow<py::tuple>(item);
        auto* out = resp->add_outputs();
        out->set_name(o[0].cast<std::string>());
        out->set_datatype(o[1].cast<std::string>());
        for (py::handle d : o[2]) out->add_shape(d.cast<int64_t>());
        Py_buffer view;
        if (PyObject_GetBuffer(o[3].ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
        resp->add_raw_output_contents()->assign(static_cast<const char*>(view.buf), view.len);
        PyBuffer_Release(&view);
      }
      if (trace) {
        Trace(5);
        traced_ = true;
      }
      return grpc::Status::OK;
    } catch (py::error_already_set& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, std::string("native front end: ") + e.what());
    }
  }

  NativeServer* s_;
  grpc::ServerCompletionQueue* cq_;
  grpc::GenericServerContext ctx_;
  grpc::GenericServerAsyncReaderWriter stream_;
  grpc::ByteBuffer in_;
  State state_ = State::kRequest;
  Kind kind_ = Kind::kUnknown;
  std::string method_;
  std::string session_;
  bool has_session_ = false;
  bool reposted_ = false;
  inference::ModelInferRequest req_;
  bool parsed_ = false;
  bool parse_ok_ = false;
  // NativeOptions::trace: steady_clock ns at the stages of a unary ModelInfer on the fast path
  // (0 read, 1 parsed, 2 GIL held, 3 inputs converted, 4 Python returned, 5 response built,
  // 6 serialised, 7 write issued, 8 write completed); handed to the server at 8
  bool traced_ = false;
  int64_t t_[9] = {};
  void Trace(int k) {
    t_[k] = std::chrono::steady_clock::now().time_since_epoch().count();
    if (k == 8) s_->AddTrace(t_);
  }
};

void NativeServer::AddTrace(const int64_t* t) {
  std::lock_guard<std::mutex> l(trace_mu_);
  if (traces_.size() >= (1u << 20)) return;  // bounded
  std::array<int64_t, 8> d;
  for (int i = 0; i < 8; ++i) d[i] = t[i + 1] - t[i];
  traces_.push_back(d);
}

std::vector<std::array<int64_t, 8>> NativeServer::TakeTraces() {
  std::lock_guard<std::mutex> l(trace_mu_);
  std::vector<std::array<int64_t, 8>> out;
  out.swap(traces_);
  return out;
}

void NativeServer::Offload(Call* c) {
  {
    std::lock_guard<std::mutex> l(job_mu_);
    jobs_.push_back(c);
  }
  job_cv_.notify_one();
}

void NativeServer::Work() {
  PyGILState_STATE outer = PyGILState_Ensure();  // one thread state for the thread's life
  PyThreadState* ts = PyEval_SaveThread();
  for (;;) {
    Call* c;
    {
      std::unique_lock<std::mutex> l(job_mu_);
      job_cv_.wait(l, [&] { return jobs_done_ || !jobs_.empty(); });
      if (jobs_.empty()) break;  // done, and nothing left: calls queued before Stop still run
      c = jobs_.front();
      jobs_.pop_front();
    }
    // past the grace period of a stop, a call still queued is answered without running its
    // model (gRPC has cancelled it by then): stop waits for the calls running, not the queue
    if (std::chrono::steady_clock::now().time_since_epoch().count() >= stop_deadline_.load())
      c->Abandon();
    else
      c->Run();
  }
  PyEval_RestoreThread(ts);
  PyGILState_Release(outer);
  Exited();
}

void NativeServer::Exited() {
  {
    std::lock_guard<std::mutex> l(exit_mu_);
    ++exited_;
  }
  exit_cv_.notify_all();
}

bool NativeServer::Quick(const std::string& model) {
  std::lock_guard<std::mutex> l(speed_mu_);
  auto it = speed_.find(model);
  return it != speed_.end() && it->second.calls >= 16 && it->second.ewma_us < opt_.inline_us;
}

void NativeServer::Record(const std::string& model, double us) {
  std::lock_guard<std::mutex> l(speed_mu_);
  if (speed_.size() > 4096 && !speed_.count(model)) return;  // bounded: names come from requests
  Speed& sp = speed_[model];
  sp.ewma_us = sp.calls++ == 0 ? us : sp.ewma_us + (us - sp.ewma_us) / 8;
}

NativeServer::NativeServer(PyObject* infer, PyObject* dispatch, NativeOptions opt)
    : infer_(infer), dispatch_(dispatch), opt_(std::move(opt)) {}

NativeServer::~NativeServer() { Stop(0.0); }

int NativeServer::Start() {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(opt_.address, grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(opt_.max_message_bytes);
  builder.SetMaxSendMessageSize(opt_.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a busy port is an error, not a shared one
  for (const auto& [k, v] : opt_.channel_args) builder.AddChannelArgument(k, v);
  builder.RegisterAsyncGenericService(&service_);
  // `threads` threads over `queues` queues (round robin); a queue holds one waiting call per
  // thread on it (see Call::Repost).
  int n = opt_.threads < 1 ? 1 : opt_.threads;
  int nq = opt_.queues < 1 || opt_.queues > n ? n : opt_.queues;
  for (int i = 0; i < nq; ++i) cqs_.push_back(builder.AddCompletionQueue());
  server_ = builder.BuildAndStart();
  if (!server_ || port == 0) {
    server_.reset();
    for (auto& cq : cqs_) {
      cq->Shutdown();
      void* tag;
      bool ok;
      while (cq->Next(&tag, &ok)) {
      }
    }
    cqs_.clear();
    return 0;
  }
  running_ = true;
  for (int i = 0; i < n; ++i) {
    grpc::ServerCompletionQueue* q = cqs_[i % nq].get();
    auto* c = new Call(this, q);  // one waiting call per thread of the queue (see Call::Repost)
    if (!c->Post()) delete c;
    threads_.emplace_back([this, q] { Loop(q); });
  }
  for (int i = 0; i < opt_.offload_threads; ++i) workers_.emplace_back([this] { Work(); });
  return port;
}

void NativeServer::Loop(grpc::ServerCompletionQueue* cq) {
  // One Python thread state for the thread's life: per call, PyGILState_Ensure then only takes
  // the GIL (no thread-state creation on the request path).
  PyGILState_STATE outer = PyGILState_Ensure();
  PyThreadState* ts = PyEval_SaveThread();
  void* tag;
  bool ok;
  if (opt_.spin_us <= 0) {
    while (cq->Next(&tag, &ok)) static_cast<Call*>(tag)->Proceed(ok);
  } else {
    // Spin-then-block (NativeOptions::spin_us): AsyncNext with a past deadline polls the
    // transport without sleeping; the budget restarts with every event.
    using clock = std::chrono::steady_clock;
    const auto budget = std::chrono::microseconds(opt_.spin_us);
    const gpr_timespec now_deadline = gpr_time_0(GPR_CLOCK_MONOTONIC);
    auto last = clock::now();
    for (;;) {
      auto st = cq->AsyncNext(&tag, &ok, now_deadline);
      if (st == grpc::CompletionQueue::GOT_EVENT) {
        static_cast<Call*>(tag)->Proceed(ok);
        last = clock::now();
        continue;
      }
      if (st == grpc::CompletionQueue::SHUTDOWN) break;
      if (clock::now() - last < budget) continue;
      if (!cq->Next(&tag, &ok)) break;
      static_cast<Call*>(tag)->Proceed(ok);
      last = clock::now();
    }
  }
  PyEval_RestoreThread(ts);
  PyGILState_Release(outer);
  Exited();
}

int NativeServer::Stop(double grace_s, double abandon_s) {
  if (!running_.exchange(false)) return 0;
  using clock = std::chrono::steady_clock;
  auto grace = std::chrono::microseconds(static_cast<int64_t>((grace_s > 0 ? grace_s : 0) * 1e6));
  auto margin = std::chrono::microseconds(static_cast<int64_t>((abandon_s > 0 ? abandon_s : 0) * 1e6));
  auto deadline = std::chrono::system_clock::now() + grace;
  stop_deadline_ = (clock::now() + grace).time_since_epoch().count();
  // The last moment to wait for a thread: a thread still inside a call then is in a model call
  // that did not return after its cancellation (a model blocked forever) and is abandoned.
  const auto give_up = clock::now() + grace + margin;
  // grpc::Server::Shutdown cancels what still runs at the deadline, then waits for the
  // application to finish every call: a model call that never returns would hold it (and
  // this stop) forever. It runs on a thread of its own that is waited for until give_up.
  auto shut_done = std::make_shared<std::atomic<bool>>(false);
  grpc::Server* srv = server_.get();
  std::thread shutter([srv, deadline, shut_done, this] {
    srv->Shutdown(deadline);
    shut_done->store(true);
    {
      std::lock_guard<std::mutex> l(exit_mu_);
    }
    exit_cv_.notify_all();
  });
  {
    // offload threads finish the calls they hold (their responses meet a shut-down server);
    // the queue threads still run meanwhile, to take those last completions
    std::lock_guard<std::mutex> l(job_mu_);
    jobs_done_ = true;
  }
  job_cv_.notify_all();
  const int n_workers = static_cast<int>(workers_.size());
  const int n_all = n_workers + static_cast<int>(threads_.size());
  {
    // workers first: their calls' last completions need the queue threads
    std::unique_lock<std::mutex> l(exit_mu_);
    exit_cv_.wait_until(l, give_up, [&] { return exited_ >= n_workers && shut_done->load(); });
  }
  {
    std::unique_lock<std::shared_mutex> lock(issue_mu_);
    closed_ = true;
    for (auto& cq : cqs_) cq->Shutdown();
  }
  bool all = false;
  {
    // a queue thread drains its queue in microseconds once it is shut down: the wait after
    // give_up is for threads that are between events, not in model calls
    std::unique_lock<std::mutex> l(exit_mu_);
    all = exit_cv_.wait_until(l, std::max(give_up, clock::now() + std::chrono::milliseconds(200)),
                              [&] { return exited_ >= n_all && shut_done->load(); });
  }
  if (all) {
    shutter.join();
    for (auto& t : workers_) t.join();
    for (auto& t : threads_) t.join();
    workers_.clear();
    threads_.clear();
    server_.reset();
    cqs_.clear();
    return 0;
  }
  // Abandoned: the threads still in calls (and the shutdown thread waiting for them) run on,
  // detached; the server, its queues and this object stay allocated for them (the owner
  // keeps this object: abandoned() > 0), so a call that returns later finds them intact.
  {
    std::lock_guard<std::mutex> l(exit_mu_);
    abandoned_ = n_all - exited_;
  }
  if (abandoned_ < 1) abandoned_ = 1;  // the shutdown thread alone
  shutter.detach();
  for (auto& t : workers_) t.detach();
  for (auto& t : threads_) t.detach();
  workers_.clear();
  threads_.clear();
  (void)server_.release();
  for (auto& cq : cqs_) (void)cq.release();
  cqs_.clear();
  return abandoned_;
}

}  // namespace pyasc_serve
