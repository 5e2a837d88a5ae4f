// libasc_mdl_python.so: runs the ACL model API's models (src/runtime/acl_mdl.cc) on pyasc's
// Python executor, python/pyasc/models/_acl_mdl.py.
//
// Linked without libpython on purpose: inside a Python process (ctypes, an extension module) its
// Py* symbols bind to the running interpreter; in a standalone program libasc has loaded libpython
// RTLD_GLOBAL before loading this library. When no interpreter is initialised yet, the first call
// starts one configured as the Python pyasc was built with (ASC_PYTHON_EXECUTABLE, or
// $PYASC_PYTHON: its sys.prefix and site-packages, so numpy and onnx import) with the directory
// holding this pyasc package first on sys.path, then releases the GIL. Every call takes the GIL
// with PyGILState_Ensure, so any thread may call, whether or not it already holds it.
//
// Python exceptions never leave this file: _acl_mdl's functions return (code, message, value),
// and anything unexpected (an import failure) becomes ACL_ERROR_INTERNAL_ERROR with the
// exception's text.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/acl_mdl_internal.h"

namespace {

namespace mdl = asc::runtime::mdl;

constexpr int kSuccess = 0;
constexpr int kInternalError = 500000;  // ACL_ERROR_INTERNAL_ERROR
constexpr int kFailure = 500001;        // ACL_ERROR_FAILURE

std::mutex g_init_mu;
bool g_ready = false;
std::string g_init_error;
PyObject* g_module = nullptr;  // pyasc.models._acl_mdl (a strong reference, never released)

// The site directory holding this package: <site>/pyasc/lib/libasc_mdl_python.so.
std::string package_root() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&asc_mdl_python_bridge), &info) || !info.dli_fname) return "";
  std::string p(info.dli_fname);
  for (int i = 0; i < 3; ++i) {
    const size_t slash = p.rfind('/');
    if (slash == std::string::npos) return "";
    p.resize(slash);
  }
  return p;
}

std::string status_text(const PyStatus& st) {
  std::string s = st.err_msg ? st.err_msg : "unknown error";
  if (st.func) s = std::string(st.func) + ": " + s;
  return s;
}

// Starts an interpreter if the process has none. Returns an aclError.
int ensure_interpreter(std::string* err) {
  std::lock_guard<std::mutex> lock(g_init_mu);
  if (g_ready) return kSuccess;
  if (!g_init_error.empty()) {
    *err = g_init_error;
    return kFailure;
  }
  if (!Py_IsInitialized()) {
    const char* exe = std::getenv("PYASC_PYTHON");
#ifdef ASC_PYTHON_EXECUTABLE
    if (!exe || !*exe) exe = ASC_PYTHON_EXECUTABLE;
#endif
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;  // the host program keeps its own signal handling
    config.parse_argv = 0;
    PyStatus st = PyStatus_Ok();
    if (exe && *exe) st = PyConfig_SetBytesString(&config, &config.program_name, exe);
    if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st)) {
      g_init_error = "cannot start the Python interpreter (" + std::string(exe ? exe : "default") +
                     "; set PYASC_PYTHON): " + status_text(st);
      *err = g_init_error;
      return kFailure;
    }
    const std::string root = package_root();
    if (!root.empty()) {
      PyObject* path = PySys_GetObject("path");  // borrowed
      PyObject* dir = PyUnicode_DecodeFSDefault(root.c_str());
      if (path && dir) PyList_Insert(path, 0, dir);
      Py_XDECREF(dir);
      PyErr_Clear();
    }
    PyEval_SaveThread();  // every call takes the GIL with PyGILState_Ensure
  }
  g_ready = true;
  return kSuccess;
}

struct Gil {
  PyGILState_STATE state;
  Gil() : state(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(state); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;
};

// The pending Python exception as "Type: message" (cleared).
std::string fetch_error() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string out = "Python error";
  if (type) {
    PyObject* name = PyObject_GetAttrString(type, "__name__");
    if (name && PyUnicode_Check(name)) out = PyUnicode_AsUTF8(name);
    Py_XDECREF(name);
  }
  if (value) {
    PyObject* s = PyObject_Str(value);
    if (s && PyUnicode_Check(s)) {
      const char* c = PyUnicode_AsUTF8(s);
      if (c) out += std::string(": ") + c;
    }
    Py_XDECREF(s);
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_Clear();
  return out;
}

// Calls _acl_mdl.<fn>(*args) (args is stolen). On success *value is a new reference to the result's
// value part. Must hold the GIL.
int call(const char* fn, PyObject* args, PyObject** value, std::string* err) {
  *value = nullptr;
  if (!args) {
    *err = "building the arguments failed: " + fetch_error();
    return kInternalError;
  }
  if (!g_module) {
    g_module = PyImport_ImportModule("pyasc.models._acl_mdl");
    if (!g_module) {
      Py_DECREF(args);
      *err = "cannot import pyasc.models._acl_mdl (is pyasc installed for this Python?): " + fetch_error();
      return kFailure;
    }
  }
  PyObject* f = PyObject_GetAttrString(g_module, fn);
  PyObject* r = f ? PyObject_CallObject(f, args) : nullptr;
  Py_XDECREF(f);
  Py_DECREF(args);
  if (!r) {
    *err = std::string("_acl_mdl.") + fn + " raised " + fetch_error();
    return kInternalError;
  }
  int code = kInternalError;
  if (PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 3) {
    code = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(r, 0)));
    if (PyErr_Occurred()) {
      PyErr_Clear();
      code = kInternalError;
    }
    if (code != kSuccess) {
      const char* m = PyUnicode_Check(PyTuple_GET_ITEM(r, 1)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(r, 1)) : nullptr;
      *err = m ? m : "unknown error";
      PyErr_Clear();
    } else {
      *value = PyTuple_GET_ITEM(r, 2);
      Py_INCREF(*value);
    }
  } else {
    *err = std::string("_acl_mdl.") + fn + " returned an unexpected value";
  }
  Py_DECREF(r);
  return code;
}

