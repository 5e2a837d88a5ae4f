"""asc.torch: zero-copy DLPack both ways, pyasc ops inside torch.autograd (registered gradients and
asc.vjp), autocast, torch's error semantics; compared against torch itself. Skipped without torch."""
import gc
import math
import os
import signal
import time
import warnings

import numpy as np
import pytest

import pyasc as asc

torch = pytest.importorskip("torch")

SHARED = asc.torch.SHARED_DTYPES


@pytest.fixture(autouse=True)
def _clean():
    before = set(asc.ops.registered())
    yield
    for name in set(asc.ops.registered()) - before:
        asc.ops.unregister(name)


def _ptr(a):
    """The array's data address: __array_interface__, or for bfloat16 (no NumPy typestr) the address
    its DLPack export carries."""
    if str(a.dtype) == "bfloat16":
        return torch.from_dlpack(a).data_ptr()
    return a.__array_interface__["data"][0]


def _sample(dtype_name, shape=(3, 4)):
    """A torch tensor of the dtype with distinct, exactly representable values."""
    n = int(np.prod(shape))
    dt = getattr(torch, dtype_name)
    if dtype_name == "bool":
        return (torch.arange(n) % 3 == 0).reshape(shape)
    if dtype_name.startswith("complex"):
        return (torch.arange(n, dtype=torch.float64) + 1j * torch.arange(n, 0, -1)).to(dt).reshape(shape)
    if dtype_name.startswith("uint") and dtype_name != "uint8":  # torch's limited uint16/32/64 kernels
        return torch.arange(n, dtype=torch.int64).reshape(shape).to(dt)
    return torch.arange(n).reshape(shape).to(dt)


def _as_np(t):
    """Exact values of a tensor as NumPy (bfloat16 through float32, uint16/32/64 through int64)."""
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return t.to(torch.int64).numpy()
    return t.numpy()


def _asc_np(a):
    if str(a.dtype) == "bfloat16":
        return a.astype(asc.float32).numpy()
    if str(a.dtype) in ("uint16", "uint32", "uint64"):
        return a.astype(asc.int64).numpy()
    return a.numpy()


# --------------------------------------------------------------------------------------------- DLPack

@pytest.mark.parametrize("dtype", SHARED)
def test_from_torch_is_zero_copy_for_every_shared_dtype(dtype):
    t = _sample(dtype)
    a = asc.torch.from_torch(t)
    assert str(a.dtype) == dtype and tuple(a.shape) == tuple(t.shape)
    assert _ptr(a) == t.data_ptr()
    np.testing.assert_array_equal(_asc_np(a), _as_np(t))
    one = _sample(dtype, (1,))[0] if dtype != "bool" else torch.tensor(False)
    t[2, 3] = one if dtype != "bool" else True  # torch writes, pyasc sees
    assert _asc_np(a)[2, 3] == _as_np(t)[2, 3]
    a[0, 1] = a[2, 3]  # pyasc writes, torch sees
    assert _as_np(t)[0, 1] == _as_np(t)[2, 3]


@pytest.mark.parametrize("dtype", SHARED)
def test_to_torch_is_zero_copy_for_every_shared_dtype(dtype):
    a = asc.torch.from_torch(_sample(dtype)).copy()  # an array pyasc owns
    t = asc.torch.to_torch(a)
    assert str(t.dtype) == "torch." + dtype and tuple(t.shape) == tuple(a.shape)
    assert t.data_ptr() == _ptr(a)
    np.testing.assert_array_equal(_as_np(t), _asc_np(a))
    t[1, 1] = t[2, 2]
    assert _asc_np(a)[1, 1] == _asc_np(a)[2, 2]
    a[0, 0] = a[1, 2]
    assert _as_np(t)[0, 0] == _as_np(t)[1, 2]


