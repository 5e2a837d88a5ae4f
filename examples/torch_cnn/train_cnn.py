"""A small CNN whose forward pass is pyasc, trained by PyTorch (issue 15's training scheme).

    python examples/torch_cnn/train_cnn.py [--steps 5] [--dtype float32|float64]

The network is conv2d -> batch_norm (training mode) -> relu -> max_pool2d -> CustomGeLU ->
linear. Its parameters and batch-norm buffers are ordinary ``torch.nn`` modules; the forward
runs the pyasc operators through ``asc.torch.op`` (a ``torch.autograd.Function``): tensors enter
pyasc by DLPack without a copy, batch_norm updates the running statistics in place *in the torch
buffers* (same memory), and the backward is the registered gradient of CustomGeLU plus the
derivative rules of the built-in ``asc.ops``. ``loss.backward()`` and ``optimizer.step()`` stay in
PyTorch. The same modules run once more as pure PyTorch from the same initial state; the script
prints both loss curves and the largest differences of the losses, the gradients and the running
statistics.
"""

from __future__ import annotations

import argparse
import copy
import math

import torch

import pyasc as asc


def register_custom_gelu():
    """The seed's CustomGeLU with its separately registered gradient (idempotent)."""
    if "CustomGeLU" in asc.ops.registered() and asc.ops.CustomGeLU.backward is not None:
        return asc.ops.CustomGeLU

    @asc.register_op("CustomGeLU", replace=True)
    def gelu_forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    @asc.register_grad("CustomGeLU")
    def gelu_backward(ctx, grad):
        # d/dx [x Phi(x)] = Phi(x) + x phi(x): the built-in asc.ops.gelu_backward (torch's
        # aten::gelu_backward; one native pass, Phi and phi from one exponential). The same as the
        # fused chain grad * (0.5 + 0.5 erf(x / sqrt 2) + x exp(-x^2 / 2) / sqrt(2 pi)), faster
        (x,) = ctx.saved_tensors
        return asc.ops.gelu_backward(grad, x)

    return gelu_forward


def pyasc_forward(x, conv_w, conv_b, bn_w, bn_b, bn_mean, bn_var, fc_w, fc_b, *, training=True, momentum=0.1,
                  eps=1e-5):
    """The network on pyasc arrays (called by asc.torch.op with views of the torch tensors)."""
    h = asc.ops.conv2d(x, conv_w, conv_b, padding=1)
    h = asc.ops.batch_norm(h, bn_mean, bn_var, bn_w, bn_b, training=training, momentum=momentum, eps=eps)
    h = asc.ops.relu(h)
    h = asc.ops.max_pool2d(h, 2)
    h = asc.ops.CustomGeLU(h)
    return asc.ops.linear(h.reshape(h.shape[0], -1), fc_w, fc_b)


class SmallCNN(torch.nn.Module):
    """conv(1->c, 3x3) -> BN -> relu -> maxpool 2 -> GeLU -> linear; ``use_pyasc`` picks the forward."""

    def __init__(self, channels=4, size=8, classes=3):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, channels, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(channels)
        self.fc = torch.nn.Linear(channels * (size // 2) ** 2, classes)
        self.use_pyasc = True
        self._fwd = None

    def forward(self, x):
        bn = self.bn
        if self.use_pyasc:
            if self._fwd is None:
                register_custom_gelu()
                self._fwd = asc.torch.op(pyasc_forward)
            if self.training:
                bn.num_batches_tracked += 1  # as torch's BatchNorm2d.forward (pyasc updates the statistics)
            return self._fwd(x, self.conv.weight, self.conv.bias, bn.weight, bn.bias, bn.running_mean,
                             bn.running_var, self.fc.weight, self.fc.bias, training=self.training,
                             momentum=bn.momentum, eps=bn.eps)
        h = torch.nn.functional.max_pool2d(torch.relu(bn(self.conv(x))), 2)
        return self.fc(torch.nn.functional.gelu(h).flatten(1))


def make_data(n=16, size=8, classes=3, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, size, size, generator=g, dtype=dtype)
    return x, torch.randint(0, classes, (n,), generator=g)


def train(model, x, target, steps=5, lr=0.1):
    """SGD with momentum; returns per step the loss, the gradients and the parameters after the step."""
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        grads = {k: p.grad.detach().clone() for k, p in model.named_parameters()}
        opt.step()
        history.append((loss.item(), grads, copy.deepcopy(model.state_dict())))
    return history


def compare(steps=5, dtype=torch.float32, seed=1):
    """Trains the pyasc-forward model and its pure-PyTorch twin from one initial state; returns both
    histories."""
    torch.manual_seed(seed)
    base = SmallCNN().to(dtype)
    ours, ref = copy.deepcopy(base), copy.deepcopy(base)
    ref.use_pyasc = False
    x, target = make_data(dtype=dtype)
    return train(ours, x, target, steps), train(ref, x, target, steps)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    a = p.parse_args()
    ours, ref = compare(a.steps, getattr(torch, a.dtype))
    for s, ((l1, g1, st1), (l2, g2, st2)) in enumerate(zip(ours, ref)):
        gd = max(float((g1[k] - g2[k]).abs().max()) for k in g1)
        sd = max(float((st1[k].double() - st2[k].double()).abs().max()) for k in st1)
        print(f"step {s}: loss pyasc {l1:.7f}  pytorch {l2:.7f}  |diff| {abs(l1 - l2):.2e}; "
              f"max |grad diff| {gd:.2e}; max |state diff| after the step {sd:.2e}")


if __name__ == "__main__":
    main()
