// Draws the table from above (SVG, table millimetres: x along the table, y across).
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";

const BALL_STYLE = {
  // five-ball: two whites (marked 1 and 2), two reds, the kaisa (yellow)
  W1: { fill: "#f7f5ee", text: "#1b1b1b", label: "1" },
  W2: { fill: "#f7f5ee", text: "#c0392b", label: "2", ring: "#c0392b" },
  R1: { fill: "#c8102e", text: "#ffffff", label: "R" },
  R2: { fill: "#c8102e", text: "#ffffff", label: "R" },
  K: { fill: "#f4c20d", text: "#1b1b1b", label: "K" },
  // free pyramid: the coloured ball; ivories get their ids
  Y: { fill: "#f4c20d", text: "#1b1b1b", label: "Y" },
};
const IVORY = { fill: "#efe6cf", text: "#3a2f1a" };
// Balls are drawn a little larger than life so that they read from across the room.
const BALL_SCALE = 1.25;

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

class TableView {
  constructor(svg) {
    this.svg = svg;
    this.geomKey = null;
    this.ballEls = {};
  }

  setGeometry(g) {
    const key = JSON.stringify([g.name, g.length_mm, g.width_mm]);
    if (key === this.geomKey) return;
    this.geomKey = key;
    this.g = g;
    const svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    this.ballEls = {};
    const L = g.length_mm, W = g.width_mm, c = g.cushion_width_mm, r = g.rail_width_mm;
    const m = c + r;
    svg.setAttribute("viewBox", `${-m} ${-m} ${L + 2 * m} ${W + 2 * m}`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const defs = el("defs", {}, svg);
    const grad = el("radialGradient", { id: "cloth", cx: "50%", cy: "50%", r: "75%" }, defs);
    el("stop", { offset: "0%", "stop-color": "#1f7a4a" }, grad);
    el("stop", { offset: "100%", "stop-color": "#145a35" }, grad);
    const shine = el("radialGradient", { id: "shine", cx: "35%", cy: "30%", r: "60%" }, defs);
    el("stop", { offset: "0%", "stop-color": "#ffffff", "stop-opacity": "0.75" }, shine);
    el("stop", { offset: "100%", "stop-color": "#ffffff", "stop-opacity": "0" }, shine);
    // rail (wood), cushions, bed
    el("rect", { x: -m, y: -m, width: L + 2 * m, height: W + 2 * m, rx: 60, fill: "#5a3419" }, svg);
    el("rect", { x: -c, y: -c, width: L + 2 * c, height: W + 2 * c, fill: "#176b3f" }, svg);
    el("rect", { x: 0, y: 0, width: L, height: W, fill: "url(#cloth)" }, svg);
    // diamonds on the rail
    for (let i = 1; i < 8; i++) {
      if (i === 4) continue;
      for (const y of [-c - r / 2, W + c + r / 2]) {
        el("circle", { cx: (L * i) / 8, cy: y, r: 14, fill: "#e8dcc0" }, svg);
      }
    }
    for (let i = 1; i < 4; i++) {
      for (const x of [-c - r / 2, L + c + r / 2]) {
        el("circle", { cx: x, cy: (W * i) / 4, r: 14, fill: "#e8dcc0" }, svg);
      }
    }
    // marked lines and spots
    for (const name of g.marked_lines || []) {
      const ln = g.lines[name];
      if (!ln) continue;
      el("line", {
        x1: ln[0][0], y1: ln[0][1], x2: ln[1][0], y2: ln[1][1],
        stroke: "#cfe8d6", "stroke-opacity": "0.45", "stroke-width": 5,
      }, svg);
    }
    for (const name of g.marked_spots || []) {
      const p = g.spots[name];
      if (p) el("circle", { cx: p[0], cy: p[1], r: 9, fill: "#e8f3ea", "fill-opacity": "0.8" }, svg);
    }
    // pockets: the hole and the mouth between the jaws
    for (const [name, pk] of Object.entries(g.pockets)) {
      el("circle", { cx: pk.centre[0], cy: pk.centre[1], r: pk.radius_mm * 1.15, fill: "#0b0b0b",
        "data-pocket": name }, svg);
      el("line", { x1: pk.jaw_a[0], y1: pk.jaw_a[1], x2: pk.jaw_b[0], y2: pk.jaw_b[1],
        stroke: "#0b0b0b", "stroke-width": 22, "stroke-linecap": "round" }, svg);
    }
    this.ghostLayer = el("g", { id: "ghosts" }, svg);
    this.ballLayer = el("g", { id: "balls" }, svg);
  }

  style(id) {
    return BALL_STYLE[id] || { ...IVORY, label: id };
  }

  drawBall(parent, id, x, y, ghost) {
    const R = this.g.ball_radius_mm * BALL_SCALE;
    const st = this.style(id);
    const grp = el("g", { transform: `translate(${x} ${y})`, "data-ball": id }, parent);
    if (ghost) {
      grp.setAttribute("class", "ghost");
      el("circle", { r: R * 2.2, fill: "none", stroke: "#ffe066", "stroke-width": 7,
        "stroke-dasharray": "18 12" }, grp);
      el("circle", { r: R, fill: st.fill, "fill-opacity": "0.35", stroke: "#ffffff",
        "stroke-width": 5, "stroke-dasharray": "12 8" }, grp);
    } else {
      el("circle", { r: R + 4, fill: "#000", "fill-opacity": "0.35", cx: 6, cy: 8 }, grp);
      el("circle", { r: R, fill: st.fill, stroke: st.ring || "#00000055", "stroke-width": st.ring ? 6 : 2 }, grp);
      el("circle", { r: R, fill: "url(#shine)" }, grp);
    }
    const t = el("text", { "text-anchor": "middle", "dominant-baseline": "central",
      "font-size": st.label.length > 1 ? R * 0.95 : R * 1.15, "font-weight": "700",
      fill: ghost ? "#ffffff" : st.text, "font-family": "sans-serif" }, grp);
    t.textContent = st.label;
    return grp;
  }

  setBalls(balls) {
    if (!this.g) return;
    for (const [id, e] of Object.entries(this.ballEls)) {
      if (!(id in balls)) { e.remove(); delete this.ballEls[id]; }
    }
    for (const [id, p] of Object.entries(balls)) {
      const e = this.ballEls[id];
      if (e) e.setAttribute("transform", `translate(${p[0]} ${p[1]})`);
      else this.ballEls[id] = this.drawBall(this.ballLayer, id, p[0], p[1], false);
    }
  }

  setGhosts(respots) {
    if (!this.g) return;
    while (this.ghostLayer.firstChild) this.ghostLayer.removeChild(this.ghostLayer.firstChild);
    for (const r of respots || []) this.drawBall(this.ghostLayer, r.ball, r.pos[0], r.pos[1], true);
  }
}
window.TableView = TableView;
