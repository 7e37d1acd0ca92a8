"""Train the ball-crop classifier (``models/ball_classifier.onnx``) from rendered crops.

The crops come from the project's own renderer (``luza.samples.render.Renderer``):
random tables, cameras (720p and 1080p), looks, ball layouts (touching clusters,
balls on cushions), random ball rotations (so W1's dot and W2's pair show in every
orientation), and people's hands and cues over the table.  The detector runs on
every rendered frame, exactly as at run time, and each detection is labelled with
the ball it lies on -- or ``none`` when it lies on a hand, a cue or anything else --
so the classifier also learns to reject clutter.

Classes (``CLASSES``): ``ivory`` (numbered Free Pyramid balls), ``W1`` (one dot),
``W2`` (two dots), ``red``, ``yellow``, ``none``.

Deterministic: fixed seeds, one thread, deterministic torch kernels.  torch is only
needed here (``pip install -e .[train]``); luza runs the exported .onnx with
onnxruntime.

    .venv/bin/python models/train_ball_classifier.py --frames 800 --epochs 15
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


def make_dataset(n_frames: int, seed: int = 7, frames_per_table: int = 20, log=print):
    """Render frames and cut labelled crops: (X float32 (N,3,S,S), y int64 (N,))."""
    from luza.calibration.profiles import load_profile
    from luza.physics.state import BallPose
    from luza.samples.look import random_look
    from luza.samples.people import cue_for_strike, hand_at
    from luza.samples.render import Renderer
    from luza.samples.synth import random_camera
    from luza.vision.detect import BallDetector
    from luza.vision.identify import ball_crop

    rng = np.random.default_rng(seed)
    X, y = [], []
    n_tables = max(1, math.ceil(n_frames / frames_per_table))
    t0 = time.time()
    done = 0
    for k in range(n_tables):
        table = "pyramid-12ft" if rng.random() < 0.7 else "kaisa-10ft"
        prof = load_profile(table)
        size = (1920, 1080) if rng.random() < 0.6 else (1280, 720)
        cam = random_camera(prof, size, rng)
        look = random_look(rng)
        rend = Renderer(prof, cam, look, game="five-ball", seed=int(rng.integers(1 << 30)))
        det = BallDetector(cam, prof)
        R = prof.ball_radius_mm
        for _ in range(frames_per_table):
            if done >= n_frames:
                break
            if rng.random() < 0.55:
                ids = ["W1", "W2", "R1", "R2", "K"]
                # more whites: their dots are what the classifier must learn
                ids += [
                    str(i) for i in rng.choice(np.arange(1, 16), int(rng.integers(0, 5)), False)
                ]
            else:
                ids = ["Y", *[str(i) for i in range(1, 16)]]
            pos = _layout(prof, ids, rng)
            poses = {b: BallPose(x, yy, 0.0, random_rotation(rng)) for b, (x, yy) in pos.items()}
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
            img = rend.render(poses, occ, t=float(rng.uniform(0, 10)))
            d = det.detect(img)
            names = list(pos)
            truth = np.array([pos[b] for b in names]) if names else np.zeros((0, 2))
            for i in range(len(d)):
                if len(truth):
                    dist = np.linalg.norm(truth - d.xy_mm[i], axis=1)
                    j = int(np.argmin(dist))
                    lab = _ball_class(names[j]) if dist[j] < 0.5 * R else "none"
                    if 0.5 * R <= dist[j] < 1.0 * R:
                        continue  # ambiguous: half on a ball
                else:
                    lab = "none"
                X.append(ball_crop(img, d.xy_px[i], d.radius_px[i]))
                y.append(CLASSES.index(lab))
            # the true centres too, jittered like a detector's error
            rad = det.expected_radius_px(truth) if len(truth) else []
            px = cam.project(truth, R) if len(truth) else []
            for j, b in enumerate(names):
                jit = rng.normal(0, 0.7, 2)
                X.append(ball_crop(img, px[j] + jit, rad[j] * rng.uniform(0.95, 1.05)))
                y.append(CLASSES.index(_ball_class(b)))
            done += 1
        log(f"table {k + 1}/{n_tables}: {done} frames, {len(y)} crops, {time.time() - t0:.0f} s")
    return np.stack(X).astype(np.float32), np.array(y, np.int64)


def conv_net(stages: tuple[tuple[int, ...], ...], n_classes: int):
    """3x3 convolutions (batch norm, ReLU), stage by stage with a 2x2 max pool between
    stages, then a global average and a linear layer: ``stages`` lists each stage's
    widths (the ball classifier's, the white-dots model's and the candidate's nets)."""
    import torch.nn as nn

    layers, width = [], 3
    for k, stage in enumerate(stages):
        if k:
            layers.append(nn.MaxPool2d(2))
        for out in stage:
            layers.append(
                nn.Sequential(nn.Conv2d(width, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU())
            )
            width = out
    head = [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, n_classes)]
    return nn.Sequential(*layers, *head)


def build_model():
    return conv_net(((16, 16), (32, 32), (64,)), len(CLASSES))


def augmented_batches(Xt, perm: np.ndarray, rng: np.random.Generator, size: int = 128):
    """``(rows, crops)`` batches of ``size`` of ``Xt`` (a torch tensor) in ``perm``'s
    order, each flipped (half the time) and turned by a random quarter: a ball has no
    orientation."""
    import torch

    for b0 in range(0, len(perm), size):
        bi = perm[b0 : b0 + size]
        xb = Xt[bi]
        if rng.random() < 0.5:
            xb = torch.flip(xb, dims=[3])
        yield bi, torch.rot90(xb, int(rng.integers(4)), dims=[2, 3])


def train(X: np.ndarray, y: np.ndarray, epochs: int, seed: int = 7, log=print):
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    n_val = max(1, len(y) // 10)
    val, tr = idx[:n_val], idx[n_val:]
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    counts = np.bincount(y[tr], minlength=len(CLASSES)).astype(np.float64)
    wts = torch.tensor((counts.sum() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean())
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    for ep in range(epochs):
        model.train()
        perm = rng.permutation(tr)
        tot = 0.0
        for bi, xb in augmented_batches(Xt, perm, rng):
            opt.zero_grad()
            loss = lossf(model(xb), yt[bi])
            loss.backward()
            opt.step()
            tot += loss.item() * len(bi)
        sched.step()
        acc = evaluate(model, X[val], y[val])
        log(f"epoch {ep + 1}/{epochs}: loss {tot / len(tr):.4f}, val acc {acc:.4f}")
    return model, val


def evaluate(model, X: np.ndarray, y: np.ndarray) -> float:
    import torch

    model.eval()
    with torch.no_grad():
        out = []
        for b0 in range(0, len(y), 512):
            out.append(model(torch.from_numpy(X[b0 : b0 + 512])).argmax(1).numpy())
    return float((np.concatenate(out) == y).mean())


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
    ap.add_argument("--frames", type=int, default=800)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--data", type=Path, help="cache of rendered crops (.npz)")
    ap.add_argument("--max-per-class", type=int, default=4000, help="subsample big classes")
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    from luza.vision.identify import CROP_DIAMETERS, CROP_SIZE_PX

    if args.data and args.data.exists():
        z = np.load(args.data)
        X, y = z["X"], z["y"]
    else:
        X, y = make_dataset(args.frames, args.seed)
        if args.data:
            np.savez_compressed(args.data, X=X, y=y)
    if args.max_per_class:
        # the ivory balls dominate the rendered crops: keep a balanced, seeded subset
        rng = np.random.default_rng(args.seed)
        keep = []
        for k in range(len(CLASSES)):
            idx = np.nonzero(y == k)[0]
            if len(idx) > args.max_per_class:
                idx = np.sort(rng.choice(idx, args.max_per_class, replace=False))
            keep.append(idx)
        keep = np.sort(np.concatenate(keep))
        X, y = X[keep], y[keep]
    print(
        "crops per class:",
        dict(zip(CLASSES, np.bincount(y, minlength=len(CLASSES)).tolist(), strict=True)),
    )
    model, val = train(X, y, args.epochs, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    export(model, args.out / ONNX_NAME, CROP_SIZE_PX)
    meta = {
        "classes": list(CLASSES),
        "crop_size_px": CROP_SIZE_PX,
        "crop_diameters": CROP_DIAMETERS,
        "frames": args.frames,
        "epochs": args.epochs,
        "seed": args.seed,
        "crops": int(len(y)),
        "max_per_class": args.max_per_class,
        "val_accuracy": evaluate(model, X[val], y[val]),
    }
    (args.out / META_NAME).write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
