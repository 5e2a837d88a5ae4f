"""Image preprocessing: asc.image.preprocess vs Pillow + NumPy and OpenCV, same run.

    python benchmarks/bench_image.py [--n 32] [--repeat 5] [--quick]

``--quick`` (N = 32, 3 repeats; skips the all-modes table) finishes in well under 2 minutes.

The workload is the seeds' classification preprocessing: N JPEGs of 1920x1080 (synthetic,
quality 90) -> decode -> resize the shorter side to 256 (bilinear) -> centre crop 224 -> RGB ->
(x / 255 - mean) / std -> NCHW float32. Peers (scripts/bench_setup.sh: build/bench/site):
* Pillow + NumPy: Image.open/convert/resize(BILINEAR)/crop, then NumPy normalise; also with
  ``Image.draft`` (Pillow's DCT-domain downscale, the same trick asc.image uses)
* OpenCV: cv2.imdecode + cv2.resize(INTER_LINEAR) + crop + cvtColor + NumPy normalise; also with
  IMREAD_REDUCED_COLOR_2/4 (OpenCV's DCT-domain downscale)
asc.image runs with all cores (its batch default) and with one thread. Also a 3840x2160 frame
(decode + resize + normalise) split into its stages beside OpenCV's, bilinear / bicubic at the
issue's sizes (1080p -> 224, 4K -> 224 and 720p, 224 -> 512) beside cv2.resize, and asc.image.resize's
modes (bilinear, bicubic, area, antialiased bilinear/bicubic) on a decoded 1920x1080 frame beside
cv2.resize / Pillow's Image.resize with the max |difference| in uint8 LSB. Prints times (best of
--repeat) and ratios peer / ours, and the mean absolute difference of each peer's batch from ours
(in normalised units).
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
from _timing import best, interleaved  # noqa: E402

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


def frame_4k(repeat):
    """decode + resize + normalise of one 3840x2160 JPEG, stage by stage, ours beside OpenCV's."""
    import pyasc as asc
    from pyasc import _C

    big = jpegs(1, 2160, 3840)
    C = _C.image
    m, s = [float(v) for v in MEAN], [float(v) for v in STD]
    full = C.decode(big, ["4k"], 0, True, 0, 1)[0]
    small = C.decode(big, ["4k"], 0, True, 256, 1)[0]
    fns = [("decode full", lambda: C.decode(big, ["4k"], 0, True, 0, 1)),
           (f"decode DCT-scaled to {small.shape[1]}x{small.shape[0]}", lambda: C.decode(big, ["4k"], 0, True, 256, 1)),
           ("fused resize+crop+normalise of the full decode", lambda: C.preprocess_decoded(full, 256, 224, 224, m, s,
                                                                                             1 / 255)),
           ("fused resize+crop+normalise of the scaled decode", lambda: C.preprocess_decoded(small, 256, 224, 224, m,
                                                                                               s, 1 / 255)),
           ("end to end (dct_scaling=True)", lambda: asc.image.preprocess(big, resize=256, crop=224)),
           ("end to end (dct_scaling=False)", lambda: asc.image.preprocess(big, resize=256, crop=224,
                                                                          dct_scaling=False))]
    try:
        import cv2

        buf = np.frombuffer(big[0], np.uint8)
        cv_full = cv2.imdecode(buf, cv2.IMREAD_COLOR)

        def cv_rest(im):
            h, w = im.shape[:2]
            nw, nh = (256, int(256 * h / w)) if w <= h else (int(256 * w / h), 256)
            im = cv2.resize(im, (nw, nh), interpolation=cv2.INTER_LINEAR)
            top, left = int(round((nh - 224) / 2.0)), int(round((nw - 224) / 2.0))
            return _norm(cv2.cvtColor(im[top:top + 224, left:left + 224], cv2.COLOR_BGR2RGB))

        fns += [("OpenCV imdecode full", lambda: cv2.imdecode(buf, cv2.IMREAD_COLOR)),
                ("OpenCV imdecode REDUCED_4", lambda: cv2.imdecode(buf, cv2.IMREAD_REDUCED_COLOR_4)),
                ("OpenCV resize+crop+normalise of the full decode", lambda: cv_rest(cv_full)),
                ("OpenCV end to end (full decode)", lambda: cv_rest(cv2.imdecode(buf, cv2.IMREAD_COLOR))),
                ("OpenCV end to end (REDUCED_4)", lambda: cv_rest(cv2.imdecode(buf, cv2.IMREAD_REDUCED_COLOR_4)))]
    except ImportError:
        print("opencv-python-headless not installed (scripts/bench_setup.sh)")
    ts = interleaved([f for _, f in fns], repeat)
    print("3840x2160 JPEG -> [1,3,224,224] (one thread per stage, interleaved, best of %d):" % repeat)
    for (name, _), t in zip(fns, ts):
        print(f"  {name:<52} {t:7.2f} ms")
    if len(ts) > 6:
        print(f"  end to end: OpenCV full / ours {ts[9] / ts[4]:.2f}x, OpenCV REDUCED_4 / ours {ts[10] / ts[4]:.2f}x",
              flush=True)


