"""examples/torch_cnn: a CNN whose forward is pyasc ops (conv2d, batch_norm, relu, max_pool2d, the
registered CustomGeLU, linear), trained by torch.optim; every step checked against the same model in
pure PyTorch, and the whole Function gradchecked in float64. Skipped without torch."""
import importlib.util
import os

import pytest

import pyasc as asc

torch = pytest.importorskip("torch")

_EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "torch_cnn", "train_cnn.py")


@pytest.fixture(scope="module")
def cnn():
    spec = importlib.util.spec_from_file_location("_pyasc_example_train_cnn", _EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# float32: pyasc's kernels (oneDNN conv, its own reductions) round differently from torch's, so the
# tolerance is a few float32 ulps of each quantity, growing with the steps; float64: ~1e-12
TOL = {torch.float32: dict(rtol=2e-5, atol=2e-6), torch.float64: dict(rtol=1e-11, atol=1e-13)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_training_matches_pure_pytorch_step_by_step(cnn, dtype):
    ours, ref = cnn.compare(steps=4, dtype=dtype)
    tol = TOL[dtype]
    for step, ((loss, grads, state), (loss_r, grads_r, state_r)) in enumerate(zip(ours, ref)):
        torch.testing.assert_close(torch.tensor(loss), torch.tensor(loss_r), **tol, msg=f"loss at step {step}")
        assert set(grads) == set(grads_r) == {"conv.weight", "conv.bias", "bn.weight", "bn.bias", "fc.weight",
                                              "fc.bias"}
        for k in grads:
            torch.testing.assert_close(grads[k], grads_r[k], **tol, msg=f"grad of {k} at step {step}")
        for k in state:  # parameters after optimizer.step() and the running statistics pyasc updated in place
            torch.testing.assert_close(state[k], state_r[k], **tol, msg=f"{k} after step {step}")
    assert ours[-1][0] < ours[0][0]  # it trains
    assert int(ours[-1][2]["bn.num_batches_tracked"]) == 4


def test_eval_mode_uses_the_running_statistics(cnn):
    torch.manual_seed(3)
    model = cnn.SmallCNN().double()
    x, _ = cnn.make_data(dtype=torch.float64)
    model.bn.running_mean.uniform_(-0.5, 0.5)
    model.bn.running_var.uniform_(0.5, 2.0)
    model.eval()
    with torch.no_grad():
        got = model(x)
        model.use_pyasc = False
        want = model(x)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-13)


def test_gradcheck_of_the_cnn_function_float64(cnn):
    cnn.register_custom_gelu()
    fwd = asc.torch.op(cnn.pyasc_forward)
    g = torch.Generator().manual_seed(5)

    def r(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64, requires_grad=True)

    x, cw, cb, bw, bb, fw, fb = r(2, 1, 4, 4), r(2, 1, 3, 3), r(2), r(2), r(2), r(3, 8), r(3)
    mean, var = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda *a: fwd(a[0], *a[1:5], mean, var, *a[5:]), (x, cw, cb, bw, bb, fw, fb))
