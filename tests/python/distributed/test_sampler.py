"""DistributedSampler against torch's algorithm (transcribed with plain lists) and its properties."""

import math

import numpy as np
import pytest

import pyasc.distributed as dist


def torch_reference(order, replicas, rank, drop_last):
    """torch.utils.data.DistributedSampler.__iter__ given the epoch's order (list of indices)."""
    n = len(order)
    if drop_last and n % replicas != 0:
        num_samples = math.ceil((n - replicas) / replicas)
    else:
        num_samples = math.ceil(n / replicas)
    total = num_samples * replicas
    indices = list(order)
    if not drop_last:
        pad = total - len(indices)
        if pad <= len(indices):
            indices += indices[:pad]
        else:
            indices += (indices * math.ceil(pad / len(indices)))[:pad]
    else:
        indices = indices[:total]
    return indices[rank:total:replicas], num_samples


@pytest.mark.parametrize("n", [0, 1, 2, 7, 10, 12, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_matches_torch_algorithm(n, replicas, drop_last, shuffle):
    for epoch in (0, 3):
        order = (np.random.default_rng(17 + epoch).permutation(n).tolist() if shuffle else list(range(n)))
        shards = []
        for rank in range(replicas):
            s = dist.DistributedSampler(n, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=17,
                                        drop_last=drop_last)
            s.set_epoch(epoch)
            want, num = torch_reference(order, replicas, rank, drop_last) if n else ([], 0)
            got = list(s)
            assert got == want and len(s) == num == len(got)
            shards.append(got)
        assert len({len(x) for x in shards}) <= 1  # equal shards
        flat = sorted(i for x in shards for i in x)
        if drop_last:
            assert len(set(flat)) == len(flat) and len(flat) == (n // replicas) * replicas
        elif n:
            assert set(flat) == set(range(n))  # every index appears, padding repeats the head


def test_epochs_reshuffle_and_dataset_len():
    s = dist.DistributedSampler(list(range(100)), num_replicas=2, rank=1, seed=0)
    a = list(s)
    s.set_epoch(1)
    assert list(s) != a and sorted(set(a)) != []
    s.set_epoch(0)
    assert list(s) == a
    assert dist.DistributedSampler(100, num_replicas=2, rank=1, seed=1).indices().tolist() != a
