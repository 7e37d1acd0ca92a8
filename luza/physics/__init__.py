"""2-D event-based billiards physics (the generator uses it; the tracker's motion model too).

Public API (``luza.physics.sim``)::

    sim = Simulator(profile, seed=0)
    res = sim.run(positions, Strike(ball, speed_mm_s, angle_rad, follow, side, elevation_deg))
    res.events, res.pose_at(t), res.final_positions, res.state_at(ball, t), res.energy_at(t)

    tl = Timeline(profile, positions, seed=0)   # a scene: strokes and hand actions
    tl.strike(strike, at_t=None); tl.place(ball, xy, at_t); tl.remove(ball, at_t); tl.wait(s)
    tl.events, tl.pose_at(t), tl.duration_s, tl.shots

    FreePredictor(profile).predict(pos, vel, spin, dt)   # a lone ball, for the tracker

Modules: ``params`` (friction values, table geometry incl. jaws and drop holes),
``motion`` (motion laws, strike, collision impulses), ``solve`` (event-time roots),
``engine`` (the event loop), ``sim`` (the API above), ``bench`` (figures:
``python -m luza.physics.bench``).  Between events every ball follows a closed form
(sliding, rolling, spinning, flying), so events have exact times; see ``engine``.
"""
