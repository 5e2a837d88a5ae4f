"""Image preprocessing: asc.image.preprocess vs Pillow + NumPy and OpenCV, same run.

    python benchmarks/bench_image.py [--n 32] [--repeat 5]

The workload is the seeds' classification preprocessing: N JPEGs of 1920x1080 (synthetic,
quality 90) -> decode -> resize the shorter side to 256 (bilinear) -> centre crop 224 -> RGB ->
(x / 255 - mean) / std -> NCHW float32. Peers (scripts/bench_setup.sh: build/bench/site):
* Pillow + NumPy: Image.open/convert/resize(BILINEAR)/crop, then NumPy normalise; also with
  ``Image.draft`` (Pillow's DCT-domain downscale, the same trick asc.image uses)
* OpenCV: cv2.imdecode + cv2.resize(INTER_LINEAR) + crop + cvtColor + NumPy normalise; also with
  IMREAD_REDUCED_COLOR_2/4 (OpenCV's DCT-domain downscale)
asc.image runs with all cores (its batch default) and with one thread. Also a 3840x2160 frame
(decode + resize + normalise) alone. Prints times (best of --repeat) and ratios peer / ours,
and the mean absolute difference of each peer's batch from ours (in normalised units).
"""

from __future__ import annotations

import argparse
import io
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(os.path.dirname(HERE), "build", "bench", "site"))
from _timing import best  # noqa: E402

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def jpegs(n, h, w):
    import pyasc as asc

    out = []
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    rng = np.random.default_rng(0)
    for i in range(n):
        img = np.stack([128 + 100 * np.sin(x / (30 + i)) * np.cos(y / 50), 255 * x / w, 255 * y / h], -1)
        img += rng.normal(0, 3, img.shape).astype(np.float32)
        out.append(asc.image.encode_jpeg(np.clip(img, 0, 255).astype(np.uint8), quality=90))
    return out


def _norm(crop):
    return ((crop.astype(np.float32) / 255.0 - MEAN) / STD).transpose(2, 0, 1)


def pillow(datas, draft):
    from PIL import Image

    out = np.empty((len(datas), 3, 224, 224), np.float32)
    for i, d in enumerate(datas):
        im = Image.open(io.BytesIO(d))
        if draft:
            im.draft("RGB", (256, 256))
        im = im.convert("RGB")
        w, h = im.size
        nw, nh = (256, int(256 * h / w)) if w <= h else (int(256 * w / h), 256)
        im = im.resize((nw, nh), Image.BILINEAR)
        left, top = int(round((nw - 224) / 2.0)), int(round((nh - 224) / 2.0))
        out[i] = _norm(np.asarray(im.crop((left, top, left + 224, top + 224))))
    return out


def opencv(datas, reduced):
    import cv2

    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4}[reduced]
    out = np.empty((len(datas), 3, 224, 224), np.float32)
    for i, d in enumerate(datas):
        im = cv2.imdecode(np.frombuffer(d, np.uint8), flag)
        h, w = im.shape[:2]
        nw, nh = (256, int(256 * h / w)) if w <= h else (int(256 * w / h), 256)
        im = cv2.resize(im, (nw, nh), interpolation=cv2.INTER_LINEAR)
        top, left = int(round((nh - 224) / 2.0)), int(round((nw - 224) / 2.0))
        out[i] = _norm(cv2.cvtColor(im[top:top + 224, left:left + 224], cv2.COLOR_BGR2RGB))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    import pyasc as asc

    print(f"bench_image: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}", flush=True)
    datas = jpegs(a.n, 1080, 1920)
    ours = lambda t: np.asarray(asc.image.preprocess(datas, resize=256, crop=224, num_threads=t))  # noqa: E731
    ref = ours(0)
    t_all = best(lambda: ours(0), a.repeat)
    t_one = best(lambda: ours(1), a.repeat)
    print(f"{a.n} x 1920x1080 JPEG -> [N,3,224,224]: asc.image {t_all:8.1f} ms (all cores), {t_one:8.1f} ms (1 thread)",
          flush=True)
    peers = []
    try:
        import PIL  # noqa: F401

        peers += [("Pillow+NumPy", lambda: pillow(datas, False)), ("Pillow+NumPy draft", lambda: pillow(datas, True))]
    except ImportError:
        print("Pillow not installed (scripts/bench_setup.sh)")
    try:
        import cv2  # noqa: F401

        peers += [("OpenCV", lambda: opencv(datas, 1)), ("OpenCV REDUCED_2", lambda: opencv(datas, 2)),
                  ("OpenCV REDUCED_4", lambda: opencv(datas, 4))]
    except ImportError:
        print("opencv-python-headless not installed (scripts/bench_setup.sh)")
    for name, fn in peers:
        t = best(fn, a.repeat)
        diff = float(np.abs(fn() - ref).mean())
        print(f"  {name:<22} {t:8.1f} ms  -> asc.image {t / t_all:5.2f}x (all cores), {t / t_one:5.2f}x (1 thread); "
              f"mean |diff| {diff:.3f}", flush=True)
    big = jpegs(1, 2160, 3840)
    t4k = best(lambda: asc.image.preprocess(big, resize=256, crop=224), a.repeat)
    t4k_full = best(lambda: asc.image.preprocess(big, resize=256, crop=224, dct_scaling=False), a.repeat)
    print(f"3840x2160 frame decode + resize + normalise: {t4k:.1f} ms ({t4k_full:.1f} ms with a full-size decode)")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
