"""Train the ball-crop classifier (``models/ball_classifier.onnx``) from rendered crops.

The crops come from the project's own renderer (``luza.samples.render.Renderer``):
random tables, cameras (720p and 1080p, half each), looks, ball layouts (touching
clusters, balls on cushions and in the jaws), random ball rotations, and people's
hands and cues over the table.  The detector runs on every rendered layout, exactly
as at run time, and each detection is labelled with the ball it lies on -- or
``none`` when it lies on a hand, a cue or anything else -- so the classifier also
learns to reject clutter; crops at the true centres, jittered like a detector's
error, are added.

White 1 (one dot) against white 2 (two dots) is the hard part: the dots are 2-3 px
across at 1080p, 1-2 px at 720p, and a pair seen near the ball's limb, edge-on,
looks like one dot.  So over half the layouts are white-heavy (``WHITE_COPIES`` of
each white: the renderer paints ``W2.3`` like ``W2``), ``HARD_VIEW_FRACTION`` of the
whites are turned so the camera looks between their six marks (every mark then
sits near the limb), and each layout is rendered ``1 + RERENDERS`` times with all
balls turned anew (crops cut at the same detections).

Classes (``CLASSES``): ``ivory`` (numbered Free Pyramid balls), ``W1`` (one dot),
``W2`` (two dots), ``red``, ``yellow``, ``none``.  Crops are cut and normalised by
``luza.vision.identify`` (``crop_pixels``, ``normalise_crop``), as at run time.

Deterministic: fixed seeds, one thread, deterministic torch kernels; the defaults
reproduce the committed weights.  Cost on this shared 2-core machine: rendering the
600 frames ~24 CPU-min (two halves of 12 min at load 11; ``make_dataset(tables=...)``
builds parts), training 20 epochs ~17 min (load 6-8); ``--data`` caches the rendered
crops so a retraining skips the rendering.  torch is only needed here
(``pip install -e .[train]``); luza runs the exported .onnx with onnxruntime.

    .venv/bin/python models/train_ball_classifier.py [--data /tmp/crops.npz]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CLASSES = ("ivory", "W1", "W2", "red", "yellow", "none")
ONNX_NAME = "ball_classifier.onnx"
META_NAME = "ball_classifier.json"


def _ball_class(ball: str) -> str:
    if ball in ("W1", "W2"):
        return ball
    if ball in ("R1", "R2"):
        return "red"
    if ball in ("K", "Y"):
        return "yellow"
    return "ivory"


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _layout(profile, ids: list[str], rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """Random non-overlapping positions: clusters of touching balls, cushion and jaw balls."""
    R = profile.ball_radius_mm
    L, W = profile.length_mm, profile.width_mm
    pos: dict[str, tuple[float, float]] = {}
    pockets = list(profile.pockets().values())
    for b in ids:
        for _ in range(200):
            u = rng.random()
            if u < 0.35 and pos:
                # touch a ball already placed
                other = np.array(pos[list(pos)[int(rng.integers(len(pos)))]])
                a = rng.uniform(0, 2 * math.pi)
                p = other + (2 * R + rng.uniform(0, 0.8)) * np.array([math.cos(a), math.sin(a)])
            elif u < 0.5:
                # against a cushion
                side = int(rng.integers(4))
                t = rng.uniform(0.05, 0.95)
                p = [
                    np.array([t * L, R]),
                    np.array([t * L, W - R]),
                    np.array([R, t * W]),
                    np.array([L - R, t * W]),
                ][side]
            elif u < 0.56:
                pk = pockets[int(rng.integers(len(pockets)))]
                p = np.array(pk.mouth_centre) - np.array(pk.inward) * rng.uniform(0.2, 1.2) * R
            else:
                p = np.array([rng.uniform(R, L - R), rng.uniform(R, W - R)])
            if not (R * 0.5 <= p[0] <= L - 0.5 * R and R * 0.5 <= p[1] <= W - 0.5 * R):
                continue
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) >= 2 * R for q in pos.values()):
                pos[b] = (float(p[0]), float(p[1]))
                break
    return pos


WHITE_COPIES = 4  # white-heavy frames: this many W1 and W2 each (the renderer paints aliases)
HARD_VIEW_FRACTION = 0.4  # whites turned so the marks sit far from the view axis
RERENDERS = 2  # extra renders of each layout with the balls turned anew
CODEC_CRF = (18, 29)  # H.264 quality of the frames (luza synth writes CRF 23): low, high + 1


def _alias_renderer():
    from luza.samples.render import Renderer

    class AliasRenderer(Renderer):
        """Paints ``W2.3`` like ``W2``: many dotted whites in one frame, all distinct ids."""

        def _ball_albedo(self, ball, nb, pix_ang):
            return super()._ball_albedo(ball.split(".")[0], nb, pix_ang)

    return AliasRenderer


def hard_rotation(rng: np.random.Generator) -> np.ndarray:
    """A ball turned so the camera looks at it between its six marks (a cube's corner
    direction, jittered): every mark is then seen far from the centre, near the limb."""
    d = np.sign(rng.normal(size=3)) / math.sqrt(3.0) + rng.normal(0, 0.12, 3)
    d /= np.linalg.norm(d)
    up = np.array([0.0, 0.0, -1.0])  # towards the camera (world z points down)
    v = np.cross(d, up)
    c = float(d @ up)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    to_up = np.eye(3) + vx + vx @ vx / (1.0 + c)  # rotation taking d onto up
    a = rng.uniform(0, 2 * math.pi)
    spin = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return spin @ to_up  # rotation @ d == up, so the body direction d faces the camera


def _rotation(ball: str, rng: np.random.Generator) -> np.ndarray:
    if ball.startswith("W") and rng.random() < HARD_VIEW_FRACTION:
        return hard_rotation(rng)
    return random_rotation(rng)


def _frame_ids(rng: np.random.Generator) -> list[str]:
    u = rng.random()
    extra = [str(i) for i in rng.choice(np.arange(1, 16), int(rng.integers(0, 4)), False)]
    if u < 0.55:  # white-heavy Five Ball frame: the dots are what the classifier must learn
        whites = [f"{w}.{k}" if k else w for w in ("W1", "W2") for k in range(WHITE_COPIES)]
        return [*whites, "R1", "R2", "K", *extra]
    if u < 0.75:
        return ["W1", "W2", "R1", "R2", "K", *extra]
    return ["Y", *[str(i) for i in range(1, 16)]]


def h264_roundtrip(img: np.ndarray, crf: int) -> np.ndarray:
    """``img`` (BGR uint8) coded as one H.264 yuv420p frame and decoded, as a recorded
    clip or a stream delivers it: a dot of 2 px loses contrast and shape there."""
    from fractions import Fraction

    import av

    h, w = img.shape[:2]
    enc = av.CodecContext.create("libx264", "w")
    enc.width, enc.height, enc.pix_fmt = w, h, "yuv420p"
    enc.time_base = Fraction(1, 30)
    enc.options = {"crf": str(int(crf)), "preset": "veryfast", "threads": "1"}
    packets = [*enc.encode(av.VideoFrame.from_ndarray(img, format="bgr24")), *enc.encode(None)]
    dec = av.CodecContext.create("h264", "r")
    frames = [f for p in packets for f in dec.decode(p)] + list(dec.decode(None))
    return frames[0].to_ndarray(format="bgr24")


def make_dataset(
    n_frames: int,
    seed: int = 7,
    frames_per_table: int = 30,
    tables: range | None = None,
    log=print,
):
    """Render frames and cut labelled crops.

    Returns ``(P, y, height, table)``: uint8 crop pixels (N, S, S, 3) as
    ``luza.vision.identify.crop_pixels`` cuts them (``normalise_crop`` makes the CNN
    input), class indices (N,), the image height each crop came from (720, 1080) and
    the index of the rendered table (camera, look) it came from.
    Each layout is rendered ``1 + RERENDERS`` times with the balls turned anew; crops
    are cut at the detector's balls (as at run time) and at the true centres jittered
    like a detector's error.  Every rendered frame goes through H.264 (CRF drawn from
    ``CODEC_CRF``) before the detector sees it.  Each table has its own seeded
    generator, so ``tables`` (a subset of table indices) builds the set in parts: the
    parts concatenated in table order are the whole set.
    """
    from luza.calibration.profiles import load_profile
    from luza.physics.state import BallPose
    from luza.samples.look import random_look
    from luza.samples.people import cue_for_strike, hand_at
    from luza.samples.synth import random_camera
    from luza.vision.detect import BallDetector
    from luza.vision.identify import crop_pixels

    Renderer = _alias_renderer()
    P, y, hgt, tab = [], [], [], []
    n_tables = max(1, math.ceil(n_frames / frames_per_table))
    t0 = time.time()
    for k in range(n_tables):
        if tables is not None and k not in tables:
            continue
        rng = np.random.default_rng([seed, k])
        done = k * frames_per_table
        table = "pyramid-12ft" if rng.random() < 0.7 else "kaisa-10ft"
        prof = load_profile(table)
        size = (1920, 1080) if rng.random() < 0.5 else (1280, 720)
        cam = random_camera(prof, size, rng)
        look = random_look(rng)
        rend = Renderer(prof, cam, look, game="five-ball", seed=int(rng.integers(1 << 30)))
        det = BallDetector(cam, prof)
        R = prof.ball_radius_mm

        def add(img, xy_px, radius_px, lab, height=size[1], k=k):
            P.append(crop_pixels(img, xy_px, radius_px))
            y.append(CLASSES.index(lab))
            hgt.append(height)
            tab.append(k)

        for _ in range(frames_per_table):
            if done >= min(n_frames, (k + 1) * frames_per_table):
                break
            ids = _frame_ids(rng)
            pos = _layout(prof, ids, rng)
            occ = []
            if pos and rng.random() < 0.5:
                b = list(pos)[int(rng.integers(len(pos)))]
                occ += hand_at(
                    prof,
                    pos[b],
                    0.0,
                    1.0,
                    float(rng.uniform(0.3, 0.5)),
                    skin_rgb=look.skin_rgb,
                    sleeve_rgb=look.sleeve_rgb,
                )
            if pos and rng.random() < 0.4:
                b = list(pos)[int(rng.integers(len(pos)))]
                occ += cue_for_strike(
                    prof,
                    pos[b],
                    float(rng.uniform(0, 2 * math.pi)),
                    1.0,
                    float(rng.uniform(0.0, 0.9)),
                    skin_rgb=look.skin_rgb,
                    sleeve_rgb=look.sleeve_rgb,
                )
            names = list(pos)
            truth = np.array([pos[b] for b in names]) if names else np.zeros((0, 2))
            rad = det.expected_radius_px(truth) if len(truth) else []
            px = cam.project(truth, R) if len(truth) else []
            on_ball: list[tuple[int, str]] = []  # detections on a ball, kept for re-renders
            for r in range(1 + RERENDERS):
                poses = {b: BallPose(x, yy, 0.0, _rotation(b, rng)) for b, (x, yy) in pos.items()}
                # re-renders leave the people out (a cue costs more than the balls)
                img = rend.render(poses, occ if r == 0 else (), t=float(rng.uniform(0, 10)))
                img = h264_roundtrip(img, int(rng.integers(*CODEC_CRF)))
                if r == 0:
                    d = det.detect(img)
                    for i in range(len(d)):
                        if len(truth):
                            dist = np.linalg.norm(truth - d.xy_mm[i], axis=1)
                            j = int(np.argmin(dist))
                            lab = (
                                _ball_class(names[j].split(".")[0]) if dist[j] < 0.5 * R else "none"
                            )
                            if 0.5 * R <= dist[j] < 1.0 * R:
                                continue  # ambiguous: half on a ball
                        else:
                            lab = "none"
                        add(img, d.xy_px[i], d.radius_px[i], lab)
                        if lab != "none":
                            on_ball.append((i, lab))
                else:  # the same detections on the balls turned anew
                    for i, lab in on_ball:
                        add(img, d.xy_px[i], d.radius_px[i], lab)
                # the true centres too, jittered like a detector's error
                for j, b in enumerate(names):
                    jit = rng.normal(0, 0.7, 2)
                    add(
                        img,
                        px[j] + jit,
                        rad[j] * rng.uniform(0.95, 1.05),
                        _ball_class(b.split(".")[0]),
                    )
            done += 1
        log(f"table {k + 1}/{n_tables}: {done} frames, {len(y)} crops, {time.time() - t0:.0f} s")
    return np.stack(P), np.array(y, np.int64), np.array(hgt, np.int16), np.array(tab, np.int32)


def build_model():
    """One 3x3 layer at full crop size, then two at 1/2 and two at 1/4: the same cost as
    two layers at full size but deeper where the dots' shapes are compared (a pair seen
    edge-on against one dot)."""
    import torch.nn as nn

    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

    return nn.Sequential(
        block(3, 16),
        nn.MaxPool2d(2),
        block(16, 32),
        block(32, 32),
        nn.MaxPool2d(2),
        block(32, 64),
        block(64, 64),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, len(CLASSES)),
    )


def normalised(P: np.ndarray) -> np.ndarray:
    """The CNN inputs (N, 3, S, S) float32 of crop pixels, as at run time."""
    from luza.vision.identify import normalise_crop

    return np.stack([normalise_crop(p) for p in P]) if len(P) else np.zeros((0, 3, 1, 1), "f4")


def train(
    X: np.ndarray,
    y: np.ndarray,
    val: np.ndarray,
    epochs: int,
    per_class: int,
    seed: int = 7,
    log=print,
):
    """Train on the crops not in ``val``; each epoch draws ``per_class`` crops of every
    class (all of a smaller class, the rest a fresh seeded draw), so every crop of the
    big classes is seen over the epochs while the classes stay balanced."""
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    is_val = np.zeros(len(y), bool)
    is_val[val] = True
    pools = [np.nonzero((y == k) & ~is_val)[0] for k in range(len(CLASSES))]
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    counts = np.array([min(len(p), per_class) for p in pools], np.float64)
    wts = torch.tensor((counts.sum() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean())
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    for ep in range(epochs):
        model.train()
        tr = np.concatenate(
            [p if len(p) <= per_class else rng.choice(p, per_class, replace=False) for p in pools]
        )
        perm = rng.permutation(tr)
        tot = 0.0
        for b0 in range(0, len(perm), 128):
            bi = perm[b0 : b0 + 128]
            xb = Xt[bi]
            # augmentation: flips and 90-degree turns (a ball has no orientation)
            if rng.random() < 0.5:
                xb = torch.flip(xb, dims=[3])
            xb = torch.rot90(xb, int(rng.integers(4)), dims=[2, 3])
            opt.zero_grad()
            loss = lossf(model(xb), yt[bi])
            loss.backward()
            opt.step()
            tot += loss.item() * len(bi)
        sched.step()
        acc = per_class_accuracy(predict(model, X[val]), y[val])
        log(
            f"epoch {ep + 1}/{epochs}: loss {tot / len(perm):.4f}, val "
            + " ".join(f"{c} {a:.4f}" for c, a in acc.items())
        )
    return model


def predict(model, X: np.ndarray) -> np.ndarray:
    import torch

    model.eval()
    with torch.no_grad():
        out = [np.zeros(0, np.int64)]
        for b0 in range(0, len(X), 512):
            out.append(model(torch.from_numpy(X[b0 : b0 + 512])).argmax(1).numpy())
    return np.concatenate(out)


def per_class_accuracy(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    acc = {"all": float((pred == y).mean()) if len(y) else float("nan")}
    for k, c in enumerate(CLASSES):
        sel = y == k
        acc[c] = float((pred[sel] == k).mean()) if sel.any() else float("nan")
    return acc


def export(model, path: Path, crop: int) -> None:
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, crop, crop)
    torch.onnx.export(
        model,
        dummy,
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--data", type=Path, help="cache of rendered crops (.npz)")
    ap.add_argument("--per-class", type=int, default=2500, help="crops per class per epoch")
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    from luza.vision.identify import CROP_DIAMETERS, CROP_SIZE_PX

    if args.data and args.data.exists():
        z = np.load(args.data)
        P, y, height, table = z["P"], z["y"], z["height"], z["table"]
    else:
        P, y, height, table = make_dataset(args.frames, args.seed)
        if args.data:
            np.savez(args.data, P=P, y=y, height=height, table=table)
    X = normalised(P)
    del P
    val = np.nonzero(table % 10 == 9)[0]  # every tenth table (camera, look) held out
    print(
        "crops per class:",
        dict(zip(CLASSES, np.bincount(y, minlength=len(CLASSES)).tolist(), strict=True)),
        f"({len(val)} held out)",
    )
    model = train(X, y, val, args.epochs, args.per_class, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    export(model, args.out / ONNX_NAME, CROP_SIZE_PX)
    pred = predict(model, X[val])
    meta = {
        "classes": list(CLASSES),
        "crop_size_px": CROP_SIZE_PX,
        "crop_diameters": CROP_DIAMETERS,
        "frames": args.frames,
        "epochs": args.epochs,
        "seed": args.seed,
        "per_class": args.per_class,
        "crops": int(len(y)),
        "val_crops": int(len(val)),
        "val_accuracy": per_class_accuracy(pred, y[val]),
        "val_accuracy_by_height": {
            str(h): per_class_accuracy(pred[height[val] == h], y[val][height[val] == h])
            for h in (720, 1080)
            if (height[val] == h).any()
        },
    }
    (args.out / META_NAME).write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