bool as_size(PyObject* o, size_t* out) {
  const unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (PyErr_Occurred()) return false;
  *out = static_cast<size_t>(v);
  return true;
}

bool parse_dims(PyObject* list, std::vector<int64_t>* out) {
  if (!PyList_Check(list)) return false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i) {
    const long long v = PyLong_AsLongLong(PyList_GET_ITEM(list, i));
    if (PyErr_Occurred()) return false;
    out->push_back(v);
  }
  return true;
}

bool parse_tensors(PyObject* list, std::vector<mdl::TensorInfo>* out) {
  if (!PyList_Check(list)) return false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i) {
    PyObject* t = PyList_GET_ITEM(list, i);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 8) return false;
    mdl::TensorInfo info;
    const char* name = PyUnicode_Check(PyTuple_GET_ITEM(t, 0)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(t, 0)) : nullptr;
    if (!name) return false;
    info.name = name;
    if (!parse_dims(PyTuple_GET_ITEM(t, 1), &info.dims)) return false;
    info.dtype = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(t, 2)));
    info.format = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(t, 3)));
    if (!as_size(PyTuple_GET_ITEM(t, 4), &info.size)) return false;
    const long axis = PyLong_AsLong(PyTuple_GET_ITEM(t, 5));
    info.batch_axis = axis < 0 ? SIZE_MAX : static_cast<size_t>(axis);
    if (!as_size(PyTuple_GET_ITEM(t, 6), &info.sample_bytes)) return false;
    PyObject* aipp = PyTuple_GET_ITEM(t, 7);  // the static AIPP record (_acl_mdl.static_aipp_record) or []
    if (!PyList_Check(aipp)) return false;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(aipp); ++k) {
      const double v = PyFloat_AsDouble(PyList_GET_ITEM(aipp, k));
      if (PyErr_Occurred()) return false;
      info.static_aipp.push_back(v);
    }
    if (PyErr_Occurred()) return false;
    out->push_back(std::move(info));
  }
  return true;
}

// (kind, gears, gear_dims) of a dynamic-image-size / dynamic-dims model (_acl_mdl.load), kind 0 otherwise.
bool parse_rows(PyObject* list, std::vector<std::vector<int64_t>>* out) {
  if (!PyList_Check(list)) return false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i) {
    std::vector<int64_t> row;
    if (!parse_dims(PyList_GET_ITEM(list, i), &row)) return false;
    out->push_back(std::move(row));
  }
  return true;
}

bool parse_dynamic(PyObject* t, mdl::ModelInfo* info) {
  if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3) return false;
  const long kind = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
  if (PyErr_Occurred() || kind < mdl::kDynNone || kind > mdl::kDynDims) return false;
  info->dyn_kind = static_cast<int>(kind);
  return parse_rows(PyTuple_GET_ITEM(t, 1), &info->gears) && parse_rows(PyTuple_GET_ITEM(t, 2), &info->gear_dims) &&
         info->gears.size() == info->gear_dims.size() && (kind == mdl::kDynNone) == info->gears.empty();
}

PyObject* source_args(const char* path, const void* data, size_t size) {
  if (path) return Py_BuildValue("(sO)", path, Py_None);
  return Py_BuildValue("(Oy#)", Py_None, static_cast<const char*>(data), static_cast<Py_ssize_t>(size));
}

