"""asc.ops.Module base and the activation / tensor / loss module classes."""

import numpy as np
import pytest

import pyasc as asc

F = asc.ops


class Affine(F.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = F.Parameter(np.arange(n, dtype=np.float32))
        self.register_buffer("running", np.zeros(n, np.float32))
        self.scale = 2.0  # plain attribute, not state

    def forward(self, x):
        return x * self.weight + self.running


def test_module_tree_state_dict_roundtrip():
    m = F.Sequential(Affine(3), F.ReLU(), F.Sequential(Affine(3), F.Tanh()))
    keys = list(m.state_dict())
    assert keys == ["0.weight", "0.running", "2.0.weight", "2.0.running"]
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "2.0.weight"]
    assert len(list(m.buffers())) == 2 and len(list(m.modules())) == 6
    sd = m.state_dict()
    assert all(isinstance(v, np.ndarray) for v in sd.values())
    sd["0.weight"][:] = [1, -1, 2]
    assert np.asarray(m[0].weight).tolist() == [0, 1, 2]  # state_dict returns copies
    m.load_state_dict(sd)
    assert np.asarray(m[0].weight).tolist() == [1, -1, 2]
    x = np.array([1.0, 1.0, 1.0], np.float32)
    ref = np.tanh(np.maximum(x * [1, -1, 2], 0) * [0, 1, 2])
    np.testing.assert_allclose(np.asarray(m(x)), ref, rtol=1e-6)
    with pytest.raises(KeyError, match="missing"):
        m.load_state_dict({"0.weight": sd["0.weight"]})
    bad = dict(sd)
    bad["0.weight"] = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="0.weight"):
        m.load_state_dict(bad)
    missing, unexpected = m.load_state_dict({"0.weight": sd["0.weight"], "x": 1}, strict=False)
    assert "0.running" in missing and unexpected == ["x"]


def test_train_eval_repr_dropout():
    m = F.Sequential(F.Linear(2, 2) if hasattr(F, "Linear") else F.Identity(), F.Dropout(0.5), F.GELU("tanh"))
    assert m.training and m[1].training
    m.eval()
    assert not m[1].training
    x = np.ones((4, 8), np.float32)
    d = F.Dropout(0.5).eval()
    assert np.asarray(d(x)).tolist() == x.tolist()
    d.train()
    y = np.asarray(d(np.ones((100, 100), np.float32)))
    assert 0.4 < (y == 0).mean() < 0.6
    r = repr(m)
    assert "(1): Dropout(p=0.5, inplace=False)" in r and "GELU(approximate='tanh')" in r


@pytest.mark.parametrize("cls,fn,kw", [
    ("ReLU", "relu", {}), ("LeakyReLU", "leaky_relu", {"negative_slope": 0.2}), ("ELU", "elu", {"alpha": 0.5}),
    ("GELU", "gelu", {"approximate": "tanh"}), ("SiLU", "silu", {}), ("Hardswish", "hardswish", {}),
    ("Softplus", "softplus", {"beta": 2.0}), ("Softmax", "softmax", {"dim": 1}),
    ("LogSoftmax", "log_softmax", {"dim": 0}), ("Flatten", "flatten", {"start_dim": 1}),
    ("Hardtanh", "hardtanh", {"min_val": -0.5, "max_val": 0.5}),
])
def test_module_matches_functional(cls, fn, kw):
    x = np.random.default_rng(0).standard_normal((3, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(getattr(F, cls)(**kw)(x)), np.asarray(getattr(F, fn)(x, **kw)))


def test_loss_modules_embedding_prelu():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 1, 2, 3, -100])
    assert float(F.CrossEntropyLoss(label_smoothing=0.1)(x, t)) == float(F.cross_entropy(x, t, label_smoothing=0.1))
    assert float(F.MSELoss(reduction="sum")(x, x * 0)) == pytest.approx(float((x.astype(np.float64) ** 2).sum()),
                                                                        rel=1e-6)
    e = F.Embedding(10, 3, padding_idx=2)
    assert np.asarray(e.weight)[2].tolist() == [0, 0, 0]
    assert e(np.array([[1, 2]])).shape == (1, 2, 3)
    e2 = F.Embedding.from_pretrained(np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(e2(np.array([2, 0]))), np.eye(3)[[2, 0]])
    p = F.PReLU(4)
    assert list(p.state_dict()) == ["weight"]
    np.testing.assert_allclose(np.asarray(p(x)), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    with pytest.raises(TypeError, match="ReLU"):
        F.ReLU(bogus=1)


def test_to_dtype():
    m = Affine(3).to(asc.float16)
    assert m.weight.dtype == np.float16 and m.running.dtype == np.float16