def test_non_contiguous_views_keep_their_strides_both_ways():
    base = torch.arange(60, dtype=torch.float64).reshape(5, 12)
    for v in (base.t(), base[1:, ::3], base.t()[::2, 1:4], base[:, 0:1].expand(5, 7), base[2, 3]):
        a = asc.torch.from_torch(v)
        assert _ptr(a) == v.data_ptr()
        assert tuple(a.strides) == tuple(s * 8 for s in v.stride())
        np.testing.assert_array_equal(a.numpy(), v.numpy())
    pa = asc.arange(60, dtype=asc.float32).reshape(5, 12)
    for v in (pa.T, pa[1:, ::3], pa.T[::2, 1:4], pa[3]):
        t = asc.torch.to_torch(v)
        assert t.data_ptr() == _ptr(v)
        assert tuple(s * 4 for s in t.stride()) == tuple(v.strides)
        np.testing.assert_array_equal(t.numpy(), v.numpy())
    t = asc.torch.to_torch(pa.T)
    t[0, 4] = -1.0  # through a transposed view: pa[4, 0]
    assert pa.numpy()[4, 0] == -1.0


def test_empty_and_zero_dim():
    for t in (torch.empty(0, 3), torch.tensor(2.5), torch.empty(4, 0, 2, dtype=torch.int32)):
        a = asc.torch.from_torch(t)
        assert tuple(a.shape) == tuple(t.shape) and str(a.dtype) == str(t.dtype)[6:]
        back = asc.torch.to_torch(a)
        assert back.shape == t.shape
        np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_lifetimes_cross_the_boundary():
    t = torch.arange(1000, dtype=torch.float32)
    a = asc.torch.from_torch(t)
    del t
    gc.collect()
    assert float(a.sum()) == sum(range(1000))
    b = asc.arange(500, dtype=asc.float64) * 2
    tb = asc.torch.to_torch(b)  # a lazy result: computed first
    del b
    gc.collect()
    assert float(tb.sum()) == 2 * sum(range(500))


def test_to_torch_negative_strides_and_read_only_as_torch_from_numpy():
    rev = asc.arange(5, dtype=asc.float32)[::-1]
    with pytest.raises(asc.AscendValueError, match=r"negative.*copy\(\)"):
        asc.torch.to_torch(rev)
    np.testing.assert_array_equal(asc.torch.to_torch(rev.copy()).numpy(), [4, 3, 2, 1, 0])
    ro = asc.arange(4, dtype=asc.float32)
    ro.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = asc.torch.to_torch(ro)  # torch.from_numpy's behaviour: shared memory, a warning
    assert t.data_ptr() == _ptr(ro)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asc.torch.to_torch(asc.arange(3))  # writable: no warning