int load(const char* path, const void* data, size_t size, uint32_t id, mdl::ModelInfo* info, std::string* err) {
  if (int c = ensure_interpreter(err)) return c;
  Gil gil;
  PyObject* src = source_args(path, data, size);
  PyObject* args = src ? Py_BuildValue("(OOI)", PyTuple_GET_ITEM(src, 0), PyTuple_GET_ITEM(src, 1), id) : nullptr;
  Py_XDECREF(src);
  PyObject* v = nullptr;
  if (int c = call("load", args, &v, err)) return c;
  bool ok = PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 6 && parse_tensors(PyTuple_GET_ITEM(v, 0), &info->inputs) &&
            parse_tensors(PyTuple_GET_ITEM(v, 1), &info->outputs);
  std::vector<int64_t> gears;
  ok = ok && parse_dims(PyTuple_GET_ITEM(v, 2), &gears) && as_size(PyTuple_GET_ITEM(v, 3), &info->work_size) &&
       as_size(PyTuple_GET_ITEM(v, 4), &info->weight_size) && parse_dynamic(PyTuple_GET_ITEM(v, 5), info);
  for (int64_t g : gears) info->batch_gears.push_back(static_cast<uint64_t>(g));
  Py_DECREF(v);
  if (!ok) {
    *err = "_acl_mdl.load returned a malformed description: " + fetch_error();
    // the session was registered; drop it so that nothing leaks
    PyObject* r = nullptr;
    std::string ignored;
    if (call("unload", Py_BuildValue("(I)", id), &r, &ignored) == kSuccess) Py_XDECREF(r);
    return kInternalError;
  }
  return kSuccess;
}

int query_size(const char* path, const void* data, size_t size, size_t* work, size_t* weight, std::string* err) {
  if (int c = ensure_interpreter(err)) return c;
  Gil gil;
  PyObject* v = nullptr;
  if (int c = call("query_size", source_args(path, data, size), &v, err)) return c;
  const bool ok = PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 2 && as_size(PyTuple_GET_ITEM(v, 0), work) &&
                  as_size(PyTuple_GET_ITEM(v, 1), weight);
  Py_DECREF(v);
  if (!ok) {
    *err = "_acl_mdl.query_size returned a malformed value: " + fetch_error();
    return kInternalError;
  }
  return kSuccess;
}

// A memoryview over caller memory (a zero-size view for empty buffers, which may be NULL).
PyObject* view(const mdl::Buffer& b, bool writable) {
  static char empty[1];
  char* p = b.size ? static_cast<char*>(b.data) : empty;
  return PyMemoryView_FromMemory(p, static_cast<Py_ssize_t>(b.size), writable ? PyBUF_WRITE : PyBUF_READ);
}

void release_views(PyObject* list) {
  for (Py_ssize_t i = 0; list && i < PyList_GET_SIZE(list); ++i) {
    PyObject* r = PyObject_CallMethod(PyList_GET_ITEM(list, i), "release", nullptr);
    Py_XDECREF(r);
    PyErr_Clear();  // still exported by an array someone kept: the view just stays alive
  }
}

int execute(uint32_t id, const mdl::Buffer* inputs, size_t n_inputs, const mdl::Buffer* outputs, size_t n_outputs,
            uint64_t batch, std::vector<std::vector<int64_t>>* out_dims, std::string* err) {
  if (int c = ensure_interpreter(err)) return c;
  Gil gil;
  PyObject* ins = PyList_New(static_cast<Py_ssize_t>(n_inputs));
  PyObject* outs = PyList_New(static_cast<Py_ssize_t>(n_outputs));
  bool ok = ins && outs;
  for (size_t i = 0; ok && i < n_inputs; ++i) {
    PyObject* v = view(inputs[i], false);
    ok = v != nullptr;
    if (ok) PyList_SET_ITEM(ins, static_cast<Py_ssize_t>(i), v);
  }
  for (size_t i = 0; ok && i < n_outputs; ++i) {
    PyObject* v = view(outputs[i], true);
    ok = v != nullptr;
    if (ok) PyList_SET_ITEM(outs, static_cast<Py_ssize_t>(i), v);
  }
  if (!ok) {
    *err = "cannot wrap the buffers: " + fetch_error();
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    return kInternalError;
  }
  PyObject* v = nullptr;
  int code = call("execute", Py_BuildValue("(IOOK)", id, ins, outs, static_cast<unsigned long long>(batch)), &v, err);
  release_views(ins);
  release_views(outs);
  Py_DECREF(ins);
  Py_DECREF(outs);
  if (code) return code;
  ok = PyList_Check(v);
  for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(v); ++i) {
    std::vector<int64_t> d;
    ok = parse_dims(PyList_GET_ITEM(v, i), &d);
    out_dims->push_back(std::move(d));
  }
  Py_DECREF(v);
  if (!ok) {
    *err = "_acl_mdl.execute returned malformed dims: " + fetch_error();
    return kInternalError;
  }
  return kSuccess;
}

int unload(uint32_t id, std::string* err) {
  if (int c = ensure_interpreter(err)) return c;
  Gil gil;
  PyObject* v = nullptr;
  int code = call("unload", Py_BuildValue("(I)", id), &v, err);
  Py_XDECREF(v);
  return code;
}

const mdl::Bridge kBridge = {mdl::kBridgeAbi, &load, &query_size, &execute, &unload};

}  // namespace

extern "C" __attribute__((visibility("default"))) const asc::runtime::mdl::Bridge* asc_mdl_python_bridge(void) {
  return &kBridge;
}
