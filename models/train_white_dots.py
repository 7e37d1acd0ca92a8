"""Train the white-dots classifier (``models/white_dots.onnx``): white 1 or white 2?

The ball classifier (``ball_classifier.onnx``) tells a Five Ball white from the other
balls well, but not always which white: at 1080p a white 2 whose two dots lie ~2 px
apart was read as white 1 in 277 of 297 views of a held-out clip.  This second stage
looks only at whites, on a finer crop of the ball itself (``DOTS_CROP_PX`` pixels over
``DOTS_CROP_DIAMETERS`` ball diameters, ``luza.vision.identify.dots_crop``), and says
white 1 or white 2; ``BallIdentifier`` splits the first model's white probability by
it.  Nothing else the first model decides (a ball or not, which colour) changes.

The crops come from the project's own renderer: random Five Ball tables and cameras
(1080p, 720p, 540p), looks, many dotted whites per frame (``WHITES_PER_KIND`` of each,
painted from aliases: ``W2.3`` like ``W2``), turned at random or so the camera looks
between their marks (``HARD_VIEW_FRACTION``: every mark near the limb), some rolling
and motion-blurred over the exposure (``ROLLING_FRACTION``), each frame coded as a
camera or a file delivers it (raw, H.264, MPEG-4), cut at the true centres jittered
like the detector's error.  Each layout is rendered ``1 + RERENDERS`` times with the
balls turned anew.

Deterministic: one seeded generator per rendered table, one thread, deterministic
torch kernels.  Validation holds out whole tables (cameras and looks never trained on).
torch is only needed here (``pip install -e .[train]``); luza runs the exported .onnx.

    .venv/bin/python models/train_white_dots.py [--data /tmp/dots.npz]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from luza.models.train_ball_classifier import (
    augmented_batches,
    conv_net,
    export,
    random_rotation,
)
from luza.models.train_ball_classifier_candidate import _alias_renderer, coded, hard_rotation

HERE = Path(__file__).resolve().parent
ONNX_NAME = "white_dots.onnx"
META_NAME = "white_dots.json"
CLASSES = ("W1", "W2")
WHITES_PER_KIND = 6  # dotted whites of each kind in a rendered frame
HARD_VIEW_FRACTION = 0.35
ROLLING_FRACTION = 0.25  # frames whose whites roll during the exposure
ROLL_SPEED_MM_S = (200.0, 4000.0)
EXPOSURE_S = (1 / 240, 1 / 60)
RERENDERS = 2
JITTER_PX = 0.7  # sd of the crop centre's error, a ball at rest (x3 for a rolling one)
SIZES = (((1920, 1080), 0.5), ((1280, 720), 0.35), ((960, 540), 0.15))
TABLES = (("kaisa-10ft", 0.5), ("pyramid-12ft", 0.5))
VAL_TABLE_EVERY = 7  # every 7th table is validation only


def _pick(rng: np.random.Generator, options):
    names = [o for o, _ in options]
    p = np.array([w for _, w in options], float)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _white_layout(profile, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """Whites scattered over the bed (a few on cushions), one red and the yellow beside."""
    R = profile.ball_radius_mm
    L, W = profile.length_mm, profile.width_mm
    ids = [f"{k}.{i}" for k in CLASSES for i in range(WHITES_PER_KIND)] + ["R1", "K"]
    pos: dict[str, tuple[float, float]] = {}
    for b in ids:
        for _ in range(200):
            if rng.random() < 0.15:
                t = rng.uniform(0.05, 0.95)
                p = [(t * L, R), (t * L, W - R), (R, t * W), (L - R, t * W)][int(rng.integers(4))]
            elif pos and rng.random() < 0.25:  # touching another ball
                q = np.array(list(pos.values())[int(rng.integers(len(pos)))])
                a = rng.uniform(0, 2 * math.pi)
                p = tuple(q + (2 * R + rng.uniform(0, 1)) * np.array([math.cos(a), math.sin(a)]))
            else:
                p = (rng.uniform(R, L - R), rng.uniform(R, W - R))
            if not (R <= p[0] <= L - R and R <= p[1] <= W - R):
                continue
            if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= 2 * R for q in pos.values()):
                pos[b] = (float(p[0]), float(p[1]))
                break
    return pos


def _rot_about(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def make_dataset(n_tables: int, frames_per_table: int, seed: int, jobs: int = 1) -> dict:
    """Render frames and cut white crops: ``X`` uint8 (N, S, S, 3), ``y`` (N,) 0 = W1,
    1 = W2, ``height`` the image height, ``table`` the rendered table's index,
    ``rolling`` whether the ball rolled during the exposure.  Each table has its own
    seeded generator, so ``jobs`` processes give the same set as one."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    one = partial(_table_crops, frames_per_table=frames_per_table, seed=seed)
    t0 = time.time()
    parts = []
    # fresh interpreters: a forked worker's crops differed from a direct call's
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max(1, jobs), mp_context=spawn) as pool:
        for k, part in enumerate(pool.map(one, range(n_tables))):
            parts.append(part)
            print(f"table {k + 1}/{n_tables}: {len(part['y'])} crops, {time.time() - t0:.0f} s")
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def _table_crops(k: int, frames_per_table: int, seed: int) -> dict:
    """The white crops of rendered table ``k``."""
    from luza.calibration.profiles import load_profile
    from luza.physics.state import BallPose
    from luza.samples.look import random_look
    from luza.samples.synth import random_camera
    from luza.vision.detect import BallDetector
    from luza.vision.identify import dots_crop_pixels

    Renderer = _alias_renderer()
    out: dict[str, list] = {"X": [], "y": [], "height": [], "table": [], "rolling": []}
    rng = np.random.default_rng([seed, k])
    prof = load_profile(_pick(rng, TABLES))
    size = _pick(rng, SIZES)
    cam = random_camera(prof, size, rng)
    rend = Renderer(prof, cam, random_look(rng), game="five-ball", seed=int(rng.integers(1 << 30)))
    det = BallDetector(cam, prof)
    R = prof.ball_radius_mm
    for _ in range(frames_per_table):
        pos = _white_layout(prof, rng)
        names = list(pos)
        whites = [j for j, b in enumerate(names) if b[:2] in CLASSES]
        rolling = rng.random() < ROLLING_FRACTION
        for _r in range(1 + RERENDERS):
            rot0 = {
                b: hard_rotation(rng) if rng.random() < HARD_VIEW_FRACTION else random_rotation(rng)
                for b in names
            }
            if rolling:
                exp = float(rng.uniform(*EXPOSURE_S))
                vel = {}
                for b in names:
                    a = rng.uniform(0, 2 * math.pi)
                    vel[b] = rng.uniform(*ROLL_SPEED_MM_S) * np.array([math.cos(a), math.sin(a)])

                def pose_at(t, vel=vel, rot0=rot0, exp=exp, pos=pos):
                    poses = {}
                    for b, (x, yy) in pos.items():
                        d = vel[b] * (t - exp / 2)
                        sp = float(np.linalg.norm(vel[b]))
                        axis = np.array([-vel[b][1], vel[b][0], 0.0]) / max(sp, 1e-9)
                        rot = _rot_about(axis, float(np.linalg.norm(d)) / R * np.sign(t - exp / 2))
                        poses[b] = BallPose(x + d[0], yy + d[1], 0.0, rot @ rot0[b])
                    return poses

                n_sub = 12
                img = rend.render_exposure(pose_at, 0.0, exp, n_sub)
            else:
                poses = {b: BallPose(x, yy, 0.0, rot0[b]) for b, (x, yy) in pos.items()}
                img = rend.render(poses, (), t=float(rng.uniform(0, 10)))
            img = coded(img, rng)
            truth = np.array([pos[names[j]] for j in whites])
            px = cam.project(truth, R).reshape(-1, 2)
            rad = det.expected_radius_px(truth)
            jit_sd = JITTER_PX * (3 if rolling else 1)
            for i, j in enumerate(whites):
                xy = px[i] + rng.normal(0, jit_sd, 2)
                out["X"].append(dots_crop_pixels(img, xy, rad[i] * rng.uniform(0.95, 1.05)))
                out["y"].append(CLASSES.index(names[j][:2]))
                out["height"].append(size[1])
                out["table"].append(k)
                out["rolling"].append(rolling)
    return {
        "X": np.stack(out["X"]),
        "y": np.array(out["y"], np.int64),
        "height": np.array(out["height"], np.int16),
        "table": np.array(out["table"], np.int32),
        "rolling": np.array(out["rolling"], bool),
    }