def test_from_torch_errors_are_torchs_with_pyasc_classes():
    # each the builtin Tensor.numpy() raises for the same tensor
    with pytest.raises(asc.AscendRuntimeError, match=r"requires grad.*detach"):
        asc.torch.from_torch(torch.ones(3, requires_grad=True))
    with pytest.raises(RuntimeError):
        asc.torch.from_torch(torch.ones(3, requires_grad=True))
    assert asc.torch.from_torch(torch.ones(3, requires_grad=True).detach()).shape == (3,)
    with pytest.raises(asc.AscendTypeError, match=r"device meta.*cpu\(\)"):
        asc.torch.from_torch(torch.empty(2, 3, device="meta"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "ComplexHalf support is experimental"
        half_c = torch.zeros(2, dtype=torch.complex32)
        quant = torch.quantize_per_tensor(torch.zeros(2), 0.1, 0, torch.qint8)  # deprecated in torch 2.15
    for t in (half_c, torch.zeros(2, dtype=torch.float8_e4m3fn), quant):
        with pytest.raises(asc.AscendTypeError, match=f"unsupported dtype {t.dtype}"):
            asc.torch.from_torch(t)
    with pytest.raises(asc.AscendTypeError, match="to_dense"):
        asc.torch.from_torch(torch.eye(3).to_sparse())
    with pytest.raises(asc.AscendRuntimeError, match="resolve_conj"):
        asc.torch.from_torch(torch.ones(2, dtype=torch.complex64).conj())
    with pytest.raises(asc.AscendRuntimeError, match="resolve_neg"):
        asc.torch.from_torch(torch.ones(2, dtype=torch.complex64).conj().imag)
    with pytest.raises(asc.AscendTypeError, match="expected a torch.Tensor"):
        asc.torch.from_torch(np.ones(2))
    with pytest.raises(asc.AscendTypeError, match="already a torch.Tensor"):
        asc.torch.to_torch(torch.ones(2))


# --------------------------------------------------------------------------- torch.autograd.Function

def _register_gelu(name):
    @asc.register_op(name)
    def fwd(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    @asc.register_grad(name)
    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (0.5 * (1.0 + asc.erf(x / math.sqrt(2.0))) + x * asc.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))

    return fwd


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_registered_grad_in_torch_autograd(dtype):
    op = _register_gelu("TGeLU")
    x = torch.randn(300, dtype=dtype, requires_grad=True)
    y = asc.torch.op("TGeLU")(x)
    assert type(y) is torch.Tensor and y.dtype == dtype and y.grad_fn is not None
    (y * torch.linspace(-1, 1, 300, dtype=dtype)).sum().backward()
    x2 = x.detach().clone().requires_grad_(True)
    ref = torch.nn.functional.gelu(x2)
    (ref * torch.linspace(-1, 1, 300, dtype=dtype)).sum().backward()
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(y, ref.detach(), **tol)
    torch.testing.assert_close(x.grad, x2.grad, **tol)
    assert asc.ops.stats("TGeLU")["grad_calls"] >= 1 and op.backward is not None
    # inputs and gradients copied first (stage=True): the same fused body on pyasc copies, equal
    # within the same tolerance
    staged = asc.torch.op("TGeLU", stage=True)
    x3 = x.detach().clone().requires_grad_(True)
    y3 = staged(x3)
    (y3 * torch.linspace(-1, 1, 300, dtype=dtype)).sum().backward()
    torch.testing.assert_close(y3, ref.detach(), **tol)
    torch.testing.assert_close(x3.grad, x2.grad, **tol)


def test_gradcheck_float64_registered_and_vjp_paths():
    _register_gelu("TGeLU")
    x = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(asc.torch.op("TGeLU"), (x,))
    assert torch.autograd.gradcheck(asc.ops.TGeLU, (x.t(),))  # a non-contiguous input

    @asc.register_op("TSoftplusMul")  # no registered gradient: asc.vjp of the body
    def spm(ctx, a, b, *, beta=1.0):
        return asc.log1p(asc.exp(a * beta)) / beta * b

    a = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, dtype=torch.float64, requires_grad=True)  # broadcast: grad summed back
    assert torch.autograd.gradcheck(lambda a, b: asc.ops.TSoftplusMul(a, b, beta=2.0), (a, b))
    w = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    xi = torch.randn(2, 2, 5, 5, dtype=torch.float64, requires_grad=True)
    conv = asc.torch.op("conv2d")  # a built-in asc.ops name: its derivative rule
    assert torch.autograd.gradcheck(lambda x, w: conv(x, w, stride=2, padding=1), (xi, w))


def test_registered_op_called_on_a_tensor_returns_a_tensor():
    @asc.register_op("TSquare")
    def sq(ctx, x):
        return x * x

    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = asc.ops.TSquare(x)
    assert isinstance(y, torch.Tensor)
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0, -4.0, 6.0]))
    with torch.no_grad():
        z = asc.ops.TSquare(x)
    assert z.grad_fn is None and not z.requires_grad
    assert asc.torch.op("TSquare") is asc.torch.op(sq)  # one Function per registered op


def test_keyword_tensors_multiple_and_integer_outputs():
    lin = asc.torch.op(asc.ops.linear)
    x = torch.randn(4, 3, requires_grad=True)
    w = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    lin(x, w, bias=b).square().sum().backward()
    xr, wr, br = (t.detach().clone().requires_grad_(True) for t in (x, w, b))
    torch.nn.functional.linear(xr, wr, br).square().sum().backward()
    for got, want in ((x, xr), (w, wr), (b, br)):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-5, atol=1e-6)

    def two(a):
        return asc.tanh(a) * 2.0, asc.argmax(a, axis=1)

    y, idx = asc.torch.op(two)(x)
    assert idx.dtype == torch.int64 and not idx.requires_grad and y.requires_grad
    torch.testing.assert_close(idx, torch.argmax(x, dim=1))
    x.grad = None
    y.sum().backward()
    torch.testing.assert_close(x.grad, 2 * (1 - torch.tanh(x.detach()) ** 2), rtol=1e-5, atol=1e-6)


def test_in_place_change_after_forward_and_double_backward_raise_torchs_errors():
    _register_gelu("TGeLU")
    x = torch.randn(5, requires_grad=True)
    h = x * 1.0
    y = asc.ops.TGeLU(h)
    h.add_(1.0)  # the saved input changed: torch's version check
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    y = asc.ops.TGeLU(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="twice|once_differentiable|double backward|does not require grad"):
        g.sum().backward()


