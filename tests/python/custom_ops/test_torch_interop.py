"""asc.torch: pyasc ops inside torch.autograd (skipped where torch is not installed -- it is not
installable in pyasc's development environment, so these tests have not run there)."""
import math

import numpy as np
import pytest

import pyasc as asc

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _clean():
    before = set(asc.ops.registered())
    yield
    for name in set(asc.ops.registered()) - before:
        asc.ops.unregister(name)


def test_dlpack_both_ways_share_memory():
    t = torch.arange(6, dtype=torch.float32)
    a = asc.torch.from_torch(t)
    t[0] = 42.0
    assert a.numpy()[0] == 42.0
    b = asc.arange(4, dtype=asc.float32)
    tb = asc.torch.to_torch(b)
    np.testing.assert_array_equal(tb.numpy(), [0, 1, 2, 3])


def test_registered_grad_in_torch_autograd():
    @asc.register_op("TGeLU")
    def fwd(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    @asc.register_grad("TGeLU")
    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (0.5 * (1.0 + asc.erf(x / math.sqrt(2.0))) + x * asc.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))

    x = torch.randn(100, dtype=torch.float64, requires_grad=True)
    y = asc.torch.op("TGeLU")(x)
    y.sum().backward()
    x2 = x.detach().clone().requires_grad_(True)
    torch.nn.functional.gelu(x2).sum().backward()
    torch.testing.assert_close(y, torch.nn.functional.gelu(x2), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-6, atol=1e-6)
    assert torch.autograd.gradcheck(asc.torch.op("TGeLU"), (torch.randn(5, dtype=torch.float64, requires_grad=True),))


def test_small_cnn_trained_in_torch_matches_pure_torch():
    torch.manual_seed(0)
    x = torch.randn(8, 1, 8, 8)
    target = torch.randint(0, 3, (8,))

    def make():
        torch.manual_seed(1)
        return torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.Linear(4 * 4 * 4, 3)

    def pyasc_forward(x, w1, b1, w2, b2):
        h = asc.ops.relu(asc.ops.conv2d(x, w1, b1, padding=1))
        h = asc.ops.max_pool2d(h, 2).reshape(x.shape[0], -1)
        return asc.ops.linear(h, w2, b2)

    fwd = asc.torch.op(pyasc_forward)
    losses = {}
    for mode in ("pyasc", "torch"):
        conv, lin = make()
        opt = torch.optim.SGD(list(conv.parameters()) + list(lin.parameters()), lr=0.1)
        losses[mode] = []
        for _ in range(3):
            opt.zero_grad()
            if mode == "pyasc":
                logits = fwd(x, conv.weight, conv.bias, lin.weight, lin.bias)
            else:
                logits = lin(torch.nn.functional.max_pool2d(torch.relu(conv(x)), 2).flatten(1))
            loss = torch.nn.functional.cross_entropy(logits, target)
            loss.backward()
            opt.step()
            losses[mode].append(loss.item())
    np.testing.assert_allclose(losses["pyasc"], losses["torch"], rtol=1e-4)


def test_registered_op_called_on_a_tensor_returns_a_tensor():
    @asc.register_op("TSquare")
    def sq(ctx, x):
        return x * x

    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = asc.ops.TSquare(x)
    assert isinstance(y, torch.Tensor)
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0, -4.0, 6.0]))