def build_model():
    return conv_net(((16, 16), (32, 32), (64, 64)), len(CLASSES))


def _inputs(X: np.ndarray) -> np.ndarray:
    from luza.vision.identify import normalise_crop

    return np.stack([normalise_crop(p) for p in X])


def predict(model, X: np.ndarray) -> np.ndarray:
    """P(W2) of normalised crops."""
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for b0 in range(0, len(X), 512):
            out.append(torch.softmax(model(torch.from_numpy(X[b0 : b0 + 512])), 1)[:, 1].numpy())
    return np.concatenate(out)


def train(X: np.ndarray, y: np.ndarray, epochs: int, seed: int, log=print):
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    lossf = torch.nn.CrossEntropyLoss()
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    for ep in range(epochs):
        model.train()
        perm = rng.permutation(len(y))
        tot = 0.0
        for bi, xb in augmented_batches(Xt, perm, rng):
            opt.zero_grad()
            loss = lossf(model(xb), yt[bi])
            loss.backward()
            opt.step()
            tot += loss.item() * len(bi)
        sched.step()
        log(f"epoch {ep + 1}/{epochs}: loss {tot / len(y):.4f}")
    return model


def report(p_w2: np.ndarray, d: dict, sel: np.ndarray) -> dict[str, float]:
    """Accuracy of held-out crops by image height, at rest and rolling."""
    ok = (p_w2 >= 0.5) == (d["y"][sel] == 1)
    res = {"all": float(ok.mean())}
    for h in sorted(set(d["height"][sel].tolist())):
        for roll in (False, True):
            m = (d["height"][sel] == h) & (d["rolling"][sel] == roll)
            if m.any():
                res[f"{h}p {'rolling' if roll else 'at rest'}"] = float(ok[m].mean())
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=70)
    ap.add_argument("--frames-per-table", type=int, default=12)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=1, help="rendering processes")
    ap.add_argument("--data", type=Path, help="cache of rendered crops (.npz)")
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    from luza.vision.identify import DOTS_CROP_DIAMETERS, DOTS_CROP_PX

    if args.data and args.data.exists():
        d = dict(np.load(args.data))
    else:
        d = make_dataset(args.tables, args.frames_per_table, args.seed, args.jobs)
        if args.data:
            np.savez_compressed(args.data, **d)
    val = d["table"] % VAL_TABLE_EVERY == VAL_TABLE_EVERY - 1
    X = _inputs(d["X"])
    print(f"crops: {len(d['y'])} ({int(val.sum())} held out), W2 share {d['y'].mean():.2f}")
    model = train(X[~val], d["y"][~val], args.epochs, args.seed)
    held = report(predict(model, X[val]), d, val)
    print("held-out tables:", json.dumps(held))
    args.out.mkdir(parents=True, exist_ok=True)
    export(model, args.out / ONNX_NAME, DOTS_CROP_PX)
    meta = {
        "classes": list(CLASSES),
        "crop_size_px": DOTS_CROP_PX,
        "crop_diameters": DOTS_CROP_DIAMETERS,
        "tables": args.tables,
        "frames_per_table": args.frames_per_table,
        "epochs": args.epochs,
        "seed": args.seed,
        "crops": int(len(d["y"])),
        "held_out_accuracy": held,
    }
    (args.out / META_NAME).write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