def test_ops_without_a_gradient_raise_at_the_forward():
    from pyasc.custom_ops import CustomOp

    @asc.register_op("TSortScale")  # no registered grad, and sort has no derivative rule
    def ss(ctx, x):
        return asc.sort(x) * 2.0

    x = torch.randn(6, requires_grad=True)
    with pytest.raises(asc.AscendNotImplementedError, match=r"TSortScale.*register_grad\('TSortScale'\)"):
        asc.ops.TSortScale(x)
    with pytest.raises(NotImplementedError):
        asc.ops.TSortScale(x)
    y = asc.ops.TSortScale(x.detach())  # no grad needed: runs
    torch.testing.assert_close(y, torch.sort(x.detach()).values * 2)
    lib = CustomOp("TLibLike", lambda ctx, v: v * 3.0, kind="library")  # as load_op_library's ops
    with pytest.raises(asc.AscendNotImplementedError, match=r"'TLibLike' has no gradient.*input\(s\) \[0\]"):
        asc.torch.op(lib)(x)
    with torch.no_grad():
        torch.testing.assert_close(asc.torch.op(lib)(x), x * 3)
    with pytest.raises(asc.AscendTypeError, match="device meta"):
        asc.ops.TSortScale(torch.empty(3, device="meta"))
    with pytest.raises(asc.AscendTypeError, match="unsupported dtype torch.float8_e5m2"):
        asc.torch.op("relu")(torch.zeros(3, dtype=torch.float8_e5m2))
    with pytest.raises(asc.AscendValueError, match="no operator 'NoSuchOp'"):
        asc.torch.op("NoSuchOp")


# ---------------------------------------------------------------------------------------------- autocast