def resize_modes(data, repeat):
    """asc.image.resize's modes vs cv2.resize / Pillow on one decoded 1920x1080 frame -> 256x455
    (and the 224x224 upscale-free square), uint8 RGB; times interleaved, max |diff| in LSB."""
    import pyasc as asc

    img = np.asarray(asc.image.decode_image(data))
    try:
        import cv2
    except ImportError:
        cv2 = None
    try:
        from PIL import Image
    except ImportError:
        Image = None
    pil = Image.fromarray(img) if Image is not None else None
    print(f"resize of a decoded {img.shape[1]}x{img.shape[0]} RGB frame (uint8; ours on all cores and 1 thread):")
    for oh, ow in [(256, 455), (224, 224), (1620, 2880)]:
        cases = []
        if cv2 is not None:
            for mode, flag in [("bilinear", cv2.INTER_LINEAR), ("bicubic", cv2.INTER_CUBIC), ("area", cv2.INTER_AREA)]:
                cases.append((f"{mode} vs cv2", mode, False, lambda f=flag: cv2.resize(img, (ow, oh), interpolation=f)))
        if pil is not None:
            for mode, flt in [("bilinear", Image.BILINEAR), ("bicubic", Image.BICUBIC)]:
                cases.append((f"{mode} antialias vs Pillow", mode, True,
                              lambda f=flt: np.asarray(pil.resize((ow, oh), f))))
        for name, mode, aa, peer in cases:
            ours = lambda m=mode, x=aa: asc.image.resize(img, (oh, ow), m, x)  # noqa: E731
            one = lambda m=mode, x=aa: asc.image.resize(img, (oh, ow), m, x, num_threads=1)  # noqa: E731
            t_ours, t_one, t_peer = interleaved([ours, one, peer], repeat)
            diff = int(np.abs(np.asarray(ours()).astype(int) - peer().astype(int)).max())
            print(f"  {ow}x{oh} {name:<28} peer {t_peer:7.2f} ms, ours {t_ours:7.2f} ms ({t_peer / t_ours:5.2f}x), "
                  f"1 thread {t_one:7.2f} ms ({t_peer / t_one:5.2f}x); max |diff| {diff} LSB", flush=True)


def resample_sizes(repeat, quick=False):
    """Bilinear / bicubic (the vectorised separable resample) at the issue's sizes beside
    cv2.resize (INTER_LINEAR / INTER_CUBIC, OpenCV's own thread count), interleaved; uint8 and
    float32 RGB at every size, 1- and 4-channel uint8 and float32 at 1080p -> 224 and 224 -> 512;
    ours on all cores and on 1 thread; the ratio is cv2 / ours (> 1: ours faster)."""
    import pyasc as asc

    try:
        import cv2
    except ImportError:
        print("opencv-python-headless not installed (scripts/bench_setup.sh): no resample figures")
        return
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:2160, 0:3840].astype(np.float32)
    k4 = np.clip(np.stack([128 + 90 * np.sin(x / 17) * np.cos(y / 23), 255 * x / 3840, 255 * y / 2160], -1)
                 + rng.normal(0, 8, (2160, 3840, 3)), 0, 255).astype(np.uint8)
    hd = np.ascontiguousarray(k4[::2, ::2])
    small = np.ascontiguousarray(k4[:224, :224])

    def chans(img, c):
        if c == 3:
            return img
        if c == 1:
            return np.ascontiguousarray(img[..., 1:2])
        return np.ascontiguousarray(np.concatenate([img, img[..., :1]], -1))

    cases = []
    for name, img, (oh, ow) in [("1920x1080 -> 224x224", hd, (224, 224)), ("3840x2160 -> 224x224", k4, (224, 224)),
                                ("3840x2160 -> 1280x720", k4, (720, 1280)), ("224x224 -> 512x512", small, (512, 512))]:
        for c in ((3,) if img is not hd and img is not small else (3, 1, 4)):
            for dt in ("uint8", "float32"):
                cases.append((name, chans(img, c) if dt == "uint8" else chans(img, c).astype(np.float32), (oh, ow), c))
    print("bilinear/bicubic resample vs cv2.resize (ratio cv2 / ours; 'best' takes the faster of all cores and "
          "1 thread):", flush=True)
    ratios = []
    for name, img, (oh, ow), c in cases:
        for mode, flag in [("bilinear", cv2.INTER_LINEAR), ("bicubic", cv2.INTER_CUBIC)]:
            ours = lambda m=mode, i=img: asc.image.resize(i, (oh, ow), m)  # noqa: E731
            one = lambda m=mode, i=img: asc.image.resize(i, (oh, ow), m, num_threads=1)  # noqa: E731
            peer = lambda f=flag, i=img: cv2.resize(i, (ow, oh), interpolation=f)  # noqa: E731
            t_ours, t_one, t_peer = interleaved([ours, one, peer], repeat)
            a, b = np.asarray(ours()).astype(np.float64), peer().astype(np.float64).reshape(oh, ow, c)
            diff = np.abs(a - b).max()
            dtxt = f"{int(diff)} LSB" if img.dtype == np.uint8 else f"{diff / 255:.1e} rel"
            ratios.append(t_peer / min(t_ours, t_one))
            print(f"  {name:<22} {str(img.dtype):<7} C={c} {mode:<8} cv2 {t_peer:7.3f} ms, ours {t_ours:7.3f} ms "
                  f"({t_peer / t_ours:5.2f}x), 1 thread {t_one:7.3f} ms ({t_peer / t_one:5.2f}x); best "
                  f"{t_peer / min(t_ours, t_one):5.2f}x; max |diff| {dtxt}", flush=True)
    print(f"  lowest cv2 / ours (best of all cores, 1 thread): {min(ratios):.2f}x; geometric mean "
          f"{float(np.exp(np.mean(np.log(ratios)))):.2f}x", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="N = 32, 3 repeats, no all-modes table")
    ap.add_argument("--only-resample", action="store_true", help="only the bilinear/bicubic vs cv2 table")
    a = ap.parse_args()
    if a.quick:
        a.n, a.repeat = 32, 3
    import pyasc as asc

    print(f"bench_image: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}", flush=True)
    if a.only_resample:
        resample_sizes(a.repeat, a.quick)
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        return
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
    frame_4k(a.repeat)
    resample_sizes(a.repeat, a.quick)
    if not a.quick:
        resize_modes(datas[0], a.repeat)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
