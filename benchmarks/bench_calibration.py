"""Benchmark of automatic calibration (issue 3).

Generated part: for each seed, a view of a table rendered by ``luza.samples.render``
through ``CameraModel.looking_down`` (height 2.5-3.5 m, tilt, roll, lens distortion
from none to k1 = -0.3, 720p or 1080p, random cloth colour and lighting), a few
frames with balls and a player's arm/cue over the table.  ``calibrate()`` sees only
the frames and the profile; the result is compared with the true camera.

Real part (when ``/work/shared/realdata`` is present): overlay PNGs for the
LukasSeglias and james-ecd footage and, on LukasSeglias, the pixel -> mm mapping
against its 176 ground-truth ball positions.

    .venv/bin/python benchmarks/bench_calibration.py --seeds 1000-1039
    .venv/bin/python benchmarks/bench_calibration.py --seeds 0-9 --out /tmp/calbench

Tune on seeds 0-99, report on 1000+.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from luza.calibration.calib import Calibration, CalibrationError, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.overlay import draw_overlay
from luza.calibration.profiles import load_profile

REAL = Path("/work/shared/realdata")
LUKAS = REAL / "LukasSeglias__billiard-ai/test"
JAMES = REAL / "james-ecd__pool-ball-tracker/resources/video-1531832402.mp4"
PROFILES = ("pyramid-12ft", "pyramid-12ft", "kaisa-10ft")
N_FRAMES = 4


def view_params(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    size = (1920, 1080) if rng.random() < 0.6 else (1280, 720)
    strength = rng.choice(["none", "mild", "strong"], p=[0.3, 0.4, 0.3])
    k1 = {"none": 0.0, "mild": rng.uniform(-0.12, -0.03), "strong": rng.uniform(-0.32, -0.18)}[
        str(strength)
    ]
    k2 = 0.0 if strength != "strong" else rng.uniform(0.0, 0.08)
    return {
        "profile": str(rng.choice(PROFILES)),
        "size": size,
        "height_mm": float(rng.uniform(2500, 3500)),
        "tilt_deg": (float(rng.uniform(-8, 8)), float(rng.uniform(-8, 8))),
        "roll_deg": float(rng.uniform(-6, 6)),
        "dist": (float(k1), float(k2), 0.0, 0.0, 0.0),
        "fill": float(rng.uniform(0.8, 0.96)),
        "offset_mm": (float(rng.uniform(-150, 150)), float(rng.uniform(-100, 100))),
        "flip": bool(rng.random() < 0.5),  # head at the image right instead of left
    }


def make_view(seed: int, cache: Path | None = None):
    """(frames, true camera, profile, params) for one seed; cached as PNGs."""
    p = view_params(seed)
    profile = load_profile(p["profile"])
    cam = CameraModel.looking_down(
        profile.size_mm,
        p["size"],
        height_mm=p["height_mm"],
        tilt_deg=p["tilt_deg"],
        roll_deg=p["roll_deg"],
        dist=p["dist"],
        fill=p["fill"],
        offset_mm=p["offset_mm"],
    )
    if p["flip"]:  # the same camera turned 180 degrees about the optical axis
        from luza.calibration.find_table import _rot_about_table

        cam = _rot_about_table(cam, profile.length_mm, profile.width_mm)
    files = [cache / f"view{seed}_{i}.png" for i in range(N_FRAMES)] if cache else []
    if files and all(f.exists() for f in files):
        return [cv2.imread(str(f)) for f in files], cam, profile, p
    from luza.physics.state import BallPose
    from luza.samples.look import random_look
    from luza.samples.people import cue_for_strike, hand_at
    from luza.samples.render import Renderer

    rng = np.random.default_rng(seed + 7)
    r = Renderer(profile, cam, random_look(rng), seed=seed)
    L, W = profile.length_mm, profile.width_mm
    R = profile.ball_radius_mm
    n_balls = int(rng.integers(3, 16))
    frames = []
    for i in range(N_FRAMES):
        poses = {
            str(b + 1): BallPose(float(rng.uniform(R, L - R)), float(rng.uniform(R, W - R)))
            for b in range(n_balls)
        }
        cue_ball = poses["1"]
        occ = cue_for_strike(
            profile, (cue_ball.x_mm, cue_ball.y_mm), float(rng.uniform(0, 2 * math.pi)), 1.0, 0.5
        )
        occ += hand_at(profile, (float(rng.uniform(0, L)), float(rng.uniform(0, W))), 0, 1, 0.5)
        frames.append(r.render(poses, occ, t=0.1 * i))
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
        for f, img in zip(files, frames, strict=True):
            cv2.imwrite(str(f), img)
    return frames, cam, profile, p


def evaluate(cal: Calibration, cam: CameraModel, profile) -> dict:
    """Errors of a calibration against the true camera."""
    hn = profile.cushion_nose_height_mm
    L, W = profile.length_mm, profile.width_mm
    corners = profile.bed_corners()
    c_err = [
        float(
            np.linalg.norm(
                np.array(cal.image_points["bed_corners"][k]) - cam.project(np.array(v), hn)
            )
        )
        for k, v in corners.items()
    ]
    gx, gy = np.meshgrid(np.linspace(0, L, 15), np.linspace(0, W, 8))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    bed_err = np.linalg.norm(cal.to_table(cam.project(grid, 0.0), 0.0) - grid, axis=1)
    ball_err = np.linalg.norm(
        cal.to_table(cam.project(grid, profile.ball_radius_mm), profile.ball_radius_mm) - grid,
        axis=1,
    )
    pk = profile.pockets()
    pocket_err = [
        float(np.linalg.norm(cal.to_table(cam.project(np.array(p.centre), hn), hn) - p.centre))
        for p in pk.values()
    ]
    spot_err = [
        float(np.linalg.norm(cal.to_table(cam.project(np.array(v), 0.0), 0.0) - v))
        for v in profile.spots.values()
    ]
    # head/foot right: the calibrated head-left corner is the true head-left corner
    head_ok = c_err[0] < 30.0
    return {
        "corner_px": c_err,
        "bed_mm_median": float(np.median(bed_err)),
        "bed_mm_max": float(bed_err.max()),
        "ball_mm_max": float(ball_err.max()),
        "pocket_mm_max": max(pocket_err),
        "spot_mm_max": max(spot_err),
        "head_ok": bool(head_ok),
    }


def run_generated(seeds: list[int], cache: Path | None, out: Path | None, verbose: bool) -> dict:
    rows = []
    for seed in seeds:
        frames, cam, profile, p = make_view(seed, cache)
        t0 = time.perf_counter()
        try:
            cal = calibrate(frames, profile)
            dt = time.perf_counter() - t0
            ev = evaluate(cal, cam, profile)
            ev.update(seed=seed, seconds=dt, ok=True, size=p["size"], k1=p["dist"][0])
            if out and (verbose or max(ev["corner_px"]) > 2.5):
                out.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(out / f"gen{seed}.png"), draw_overlay(frames[0], cal))
        except CalibrationError as e:
            dt = time.perf_counter() - t0
            ev = {"seed": seed, "ok": False, "error": str(e), "seconds": dt, "size": p["size"]}
        rows.append(ev)
        if verbose:
            print(
                json.dumps(
                    {
                        k: (np.round(v, 2).tolist() if isinstance(v, list) else v)
                        for k, v in ev.items()
                    }
                ),
                flush=True,
            )
    return summarise(rows)


def summarise(rows: list[dict]) -> dict:
    """Figures over the views; the geometric ones over views calibrated with the head
    end right (a view with head and foot swapped is wrong everywhere and is counted
    in ``head_right`` instead)."""
    ok = [r for r in rows if r["ok"]]
    good = [r for r in ok if r["head_ok"]]
    hd = [r for r in good if r["size"][0] == 1920]
    c1080 = np.concatenate([r["corner_px"] for r in hd]) if hd else np.zeros(0)

    def med(key: str) -> float | None:
        return float(np.median([r[key] for r in good])) if good else None

    def mx(key: str) -> float | None:
        return float(max(r[key] for r in good)) if good else None

    return {
        "views": len(rows),
        "calibrated": len(ok),
        "refused": [(r["seed"], r.get("error")) for r in rows if not r["ok"]],
        "head_right": f"{len(good)}/{len(rows)}",
        "corner_px_1080_median": float(np.median(c1080)) if len(c1080) else None,
        "corner_px_1080_p95": float(np.percentile(c1080, 95)) if len(c1080) else None,
        "corner_px_1080_max": float(c1080.max()) if len(c1080) else None,
        "bed_mm_median": med("bed_mm_median"),
        "bed_mm_max_median_view": med("bed_mm_max"),
        "bed_mm_max": mx("bed_mm_max"),
        "views_bed_max_within_5mm": sum(r["bed_mm_max"] <= 5.0 for r in good),
        "ball_centre_mm_max": mx("ball_mm_max"),
        "pocket_mm_max_median_view": med("pocket_mm_max"),
        "views_pockets_within_5mm": sum(r["pocket_mm_max"] <= 5.0 for r in good),
        "spot_mm_max_median_view": med("spot_mm_max"),
        "views_spots_within_5mm": sum(r["spot_mm_max"] <= 5.0 for r in good),
        "seconds_median": float(np.median([r["seconds"] for r in rows])),
    }


# ------------------------------------------------------------------ real footage
def lukas_ground_truth() -> tuple[np.ndarray, np.ndarray]:
    d = json.loads(
        (
            LUKAS / "billiard_detection/resources/test_detection/with_projector_on/without_halo/"
            "testcases.json"
        ).read_text()
    )
    prof = load_profile("snooker-lukasseglias")
    L, W = prof.length_mm, prof.width_mm
    mm, px = [], []
    for case in d["cases"]:
        for b in case["balls"]:
            # their frame: origin at the table centre, +y towards the image top
            mm.append((b["x"] + L / 2, W / 2 - b["y"]))
            px.append((b["pixelX"], b["pixelY"]))
    return np.array(mm), np.array(px)


def run_real(out: Path | None) -> dict:
    res: dict = {}
    if not REAL.exists():
        return {"skipped": "no /work/shared/realdata"}
    prof = load_profile("snooker-lukasseglias")
    imgs = sorted(
        (LUKAS / "billiard_detection/resources/test_detection/with_projector_on/without_halo").glob(
            "*.png"
        )
    )
    frames = [cv2.imread(str(p)) for p in imgs]
    t0 = time.perf_counter()
    cal = calibrate(frames, prof)
    dt = time.perf_counter() - t0
    mm, px = lukas_ground_truth()
    err = np.linalg.norm(cal.ball_to_table(px) - mm, axis=1)
    res["lukas"] = {
        "gt_balls": len(mm),
        "ball_mm_median": float(np.median(err)),
        "ball_mm_max": float(err.max()),
        "head_end": cal.quality["head_end"],
        "pockets_found": len(cal.quality["pockets"]["found"]),
        "seconds": dt,
    }
    # one clip too: the same table from a video's frames
    vid = LUKAS / "billiard_search/videos/null_grad_stoss_1_0003_0009.mp4"
    vframes = _read_video(vid, 12)
    cal_v = None
    try:
        cal_v = calibrate(vframes, prof)
        err_v = np.linalg.norm(cal_v.ball_to_table(px) - mm, axis=1)
        res["lukas_video"] = {
            "ball_mm_median": float(np.median(err_v)),
            "ball_mm_max": float(err_v.max()),
        }
    except CalibrationError as e:
        res["lukas_video"] = {"error": str(e)}
    # a handheld phone that drifts by up to ~46 px over the clip: its first second
    jf = _read_video(JAMES, 10, last=25)
    cal_j = None
    try:
        cal_j = calibrate(jf, load_profile("pool-uk-7ft"))
        res["james"] = {
            "edge_rms_mm": cal_j.quality["edge_rms_mm"],
            "pockets_found": len(cal_j.quality["pockets"]["found"]),
            "head_end": cal_j.quality["head_end"]["decided_by"],
        }
    except CalibrationError as e:
        res["james"] = {"error": str(e)}
    res["james_monitor"] = run_monitor_james()
    if out:
        out.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out / "real_lukas.png"), draw_overlay(frames[0], cal))
        if cal_v is not None:
            cv2.imwrite(str(out / "real_lukas_video.png"), draw_overlay(vframes[0], cal_v))
        if cal_j is not None:
            cv2.imwrite(str(out / "real_james.png"), draw_overlay(jf[0], cal_j))
    return res


def run_monitor_generated(check_every: int = 4) -> dict:
    """A fixed camera knocked (turned 1.5 degrees, moved 60 mm) and one zoomed (focal
    +9 %) part-way through rendered footage: when ``TableMonitor`` recalibrates and how
    well its calibration then maps the bed (against the true camera after the change)."""
    from luza.calibration.monitor import TableMonitor
    from luza.physics.state import BallPose
    from luza.samples.look import random_look
    from luza.samples.render import Renderer

    prof = load_profile("pyramid-12ft")
    L, W = prof.length_mm, prof.width_mm
    base = {"height_mm": 3000.0, "tilt_deg": (2.0, -1.0), "dist": (-0.06, 0.0, 0.0, 0.0, 0.0)}
    a = CameraModel.looking_down(prof.size_mm, (1280, 720), **base)
    changes = {
        "knocked": CameraModel.looking_down(
            prof.size_mm, (1280, 720), roll_deg=1.5, offset_mm=(60.0, 0.0), **base
        ),
        "zoomed": CameraModel.looking_down(prof.size_mm, (1280, 720), fill=0.98, **base),
    }
    rng = np.random.default_rng(5)
    look = random_look(rng)
    out = {}
    gx, gy = np.meshgrid(np.linspace(0, L, 15), np.linspace(0, W, 8))
    grid = np.column_stack([gx.ravel(), gy.ravel()])

    def frames(cam, n, s0):
        r = Renderer(prof, cam, look, seed=s0)
        res = []
        for i in range(n):
            poses = {
                str(k + 1): BallPose(float(rng.uniform(60, L - 60)), float(rng.uniform(60, W - 60)))
                for k in range(6)
            }
            res.append(r.render(poses, [], t=0.1 * i))
        return res

    before = frames(a, 8, 1)
    for name, b in changes.items():
        after = frames(b, 12, 2)
        c0 = time.process_time()
        mon = TableMonitor(calibrate(before[:3], prof), check_every=check_every)
        ev = [e for i, f in enumerate(before + after) if (e := mon.update(f, i)) is not None]
        err = np.linalg.norm(mon.calibration.to_table(b.project(grid, 0.0), 0.0) - grid, axis=1)
        out[name] = {
            "changed_at_frame": len(before),
            "events": [(e.type, e.frame, round(e.shift_px, 1)) for e in ev],
            "bed_mm_median_after": round(float(np.median(err)), 2),
            "bed_mm_max_after": round(float(err.max()), 2),
            "cpu_seconds_per_frame": round((time.process_time() - c0) / 20, 3),
        }
    return out


def run_monitor_james(check_every: int = 5) -> dict:
    """The handheld james-ecd clip through ``TableMonitor``: how often it recalibrates,
    the nose drift that set each one off, and how far the monitor's calibration is at
    the last frame from one made afresh from that frame alone (bed corners, px)."""
    from luza.calibration.monitor import TableMonitor
    from luza.samples.video import read_frames

    frames = list(read_frames(JAMES))
    prof = load_profile("pool-uk-7ft")
    t0, c0 = time.perf_counter(), time.process_time()
    first = calibrate(frames[:5], prof)
    mon = TableMonitor(first, check_every=check_every)
    events = [e for i, f in enumerate(frames) if (e := mon.update(f, i)) is not None]
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    fresh = calibrate(frames[-1:], prof)  # the camera at the last frame (it keeps moving)
    off = _corner_gaps_px(mon.calibration, fresh)
    drift = _corner_gaps_px(first, fresh)
    shifts = [e.shift_px for e in events if e.type == "recalibrated"]
    return {
        "frames": len(frames),
        "check_every": check_every,
        "recalibrations": len(shifts),
        "failed": sum(e.type != "recalibrated" for e in events),
        "trigger_shift_px": [round(min(shifts), 2), round(max(shifts), 2)] if shifts else None,
        "corner_drift_first_to_last_px_max": round(max(drift), 2),
        "last_frame_corner_px_max": round(max(off), 2),
        "last_frame_corner_px_median": round(float(np.median(off)), 2),
        "seconds_per_frame": round(dt / len(frames), 3),
        "cpu_seconds_per_frame": round(dc / len(frames), 3),  # the machine may be shared
    }


def _corner_gaps_px(a: Calibration, b: Calibration) -> list[float]:
    """Image distance (px) between two calibrations' bed corners, corner by corner."""
    ca, cb = a.image_points["bed_corners"], b.image_points["bed_corners"]
    return [float(np.linalg.norm(np.array(ca[k]) - np.array(cb[k]))) for k in cb]