def test_pyasc_autocast_inside_and_torch_cpu_autocast_mapping():
    lin = asc.torch.op("linear")
    x = torch.randn(8, 16, requires_grad=True)
    w = torch.randn(4, 16, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = torch.nn.functional.linear(x, w)
        got = lin(x, w)  # torch's CPU autocast -> pyasc.autocast("bfloat16")
    assert ref.dtype == got.dtype == torch.bfloat16
    torch.testing.assert_close(got.float(), ref.float(), rtol=2e-2, atol=2e-2)
    got.float().sum().backward()
    assert x.grad.dtype == torch.float32 and w.grad.dtype == torch.float32  # torch casts to the input dtype
    torch.testing.assert_close(x.grad, w.detach().sum(0).expand(8, 16), rtol=2e-2, atol=5e-2)
    with asc.autocast(torch.float16):  # pyasc's region, a torch dtype accepted
        y16 = lin(x, w)
    assert y16.dtype == torch.float16
    torch.testing.assert_close(y16.float(), torch.nn.functional.linear(x, w).detach(), rtol=5e-3, atol=5e-2)
    with asc.autocast("bfloat16"), torch.autocast("cpu", dtype=torch.float16):
        assert lin(x, w).dtype == torch.bfloat16  # an explicit pyasc region wins
    assert lin(x, w).dtype == torch.float32  # outside any region


# ------------------------------------------------------------------------------- threads and processes

def test_thread_pools_coexist_and_fork_after_both_ran():
    """torch's OpenMP pool and pyasc's workers in one process (one libgomp serves both), then a
    forked child using both: a deadlock there fails the test after its time bound."""
    x = torch.randn(64, 3, 16, 16)
    w = torch.randn(8, 3, 3, 3)
    conv = asc.torch.op("conv2d")
    threads = torch.get_num_threads()
    torch.testing.assert_close(conv(x, w, padding=1), torch.nn.functional.conv2d(x, w, padding=1),
                               rtol=1e-4, atol=1e-4)
    assert torch.get_num_threads() == threads  # pyasc's oneDNN team size does not leak into torch's
    pid = os.fork()
    if pid == 0:  # the child: only os._exit leaves it (never pytest's machinery)
        code = 3
        try:
            ok = torch.allclose(conv(x, w, padding=1), torch.nn.functional.conv2d(x, w, padding=1), atol=1e-4)
            ok = ok and float(asc.sum(asc.arange(1000) * 2)) == 999000.0
            code = 0 if ok else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child did not finish in 120 s (a thread-pool deadlock after fork)")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0


_IMPORT_ORDER_CODE = """
import os, sys
first, second = sys.argv[1:3]
__import__(first); __import__(second)
import numpy as np, torch, pyasc as asc
x = torch.randn(8, 3, 32, 32, generator=torch.Generator().manual_seed(0))
w = torch.randn(16, 3, 3, 3, generator=torch.Generator().manual_seed(1))
want = torch.nn.functional.conv2d(x, w, padding=1)          # torch's OpenMP team
got = asc.torch.op("conv2d")(x, w, padding=1)                # pyasc's workers and oneDNN
assert torch.allclose(got, want, atol=1e-4), float((got - want).abs().max())
big = np.arange(1 << 20, dtype=np.float64)
assert float(asc.sum(asc.asarray(big) * 2.0)) == float((big * 2.0).sum())
assert torch.allclose(torch.mm(x.reshape(8, -1), x.reshape(8, -1).t()).diagonal(), (x.reshape(8, -1) ** 2).sum(1))
maps = open("/proc/self/maps").read().splitlines()
gomp = sorted({l.split()[-1] for l in maps if "libgomp" in l.rsplit("/", 1)[-1]})
print(len(gomp), *gomp)
"""


@pytest.mark.parametrize("order", [("torch", "pyasc"), ("pyasc", "torch")])
def test_import_order_shares_one_libgomp(order):
    """Either import order in a fresh process: one libgomp mapped (two OpenMP runtimes in one
    process oversubscribe and can deadlock after fork), and both libraries' threaded ops right."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _IMPORT_ORDER_CODE, *order], capture_output=True, text=True,
                       timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    n, *paths = r.stdout.split()
    assert int(n) == 1, paths


def test_import_pyasc_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, pyasc; pyasc.torch; assert 'torch' not in sys.modules, 'torch imported'"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr[-2000:]


# ------------------------------------------------------------------- the private window of asc.torch.op
# Inside the forward/backward the pyasc views of torch's tensors count as private (lazy nodes may read
# them later, so composites fuse); when the call returns, everything pending on them has run and they
# are volatile again: a later change of the torch tensor must never reach an earlier result.

def _gelu_passes():
    return asc.lazy.graph_stats()["passes_fired_by_pass"].get("gelu", 0)


def test_private_window_lets_the_composite_fuse_on_zero_copy_views():
    _register_gelu("TGeLUw")
    x = torch.randn(4096, requires_grad=True)
    before = _gelu_passes()
    y = asc.torch.op("TGeLUw")(x)  # zero-copy views, no stage=: the gelu pass fires inside the window
    assert _gelu_passes() == before + 1
    torch.testing.assert_close(y, torch.nn.functional.gelu(x).detach(), rtol=1e-5, atol=1e-6)
    # the bench's 11-node gradient and torch's gelu_backward agree
    gy = torch.randn(4096)
    y.backward(gy)
    x2 = x.detach().clone().requires_grad_(True)
    torch.nn.functional.gelu(x2).backward(gy)
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-5, atol=1e-5)


def _stash_op(name, stash, fail=None):
    """A registered op whose forward keeps its pyasc input views and returns lazy results (one a view
    of the input), and whose backward keeps the incoming gradient's view."""

    @asc.register_op(name)
    def fwd(ctx, x):
        stash["x"] = x
        ctx.save_for_backward(x, x * 3.0)  # a lazy intermediate reading x, saved for the backward
        if fail == "forward":
            raise ValueError("boom in the forward")
        return x * 2.0 + 1.0, x.reshape(-1)

    @asc.register_grad(name)
    def bwd(ctx, g, g_view):
        stash["g"] = g
        x, x3 = ctx.saved_tensors
        if fail == "backward":
            raise ValueError("boom in the backward")
        return g * x3 + g_view.reshape(x.shape)

    return fwd


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_no_stale_read_of_torch_memory_after_the_call(layout):
    stash = {}
    _stash_op("TStash", stash)
    x = torch.randn(6, 5, dtype=torch.float64) if layout == "contiguous" else torch.randn(5, 6, dtype=torch.float64).t()
    x.requires_grad_(True)
    x0 = x.detach().clone()
    y, yv = asc.torch.op("TStash")(x)
    torch.testing.assert_close(y, x0 * 2 + 1, rtol=0, atol=0)
    torch.testing.assert_close(yv, x0.reshape(-1), rtol=0, atol=0)
    # the call's view of x is volatile again: a node recorded now reads x at once
    later = stash["x"] * 10.0
    with torch.no_grad():
        x.data.add_(100.0)  # bypasses torch's version counter (so the backward below runs)
    torch.testing.assert_close(y, x0 * 2 + 1, rtol=0, atol=0)  # computed before the call returned
    np.testing.assert_array_equal(later.numpy(), x0.numpy() * 10.0)
    if layout == "contiguous":  # a view of the input aliases it, as torch's own views do
        torch.testing.assert_close(yv, x.detach().reshape(-1), rtol=0, atol=0)
    # the lazy intermediate saved in the forward (x * 3) was computed inside the window, from the old x
    g = torch.randn(6, 5, dtype=torch.float64)
    gv = torch.randn(30, dtype=torch.float64)
    g0, gv0 = g.clone(), gv.clone()
    torch.autograd.backward((y, yv), (g, gv))
    expect = g0 * (x0 * 3.0) + gv0.reshape(6, 5)
    torch.testing.assert_close(x.grad, expect, rtol=0, atol=0)
    # the gradient path's views are volatile again too
    later_g = stash["g"] * 1.0
    g.add_(7.0)
    torch.testing.assert_close(x.grad, expect, rtol=0, atol=0)
    np.testing.assert_array_equal(later_g.numpy(), g0.numpy())


@pytest.mark.parametrize("where", ["forward", "backward"])
def test_an_exception_inside_the_call_leaves_no_private_view(where):
    stash = {}
    _stash_op("TStashFail", stash, fail=where)
    x = torch.randn(8, 3, requires_grad=True)
    x0 = x.detach().clone()
    gy, gv = torch.ones(8, 3), torch.ones(24)
    f = asc.torch.op("TStashFail")
    with pytest.raises(ValueError, match=f"boom in the {where}"):
        y, yv = f(x)
        torch.autograd.backward((y, yv), (gy, gv))
    later = stash["x"] * 1.0  # recorded after the call: must read the memory now
    with torch.no_grad():
        x.add_(5.0)
    np.testing.assert_array_equal(later.numpy(), x0.numpy())
    np.testing.assert_array_equal(stash["x"].numpy(), x0.numpy() + 5.0)  # it is a view of x
    if where == "backward" and _ptr(stash["g"]) == gy.data_ptr():  # torch handed gy itself
        later_g = stash["g"] * 1.0
        gy.add_(5.0)
        np.testing.assert_array_equal(later_g.numpy(), np.ones((8, 3), np.float32))
    # the op works again afterwards
    _register_gelu("TGeLUafter")
    torch.testing.assert_close(asc.torch.op("TGeLUafter")(x), torch.nn.functional.gelu(x).detach(),
                               rtol=1e-5, atol=1e-6)


def test_inputs_sharing_torch_memory_stay_volatile_and_are_right():
    @asc.register_op("TMulAdd")
    def fwd(ctx, a, b):
        return a * b + a

    x = torch.randn(10, 4, dtype=torch.float64, requires_grad=True)
    f = asc.torch.op("TMulAdd")
    for a, b in ((x, x), (x, x.t().t()), (x[::2], x[1::2])):
        out = f(a, b)
        torch.testing.assert_close(out, (a * b + a).detach(), rtol=0, atol=0)
    out = f(x, x)
    out.sum().backward()  # asc.vjp path with the aliased views
    torch.testing.assert_close(x.grad, (2 * x + 1).detach(), rtol=1e-12, atol=1e-12)


def test_private_window_binding_is_refused_for_memory_pyasc_owns_or_exports():
    from pyasc import _C

    a = asc.arange(6.0)
    assert _C._private_window(a, True) is False  # pool memory: private already in effect
    t = torch.arange(6.0)
    v = asc.torch.from_torch(t)
    assert _C._private_window(v, True) is True
    assert _C._private_window(v, True) is False  # already private
    _C._private_window(v, False)
    assert _C._private_window(v, True) is True  # cleared
    _C._private_window(v, False)
    exported = torch.from_dlpack(v)  # a live export: someone else holds a pointer
    assert _C._private_window(v, True) is False
    del exported


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_forward_keeping_phi_for_the_backward_matches_torch(dtype):
    # the bench's CustomGeLUPhi: the forward keeps Phi(x) (one fused pass writes y and Phi inside the
    # window), the backward needs exp only
    @asc.register_op("TGeLUPhi")
    def fwd(ctx, x):
        phi = asc.ops.erf(x * (1.0 / math.sqrt(2.0))) * 0.5 + 0.5
        ctx.save_for_backward(x, phi)
        return x * phi

    @asc.register_grad("TGeLUPhi")
    def bwd(ctx, g):
        x, phi = ctx.saved_tensors
        return g * (phi + (x * (1.0 / math.sqrt(2.0 * math.pi))) * asc.exp(x * x * -0.5))

    x = torch.randn(3000, dtype=dtype, requires_grad=True)
    x0 = x.detach().clone()
    gy = torch.randn(3000, dtype=dtype)
    y = asc.torch.op("TGeLUPhi")(x)
    with torch.no_grad():
        x.data.mul_(-3.0)  # behind the version counter: the kept Phi must be the forward's
    y.backward(gy)
    x2 = x0.clone().requires_grad_(True)
    ref = torch.nn.functional.gelu(x2)
    ref.backward(gy)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-13)
    torch.testing.assert_close(y, ref.detach(), **tol)
    # x itself is read again by the backward (x phi(x) term) from the changed memory, so compare the
    # Phi part only: the gradient minus torch's x phi(x) at the new x is torch's Phi at the old x
    xn = x.detach()
    phi_part = x.grad - gy * xn * torch.exp(-0.5 * xn * xn) / math.sqrt(2 * math.pi)
    torch.testing.assert_close(phi_part, gy * 0.5 * (1 + torch.erf(x0 / math.sqrt(2.0))), **tol)


