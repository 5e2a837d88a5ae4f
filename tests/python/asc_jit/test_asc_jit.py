"""@asc.jit kernels written in the asc language, run on the CPU device, checked against NumPy."""

import os

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
import pyasc

import asc_jit_kernels as K

RNG = np.random.default_rng(2026)


def test_add_direct_addresses_and_flags():
    n, blocks = 8 * 1024, 8
    x = RNG.random(n, dtype=np.float32)
    y = RNG.random(n, dtype=np.float32)
    z = np.zeros_like(x)
    K.add_direct[blocks, rt.current_stream()](x, y, z, n // blocks, 256)
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_vadd_double_buffer_helpers(dtype):
    blocks, tile = 4, 512
    n = blocks * tile * 6
    x = (RNG.random(n) * 100 - 50).astype(dtype)
    y = (RNG.random(n) * 100 - 50).astype(dtype)
    z = np.full_like(x, 7)
    K.vadd_pipe[blocks, rt.current_stream()](x, y, z, n // blocks, tile, 2)
    np.testing.assert_array_equal(z, x + y)  # IEEE addition in the element type, as NumPy


def test_vadd_views_and_readonly_inputs():
    blocks, tile = 2, 256
    n = blocks * tile * 2
    base = RNG.random(2 * n, dtype=np.float32)
    x = base[::2]                      # a strided view: copied in
    y = RNG.random(n, dtype=np.float32)
    y.flags.writeable = False          # read-only: passed as a copy
    zbase = np.zeros((n, 2), dtype=np.float32)
    z = zbase[:, 0]                    # a strided output: written back
    K.vadd_pipe[blocks](x, y, z, n // blocks, tile, 2)
    np.testing.assert_array_equal(z, x + y)
    assert not zbase[:, 1].any()


def test_specialisation_cache_hit_and_disk_cache(jit_cache_dir):
    n, blocks, tile = 4096, 4, 512
    x = RNG.random(n, dtype=np.float32)
    y = RNG.random(n, dtype=np.float32)
    z = np.zeros_like(x)
    ck = K.vadd_pipe.warmup(x, y, z, n // blocks, tile, 2)
    K.vadd_pipe[blocks](x, y, z, n // blocks, tile, 2)
    assert K.vadd_pipe.warmup(x, y, z, n // blocks, tile, 2) is ck   # in-memory hit: no new translation
    # A fresh JITFunction of the same source finds the library on disk.
    again = asc.jit(K.vadd_pipe.fn)
    z2 = np.zeros_like(x)
    again[blocks](x, y, z2, n // blocks, tile, 2)
    assert again.last_compiled.compiled_now is False
    assert again.last_compiled.lib_path == ck.lib_path
    assert os.path.dirname(ck.lib_path) == jit_cache_dir
    np.testing.assert_array_equal(z2, x + y)


def test_constexpr_specialisation_static_range_compile_time_if():
    n = 256
    x = (RNG.random(n, dtype=np.float32) - 0.5) * 8
    runs = [(2.0, True, 3), (-0.5, False, 1)]
    before = len(K.scale_shift._cache)
    for scale, relu, passes in runs:
        z = np.zeros_like(x)
        K.scale_shift[1](x, z, n, scale, relu, passes)
        want = x * np.float32(scale) + np.float32(passes)
        if relu:
            want = np.maximum(want, 0)
        np.testing.assert_allclose(z, want, rtol=1e-6)
        assert f"{float(scale)!r}f" in K.scale_shift.last_compiled.source  # the constant is compiled in
    assert len(K.scale_shift._cache) - before == 2


@pytest.mark.parametrize("n", [5000, 1])
def test_reduction_loop_carried_runtime_if(n):
    blocks = 4
    block_length = -(-n // blocks)
    x = RNG.random(n, dtype=np.float32)
    out = np.full(blocks, -1.0, dtype=np.float32)
    used = -(-n // block_length)
    K.block_sums[used](x, out, n, block_length, 64)
    want = [x[b * block_length:(b + 1) * block_length].sum(dtype=np.float64) for b in range(used)]
    np.testing.assert_allclose(out[:used], want, rtol=1e-5)
    assert (out[used:] == -1).all()


def _tiling(m, n, k, dim):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(True)
    t.set_fix_split(64, 64, -1)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def test_host_tiling_is_consistent():
    t = _tiling(256, 192, 128, 8)
    assert 1 <= t.used_core_num <= 8
    assert (t.m, t.n, t.k_a, t.k_b) == (256, 192, 128, 128)
    assert t.base_m == 64 and t.base_n == 64
    assert -(-256 // t.single_core_m) * -(-192 // t.single_core_n) == t.used_core_num
    t = _tiling(256, 128, 128, 8)
    assert t.single_core_m % t.base_m == 0 and t.single_core_n % t.base_n == 0
    assert t.base_m * t.base_n * 4 <= asc.property(asc.TOTAL_L0C_SIZE)
    bad = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    assert bad.get_tiling(asc.adv.TCubeTiling()) == -1  # no types set: refused, as the C++ API


def test_matmul_leakyrelu_mix_cube_path():
    m, n, k, dim = 256, 128, 128, 8
    a = RNG.integers(-5, 5, (m, k)).astype(np.float16)
    b = RNG.integers(-5, 5, (k, n)).astype(np.float16)
    bias = RNG.integers(-5, 5, (1, n)).astype(np.float32)
    tiling = _tiling(m, n, k, dim)
    assert tiling.single_core_m % tiling.base_m == 0 and tiling.single_core_n % tiling.base_n == 0  # no tails
    c = np.zeros((m, n), dtype=np.float32)
    workspace = np.zeros(1024, dtype=np.uint8)
    # MIX: core_num groups of one cube + two vector instances; the vector instances cover the tiling's blocks.
    K.matmul_leakyrelu[-(-tiling.used_core_num // 2), rt.current_stream()](a, b, c, bias, 0.125, tiling, workspace)
    ref = a.astype(np.float32) @ b.astype(np.float32) + bias
    np.testing.assert_allclose(c, np.where(ref >= 0, ref, ref * 0.125), rtol=1e-6, atol=1e-6)
    assert K.matmul_leakyrelu.last_compiled.mode == "mix"


def test_translation_error_names_python_line():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        undefined_name_here(x_gm)  # noqa: F821

    with pytest.raises(asc.CompilationError) as ei:
        bad[1](np.zeros(8, np.float32))
    msg = str(ei.value)
    line = bad.fn.__code__.co_firstlineno + 4
    assert f"{__file__}:{line}:" in msg and "undefined_name_here" in msg
    assert "undefined_name_here(x_gm)" in msg.splitlines()[-1]  # the source line is quoted
    assert isinstance(ei.value, pyasc.AscendError) and isinstance(ei.value, SyntaxError)


def test_unsupported_statement_and_constexpr_misuse():
    @asc.jit
    def uses_try(x: asc.GlobalAddress):
        try:
            pass
        finally:
            pass

    with pytest.raises(asc.CompilationError, match=r"test_asc_jit.py:\d+: 'Try' statements are not supported"):
        uses_try[1](np.zeros(8, np.float32))

    @asc.jit
    def queue_depth_runtime(x: asc.GlobalAddress, depth: int):
        q = asc.TQue(asc.TPosition.VECIN, depth)  # noqa: F841

    with pytest.raises(asc.KernelTypeError, match="depth must be a compile-time integer"):
        queue_depth_runtime[1](np.zeros(8, np.float32), 2)
    with pytest.raises(asc.CompilationError, match=r"launch kernel 'uses_try' with uses_try\[core_num, stream\]"):
        uses_try(np.zeros(8, np.float32))


def test_cpp_compile_error_points_at_python_line():
    @asc.jit
    def mixed_types(x: asc.GlobalAddress, y: asc.GlobalAddress):
        a = asc.LocalTensorAuto(x.dtype, 64)
        b = asc.LocalTensorAuto(y.dtype, 64)
        asc.add(a, a, b, 64)  # float32 + int32 tensors: the C++ API has no such Add

    with pytest.raises(asc.CompilationError) as ei:
        mixed_types[1](np.zeros(64, np.float32), np.zeros(64, np.int32))
    line = mixed_types.fn.__code__.co_firstlineno + 4
    assert f"{__file__}:{line}" in str(ei.value)


def test_runtime_assert_fails_launch_with_source_line():
    x = np.zeros(4, dtype=np.int64)
    K.checked_positive[1](x, 9)
    assert x[0] == 9
    with pytest.raises(pyasc.AscendError, match=r"kernels.py:\d+: n must be positive"):
        K.checked_positive[1](x, 0)


def test_bad_launch_arguments():
    x = np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="core_num must be an integer >= 1"):
        K.add_direct[0](x, x, x, 64, 64)
    with pytest.raises(TypeError, match="not a kernel argument"):
        K.add_direct[1](x, x, "z", 64, 64)
    with pytest.raises(TypeError):
        K.add_direct[1](x, x)


def test_platform_selection():
    config.set_platform(config.Backend.Model)
    config.set_platform("Model", config.Platform.Ascend910B1)
    with pytest.raises(pyasc.AscendRuntimeError, match="no Ascend NPU here"):
        config.set_platform(config.Backend.NPU)
    with pytest.raises(ValueError, match="unknown backend"):
        config.set_platform("GPU")
    assert rt.current_stream() == pyasc.current_stream()


def test_kernel_checker_and_dump_path(run_python, tmp_path, jit_cache_dir):
    code = f"""
        import sys, numpy as np
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import pyasc, asc_jit_kernels as K
        x = np.zeros(32, np.float32); z = np.zeros(64, np.float32)
        try:
            K.out_of_bounds[1](x, z, 32)
        except pyasc.AscendError as e:
            print("ERR", type(e).__name__, e)
    """
    r = run_python(code, env={"ASCEND_DEBUG": "1", "PYASC_CACHE_DIR": jit_cache_dir,
                              "PYASC_DUMP_PATH": str(tmp_path)}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ERR AscendRuntimeError" in r.stdout and "gm-out-of-bounds" in r.stdout, r.stdout + r.stderr
    dumped = list(tmp_path.glob("out_of_bounds_*.cpp"))
    assert len(dumped) == 1 and "AscendC::DataCopy" in dumped[0].read_text()


@pytest.mark.parametrize("flip", [0, 3])
def test_quant_runtime_if_declares_names_of_both_branches(flip):
    n = 64
    src = ((RNG.random(n) * 8 - 4).astype(np.float32))
    dst = np.zeros(n, np.int8)
    K.quant_rows[1](src, dst, n, 2.0, 0.9, flip)
    x = -src if flip % 2 else src
    want = np.clip(np.rint(x * np.float32(2.0) + np.float32(0.9)), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(dst, want)
    assert "float factor{};" in K.quant_rows.last_compiled.source  # hoisted before the if


def test_softmax_rows_vs_numpy():
    rows, width = 8, 256
    src = (RNG.random((rows, width), dtype=np.float32) * 10 - 5)
    dst = np.zeros_like(src)
    K.row_softmax[1](src, dst, rows, width)
    e = np.exp(src.astype(np.float64) - src.max(axis=1, keepdims=True))
    np.testing.assert_allclose(dst, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)


def test_adv_math_functions_vs_numpy():
    from math import lgamma

    n = 64
    x = np.linspace(-0.95, 0.95, n).astype(np.float32)
    x[::7] = np.array([-0.5, 0.5, -1.5 / 2, 0.0, 0.25, -0.25, 0.75, 0.125, 0.5, -0.5], np.float32)[: len(x[::7])]
    p = np.linspace(0.3, 9.0, n).astype(np.float32)
    out = np.zeros(9 * n, np.float32)
    K.adv_math[1](x, p, out, n)
    r = out.reshape(9, n)
    xd, pd = x.astype(np.float64), p.astype(np.float64)
    h = 1e-6  # digamma: central difference of lgamma in float64 (no scipy)
    dig = np.array([(lgamma(v + h) - lgamma(v - h)) / (2 * h) for v in pd])
    refs = [np.sin(xd), np.array([__import__("math").erf(v) for v in xd]), np.arctanh(xd), np.rint(x),
            np.array([lgamma(v) for v in pd]), dig, pd ** xd, np.exp(xd), np.log(pd)]
    tols = [1e-7, 1e-7, 1e-7, 0, 1e-6, 1e-5, 1e-7, 1e-7, 1e-7]
    names = ["sin", "erf", "atanh", "round", "lgamma", "digamma", "power", "exp", "log"]
    for name, got, want, tol in zip(names, r, refs, tols):
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=max(tol, 2e-7), atol=tol, err_msg=name)


def _taylor_exp_golden(x, level):
    """CANN's library Exp (the 10_math/exp sample's golden): exp(floor(x)) * the level-term Taylor
    polynomial of the fraction, in float32."""
    if level == 0:
        return np.exp(x.astype(np.float64)).astype(x.dtype)
    xf = x.astype(np.float32)
    a = np.floor(xf)
    f = xf - a
    item = np.ones_like(f)
    res = np.ones_like(f)
    for i in range(level):
        item = item * (f / np.float32(i + 1))
        res = res + item
    return (np.exp(a) * res).astype(x.dtype)


@pytest.mark.parametrize("level", [0, 1, 3, 10])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_adv_exp_taylor_level_vs_cann_formula(level, dtype):
    n = 256
    x = np.random.default_rng(level).uniform(-10, 10, n).astype(dtype)
    out = np.zeros(n, dtype)
    K.adv_exp_taylor[1](x, out, n, level)
    want = _taylor_exp_golden(x, level)
    tol = 1e-6 if dtype == np.float32 else 1e-3
    np.testing.assert_allclose(out, want, rtol=tol, atol=0)
    if level in (1, 3):  # a short expansion is visibly not the exponential (CANN's truncation error)
        assert np.max(np.abs(out.astype(np.float64) / np.exp(x.astype(np.float64)) - 1)) > 1e-3


def test_adv_exp_taylor_level_out_of_range():
    with pytest.raises(Exception, match="taylor_expand_level must be in"):
        K.adv_exp_taylor[1](np.zeros(16, np.float32), np.zeros(16, np.float32), 16, 256)


def test_adv_rmsnorm_vs_numpy():
    rows, h, oh = 6, 16, 13
    x = (RNG.random((rows, h)) * 4 - 2).astype(np.float32)
    g = (RNG.random(h) * 2 - 1).astype(np.float32)
    dst = np.full_like(x, 9.0)
    tiling = asc.adv.RmsNormTiling(b_length=2, s_length=3, h_length=h, original_h_length=oh)
    K.adv_rmsnorm[1](x, g, dst, 1e-4, tiling, rows, h)
    xd = x[:, :oh].astype(np.float64)
    want = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + 1e-4) * g[:oh]
    np.testing.assert_allclose(dst[:, :oh], want, rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(dst[:, oh:], 0.0)


@pytest.mark.parametrize("thr", [0.5, 2.0])
def test_helper_returns_inside_runtime_if_and_for(thr):
    n = 16
    x = RNG.random(n).astype(np.float32)
    out = np.zeros(n + 2, np.float32)
    K.helper_returns[1](x, out, n, thr)
    idx = np.clip(np.arange(n) - 2, 0, n - 5)
    np.testing.assert_array_equal(out[:n], x[idx])
    hits = np.nonzero(x >= np.float32(thr))[0]
    want = (hits[0], x[hits[0]]) if hits.size else (-1, 0.0)
    assert (out[n], out[n + 1]) == (np.float32(want[0]), np.float32(want[1]))


def test_helper_labelled_return_needs_one_type():
    @asc.jit
    def two_types(a: int, b: float):
        if a > 0:
            return a
        return b

    @asc.jit
    def k(x: asc.GlobalAddress, a: int, b: float):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        g.set_value(0, two_types(a, b))

    with pytest.raises(asc.KernelTypeError, match="different types"):
        k[1](np.zeros(8, np.float32), 1, 2.0)


def test_sync_all_one_block_is_a_fence():
    x = np.arange(8, dtype=np.float32)
    K.sync_all_twice[1](x, 8)
    np.testing.assert_array_equal(x, (np.arange(8, dtype=np.float32) + 1) * 2)
    # Across blocks: test_asc_jit_sync.py (this kernel's blocks would race on x).
