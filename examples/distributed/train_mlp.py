"""Data-parallel training of a small MLP on generated data with pyasc.distributed.

    python examples/distributed/train_mlp.py              # one process
    pyasc-run -n 4 examples/distributed/train_mlp.py      # four ranks, same loss curve

The global batch (``--batch``) is split among the ranks by DistributedSampler;
each rank computes the forward pass and a hand-written backward pass with
pyasc ops on its share, DataParallel averages the gradients (buckets of
all_reduce AVG), and every rank applies the same SGD step. Because rank r
takes every n-th index of the epoch's permutation, step s covers the same
global batch on 1, 2 or 4 ranks, so the loss curve is the same up to float
rounding. Rank 0 prints one JSON object: the loss of every step (the mean over
the global batch) and the step times.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import pyasc as asc
import pyasc.distributed as dist


def make_data(n, d_in, d_out, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d_in)).astype(np.float32)
    w = rng.standard_normal((d_in, d_out)).astype(np.float32) / np.sqrt(d_in)
    y = np.tanh(x @ w) + 0.05 * rng.standard_normal((n, d_out)).astype(np.float32)
    return x, y.astype(np.float32)


def init_params(d_in, hidden, d_out, seed):
    rng = np.random.default_rng(seed)
    return [asc.asarray((rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)).astype(np.float32)),
            asc.zeros(hidden, dtype="float32"),
            asc.asarray((rng.standard_normal((hidden, d_out)) / np.sqrt(hidden)).astype(np.float32)),
            asc.zeros(d_out, dtype="float32")]


def forward_backward(params, x, y, global_batch):
    """Loss (sum of squares over the local rows / global rows) and its gradients."""
    w1, b1, w2, b2 = params
    h = x @ w1 + b1
    a = asc.maximum(h, 0)
    out = a @ w2 + b2
    diff = out - y
    scale = 1.0 / (global_batch * y.shape[1])
    loss = asc.sum(diff * diff) * scale
    dout = diff * (2.0 * scale)
    gw2 = a.T @ dout
    gb2 = asc.sum(dout, axis=0)
    dh = (dout @ w2.T) * (h > 0)
    gw1 = x.T @ dh
    gb1 = asc.sum(dh, axis=0)
    return loss, [gw1, gb1, gw2, gb2]


def loss_fn(w1, b1, w2, b2, x, y, global_batch):
    """The same loss for asc.value_and_grad (--autograd): the backward comes from the tape."""
    h = asc.matmul(x, w1) + b1
    a = asc.maximum(h, 0)
    diff = asc.matmul(a, w2) + b2 - y
    return asc.sum(diff * diff) * (1.0 / (global_batch * y.shape[1]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=1024)
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--outputs", type=int, default=4)
    p.add_argument("--batch", type=int, default=64, help="global batch size (divisible by the ranks)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bucket-mb", type=float, default=25.0)
    p.add_argument("--json", default=None, help="write the result here too (rank 0)")
    p.add_argument("--autograd", action="store_true",
                   help="gradients from asc.value_and_grad instead of the hand-written backward; with several "
                        "ranks DataParallel.value_and_grad all-reduces buckets during the backward")
    p.add_argument("--no-overlap", action="store_true",
                   help="with --autograd: all-reduce after the backward (DataParallel.reduce_gradients)")
    args = p.parse_args(argv)

    distributed = "OMPI_COMM_WORLD_SIZE" in os.environ or "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group(backend="hccl")
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1
    if args.batch % world:
        raise SystemExit(f"--batch {args.batch} is not divisible by {world} ranks")
    local_batch = args.batch // world

    x_all, y_all = make_data(args.samples, args.features, args.outputs, args.seed)
    params = init_params(args.features, args.hidden, args.outputs, args.seed + 1)
    dp = dist.DataParallel(params, bucket_cap_mb=args.bucket_mb) if distributed else None
    sampler = dist.DistributedSampler(args.samples, num_replicas=world, rank=rank, shuffle=True,
                                      seed=args.seed, drop_last=True)
    losses, times = [], []
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        idx = sampler.indices()
        for s in range(len(idx) // local_batch):
            t0 = time.perf_counter()
            rows = idx[s * local_batch:(s + 1) * local_batch]
            x = asc.asarray(x_all[rows])
            y = asc.asarray(y_all[rows])
            if args.autograd and dp is not None and not args.no_overlap:
                loss, grads = dp.value_and_grad(loss_fn, argnums=(0, 1, 2, 3))(*params, x, y, args.batch)
            elif args.autograd:
                loss, grads = asc.value_and_grad(loss_fn, argnums=(0, 1, 2, 3))(*params, x, y, args.batch)
                if dp is not None:
                    dp.reduce_gradients(list(zip(params, grads)))
            else:
                loss, grads = forward_backward(params, x, y, args.batch)
                if dp is not None:
                    dp.reduce_gradients(list(zip(params, grads)))
            if dp is not None:
                # The gradients were scaled by the global batch: the sum over ranks is the full
                # gradient, DataParallel's average is that / world, so multiply back.
                loss = asc.asarray(np.asarray(loss, dtype=np.float32).reshape(1))
                dist.all_reduce(loss, op=dist.ReduceOp.SUM)
                step_scale = world
            else:
                step_scale = 1
            for w, g in zip(params, grads):
                w -= (args.lr * step_scale) * g
            asc.eval(*params)
            times.append(time.perf_counter() - t0)
            losses.append(float(np.asarray(loss).reshape(-1)[0]))
    result = {"world_size": world, "losses": losses, "median_step_s": float(np.median(times)),
              "steps": len(losses)}
    if rank == 0:
        print(json.dumps(result), flush=True)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(result, f)
    if distributed:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