def test_results_cross_as_views_read_only_and_reversed_ones_as_copies():
    """asc.torch.op's results go from pyasc's DLPack exporter straight to torch's importer: a plain
    result is a view of the pyasc array (same memory), a read-only result (a broadcast view) and a
    reversed one come back as writable copies with the right values; inputs cross the other way
    without a copy (torch's C exporter), and a float16/bfloat16/int64 input keeps its dtype."""
    kept = {}

    @asc.register_op("KeepOut", replace=True)
    def keep_out(ctx, x):
        y = x * 2.0
        kept["y"] = y
        return y

    @asc.register_op("Bcast", replace=True)
    def bcast(ctx, x):
        return asc.broadcast_to(x, (3,) + tuple(x.shape))

    @asc.register_op("Rev", replace=True)
    def rev(ctx, x):
        return asc.eval(x * 1.0)[::-1]

    x = torch.arange(6, dtype=torch.float32)
    y = asc.ops.KeepOut(x)
    assert y.data_ptr() == torch.from_dlpack(kept["y"]).data_ptr()
    torch.testing.assert_close(y, x * 2.0)
    b = asc.ops.Bcast(x)
    assert b.shape == (3, 6)
    b[0, 0] = 100.0  # a copy: writing it cannot reach x or other rows
    assert float(x[0]) == 0.0 and float(b[1, 0]) == 0.0
    torch.testing.assert_close(b[1:], x.expand(2, 6))
    r = asc.ops.Rev(x)
    torch.testing.assert_close(r, torch.flip(x, (0,)))
    assert all(s > 0 for s in r.stride())
    for dt in (torch.float16, torch.bfloat16, torch.int64):
        t = torch.arange(8).to(dt)
        out = asc.torch.op(lambda v: v * 2)(t)
        assert out.dtype == dt
        torch.testing.assert_close(out, t * 2)
    # an incoming gradient that itself requires grad is read through a detached view (it raised
    # torch's "Can't export tensors that require gradient" before)
    w = torch.randn(5, dtype=torch.float64, requires_grad=True)
    g = torch.randn(5, dtype=torch.float64, requires_grad=True)
    out = asc.torch.op(lambda v: v * 3.0)(w)
    (gw,) = torch.autograd.grad(out, w, g, create_graph=False)
    torch.testing.assert_close(gw, g.detach() * 3.0)
