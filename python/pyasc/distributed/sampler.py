"""DistributedSampler: each rank's share of a dataset's indices (torch.utils.data's semantics)."""

from __future__ import annotations

import math

import numpy as np

from ..errors import AscendValueError, ErrorCode

__all__ = ["DistributedSampler"]


class DistributedSampler:
    """Yields the indices of rank ``rank``'s shard of ``dataset`` (anything with ``len()``, or
    an int length), torch.utils.data.distributed.DistributedSampler's semantics:

    * ``shuffle=True``: a permutation drawn from ``numpy.random.default_rng(seed + epoch)``
      (the same on every rank; call :meth:`set_epoch` each epoch for a new order). torch
      draws with its own generator, so the order itself differs from torch's.
    * ``drop_last=False``: the index list is padded by repeating its head so that every
      rank gets ``ceil(len / num_replicas)`` indices; ``drop_last=True`` drops the tail so
      every rank gets ``floor(len / num_replicas)``.
    * Rank r takes every ``num_replicas``-th index starting at r, so step s of a per-rank
      batch size b covers positions ``[s*b*n, (s+1)*b*n)`` of the permutation on all ranks
      together: the same global batch as one process with batch size ``b*n``.

    ``num_replicas`` / ``rank`` default to the default process group's world size / rank.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ._group import get_rank, get_world_size
            if num_replicas is None:
                num_replicas = get_world_size()
            if rank is None:
                rank = get_rank()
        num_replicas, rank = int(num_replicas), int(rank)
        if num_replicas < 1:
            raise AscendValueError(ErrorCode.INVALID_PARAM,
                                   f"[DistributedSampler] num_replicas must be >= 1, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise AscendValueError(ErrorCode.INVALID_PARAM,
                                   f"[DistributedSampler] Invalid rank {rank}, rank should be in the interval "
                                   f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = bool(drop_last)
        self.shuffle = bool(shuffle)
        self.seed = int(seed)
        n = self._len()
        if self.drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _len(self):
        return int(self.dataset) if isinstance(self.dataset, (int, np.integer)) else len(self.dataset)

    def indices(self):
        """This rank's indices for the current epoch, as an int64 NumPy array."""
        n = self._len()
        if self.shuffle:
            idx = np.random.default_rng(self.seed + self.epoch).permutation(n).astype(np.int64)
        else:
            idx = np.arange(n, dtype=np.int64)
        if not self.drop_last:
            pad = self.total_size - n
            if pad > 0 and n > 0:
                idx = np.concatenate([idx, np.resize(idx, pad)])  # np.resize repeats the head cyclically
        else:
            idx = idx[:self.total_size]
        return idx[self.rank:self.total_size:self.num_replicas]

    def __iter__(self):
        return iter(self.indices().tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch: with ``shuffle=True`` every epoch gets its own permutation."""
        self.epoch = int(epoch)