def _read_video(path: Path, n: int, last: int | None = None) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    if last is not None:
        total = min(total, last)
    frames = []
    for i in np.linspace(0, max(0, total - 1), n).astype(int):
        cap.set(cv2.CAP_PROP_POS_FRAMES, int(i))
        ok, f = cap.read()
        if ok:
            frames.append(f)
    cap.release()
    return frames


def renderer_version() -> str:
    """A short hash of the renderer's sources: cached views of an older renderer (a
    different nose, say) must not be measured against today's truth."""
    import hashlib

    import luza.samples as samples

    h = hashlib.sha1()
    for name in ("render.py", "look.py", "people.py", "textures.py"):
        f = Path(samples.__file__).parent / name
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()[:10]


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1000-1039")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/luza_calbench_cache"))
    ap.add_argument("--out", type=Path, default=None, help="folder for overlay PNGs")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--no-monitor", action="store_true", help="skip the knocked/zoomed camera")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    cache = a.cache / renderer_version() if a.cache else None
    summary = run_generated(parse_seeds(a.seeds), cache, a.out, a.verbose)
    print(json.dumps({"generated": summary}, indent=2))
    if not a.no_monitor:
        print(json.dumps({"monitor_generated": run_monitor_generated()}, indent=2))
    if not a.no_real:
        print(json.dumps({"real": run_real(a.out)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
