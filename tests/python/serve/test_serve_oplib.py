"""Serving one op of an operator library (model.so through asc.load_op_library)."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from serve_models import write

grpcclient = pytest.importorskip("tritonclient.grpc")
from tritonclient.utils import InferenceServerException  # noqa: E402

SRC = r'''
#include "asc/op_library.h"
ASC_REGISTER_OP("ServeTestScaledAdd{tag}")
    .Input("x").Input("y").Output("z")
    .Doc("z = x + {scale} * y (float32)")
    .InferShape([](asc::oplib::InferContext& c) {{ c.set_output(0, c.input_shape(0), c.input_dtype(0)); }})
    .Kernel([](asc::oplib::KernelContext& c) {{
      auto x = c.input(0).data<float>();
      auto y = c.input(1).data<float>();
      auto z = c.output(0).data<float>();
      int64_t n = c.input(0).numel();
      for (int64_t i = 0; i < n; ++i) z[i] = x[i] + {scale}f * y[i];
    }});
'''

CONFIG = """
backend: "pyasc_op"
max_batch_size: 0
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] }, { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "z" data_type: TYPE_FP32 dims: [ -1 ] } ]
"""


def _compile_all(jobs, tmp):
    """Compiles [(dst, tag, scale)] concurrently (one c++ process each)."""
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    inc = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include")
    procs = []
    for i, (dst, tag, scale) in enumerate(jobs):
        src = os.path.join(tmp, f"op{i}.cpp")
        with open(src, "w") as f:
            f.write(SRC.format(tag=tag, scale=scale))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        procs.append(subprocess.Popen([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{inc}", src, "-o", dst]))
    for p in procs:
        assert p.wait(timeout=180) == 0


def test_op_library_served(tmp_path, serve_factory, rng):
    import pyasc as asc

    if not hasattr(asc, "load_op_library"):
        pytest.skip("asc.load_op_library is not in this build")
    repo = tmp_path / "repo"
    v2 = tmp_path / "v2" / "model.so"
    _compile_all([(str(repo / "opadd" / "1" / "model.so"), "A", "2.0"), (str(v2), "A", "3.0")], str(tmp_path))
    write(str(repo / "opadd" / "config.pbtxt"), CONFIG)
    s = serve_factory(str(repo), model_control_mode="explicit", load_models=["opadd"])
    g = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    x = rng.standard_normal(10).astype(np.float32)
    y = rng.standard_normal(10).astype(np.float32)
    ins = [grpcclient.InferInput("x", [10], "FP32"), grpcclient.InferInput("y", [10], "FP32")]
    ins[0].set_data_from_numpy(x)
    ins[1].set_data_from_numpy(y)
    np.testing.assert_allclose(g.infer("opadd", ins).as_numpy("z"), x + 2 * y, rtol=1e-6)
    assert g.get_model_metadata("opadd").platform == "pyasc_op"
    # a second version of the same library (same op name, other code) loads next to version 1,
    # each under its own namespace; traffic switches to it; with policy "all" both serve (A/B)
    assert not hasattr(asc.ops, "ServeTestScaledAddA")  # namespaced, not process-wide
    os.makedirs(repo / "opadd" / "2")
    shutil.copy(v2, repo / "opadd" / "2" / "model.so")
    g.load_model("opadd")
    r = g.infer("opadd", ins)
    assert r.get_response().model_version == "2"
    np.testing.assert_allclose(r.as_numpy("z"), x + 3 * y, rtol=1e-6)
    write(str(repo / "opadd" / "config.pbtxt"), CONFIG + "version_policy: { all { } }\n"
          'parameters { key: "ab_split" value: { string_value: "1:50,2:50" } }\n')
    g.load_model("opadd")
    np.testing.assert_allclose(g.infer("opadd", ins, model_version="1").as_numpy("z"), x + 2 * y, rtol=1e-6)
    np.testing.assert_allclose(g.infer("opadd", ins, model_version="2").as_numpy("z"), x + 3 * y, rtol=1e-6)
    seen = set()
    for i in range(40):
        z = g.infer("opadd", ins, parameters={"session_id": f"s{i}"}).as_numpy("z")
        seen.add(2 if np.allclose(z, x + 2 * y, rtol=1e-6) else 3 if np.allclose(z, x + 3 * y, rtol=1e-6) else 0)
    assert seen == {2, 3}, seen
    libs = [n for n in dir(asc.ops) if n.startswith("serve_opadd_")]
    assert len(libs) == 2, libs
    # unload frees both versions' ops and namespaces
    g.unload_model("opadd")
    assert not [n for n in dir(asc.ops) if n.startswith("serve_opadd_")]
