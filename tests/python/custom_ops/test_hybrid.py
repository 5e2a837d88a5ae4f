"""@asc.hybrid_operator over an Ascend C kernel (cpp_extension): abstract shape/dtype inference,
op.infer, contiguity copies, the dtype table, out-of-bounds write detection, dynamic shapes
(static_shapes + kernel_factory, compile-on-first-use counters), autograd through the reference."""
import numpy as np
import pytest

import pyasc as asc


@pytest.fixture(autouse=True)
def _clean():
    before = set(asc.ops.registered())
    yield
    for name in set(asc.ops.registered()) - before:
        asc.ops.unregister(name)


@pytest.fixture
def scale_add_op(scale_add_ext):
    def kernel(x, y, out, *, alpha=1.0, extra=0):
        scale_add_ext.scale_add(x, y, out, alpha, extra)

    @asc.hybrid_operator(kernel=kernel, dtypes=["float32"])
    def scale_add(x, y, *, alpha=1.0, extra=0):
        """out = alpha * x + y (reference composition; the kernel computes it)."""
        return x * alpha + y

    return scale_add


def test_kernel_runs_with_inferred_outputs(scale_add_op):
    assert asc.ops.scale_add is scale_add_op and scale_add_op.kind == "hybrid"
    rng = np.random.default_rng(0)
    for shape in [(7,), (3, 1000), (9000,), (0,)]:
        x, y = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
        z = asc.ops.scale_add(asc.array(x), asc.array(y), alpha=-1.5)
        assert z.shape == shape and z.dtype == asc.float32
        np.testing.assert_allclose(z.numpy(), -1.5 * x + y, rtol=1e-6, atol=1e-6)


def test_infer_is_abstract(scale_add_op):
    assert scale_add_op.infer([(4, 5), (4, 5)], ["float32", "float32"]) == ((4, 5), np.dtype("float32"))
    # broadcasting and promotion come from the reference composition
    assert scale_add_op.infer([(4, 1), (1, 6)], ["float32", "float64"]) == ((4, 6), np.dtype("float64"))
    before = asc.memory_allocated()
    assert scale_add_op.infer([(2 ** 36,), (2 ** 36,)])[0] == (2 ** 36,)  # 256 GiB: nothing allocated
    assert asc.memory_allocated() <= before + 4096


def test_non_contiguous_inputs_are_copied(scale_add_op):
    x = np.arange(40, dtype=np.float32).reshape(4, 10)
    scale_add_op.copies = 0
    z = asc.ops.scale_add(asc.array(x)[:, ::2], asc.array(x)[:, 1::2], alpha=2.0)
    np.testing.assert_array_equal(z.numpy(), 2 * x[:, ::2] + x[:, 1::2])
    assert scale_add_op.copies == 2
    z = asc.ops.scale_add(asc.array(x), asc.array(x))
    assert scale_add_op.copies == 2  # contiguous: no copy


def test_dtype_table(scale_add_op):
    with pytest.raises(asc.AscendTypeError, match=r"\[scale_add\] input 0 has dtype float64; this operator takes "
                                                   r"\['float32'\]"):
        asc.ops.scale_add(asc.ones(4, dtype=asc.float64), asc.ones(4, dtype=asc.float32))
    from pyasc.custom_ops import DTYPE_TABLE

    assert DTYPE_TABLE["float16"][0] == "half" and DTYPE_TABLE["int64"][1:] == (8, 8)
    assert DTYPE_TABLE["uint8"] == ("uint8_t", 1, 1) and DTYPE_TABLE["float32"] == ("float", 4, 4)


@pytest.mark.parametrize("n", [10, 8 * 1024 + 5])
def test_out_of_bounds_write_is_detected(scale_add_op, n):
    x = asc.ones(n, dtype=asc.float32)
    with pytest.raises(asc.AscendRuntimeError, match=r"\[scale_add\] the kernel wrote outside output 0 .*"
                                                      r"up to 12 bytes past its end"):
        asc.ops.scale_add(x, x, extra=3)
    asc.ops.scale_add(x, x, extra=0)  # in bounds: fine


def test_composite_hybrid_without_kernel_fuses():
    @asc.hybrid_operator(name="softsign2")
    def softsign2(x):
        return x / (1 + asc.abs(x))

    x = asc.array(np.linspace(-3, 3, 1000, dtype=np.float32))
    asc.eval(x)
    before = asc.lazy.graph_stats()["groups_run"]
    y = asc.eval(asc.ops.softsign2(x) * 2)
    assert asc.lazy.graph_stats()["groups_run"] - before == 1 or asc.is_eager()
    np.testing.assert_allclose(y.numpy(), 2 * x.numpy() / (1 + np.abs(x.numpy())), rtol=1e-6)


def test_dynamic_shapes_static_and_jit(scale_add_ext):
    built = []

    def factory(shapes, dtypes):
        n = int(np.prod(shapes[0]))
        built.append(n)

        def kernel(x, y, out):  # specialised for n elements
            assert x.size == n
            scale_add_ext.scale_add(x, y, out, 1.0, 0)
        return kernel

    @asc.hybrid_operator(kernel_factory=factory, static_shapes=[[(16,), (16,)], [(32,), (32,)]])
    def dyn_add(x, y):
        return x + y

    assert sorted(built) == [16, 32]  # ahead of time
    asc.ops.reset_stats()
    for n in (16, 32, 16, 48, 48, 48):
        z = asc.ops.dyn_add(asc.ones(n, dtype=asc.float32), asc.full(n, 2.0, dtype=asc.float32))
        np.testing.assert_array_equal(z.numpy(), np.full(n, 3.0, np.float32))
    st = asc.ops.stats("dyn_add")
    assert st["compile_misses"] == 1 and st["compile_hits"] == 5 and st["calls"] == 6
    assert sorted(built) == [16, 32, 48]
    with pytest.raises(asc.AscendValueError, match="needs kernel_factory"):
        asc.hybrid_operator(static_shapes=[(4,)])(lambda x: x)


def test_autograd_uses_the_reference(scale_add_op):
    # the kernel takes float32 only (gradcheck's float64 pass would be refused): exact gradients instead
    x, y = np.linspace(-1, 1, 5).astype(np.float32), np.ones(5, np.float32)
    gx, gy = asc.grad(lambda x, y: (asc.ops.scale_add(x, y, alpha=3.0) * asc.arange(5.0, dtype=asc.float32)).sum(),
                      argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.numpy(), 3.0 * np.arange(5.0))
    np.testing.assert_array_equal(gy.numpy(), np.arange(5.0))


def test_bad_declarations():
    with pytest.raises(asc.AscendTypeError, match="kernel must be callable"):
        asc.hybrid_operator(kernel=3)(lambda x: x)
    with pytest.raises(asc.AscendValueError, match="identifier"):
        asc.hybrid_operator(name="a b")(lambda x: x)
