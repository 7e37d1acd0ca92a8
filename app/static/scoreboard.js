// The scoreboard: the state arrives over the WebSocket (polling /api/state as a fallback).
"use strict";
const view = new TableView(document.getElementById("table"));
const GAME_NAMES = { "free-pyramid": "Free Pyramid", "five-ball": "Five Ball Pyramid" };
let lastMsg = 0;
let socketOk = false;
window.luzaSocketStates = 0; // states received over the WebSocket (tests read it)

function render(s) {
  window.luzaState = s;
  if (s.table) view.setGeometry(s.table);
  view.setBalls(s.balls || {});
  view.setGhosts(s.respots || []);
  const players = s.players || [];
  for (let i = 0; i < 2; i++) {
    const box = document.getElementById("p" + i);
    const name = players[i] || (i ? "B" : "A");
    box.querySelector(".name").textContent = name;
    box.querySelector(".points").textContent = (s.score || {})[name] ?? 0;
    box.classList.toggle("turn", !s.finished && s.turn === name);
    box.classList.toggle("winner", !!s.winner && s.winner === name);
  }
  document.getElementById("game").textContent = GAME_NAMES[s.game] || s.game || "luza";
  let shots = `shot ${s.shots || 0}`;
  if (s.finished) shots = s.winner ? `${s.winner} wins` : "final";
  else if (s.turn) shots += ` · ${s.turn} to play`;
  document.getElementById("shots").textContent = shots;
  const r = s.last_ruling;
  const head = document.getElementById("ruling-head");
  const rules = document.getElementById("ruling-rules");
  const notes = document.getElementById("ruling-notes");
  rules.textContent = "";
  if (r) {
    const who = r.player || "–";
    let text = `Shot ${r.shot}: ${who} `;
    if (r.foul) text += "— FOUL " + r.fouls.map((f) => `${f.rule} ${f.why}`).join("; ");
    else text += r.points > 0 ? `scores ${r.points}` : "no points";
    head.textContent = text;
    head.classList.toggle("foul", !!r.foul);
    for (const id of r.rules || []) {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.textContent = id;
      rules.appendChild(chip);
    }
    const resp = (s.respots || []).map((p) => `respot ${p.ball} at (${p.pos[0].toFixed(0)}, ${p.pos[1].toFixed(0)}) mm`);
    // respot hints first, then what the ruling says beyond the checks meant for the referee
    const said = (r.notes || []).filter((n) => !/^(check|warning)/.test(n)).slice(0, 2);
    notes.textContent = resp.concat(said).join(" · ");
  } else {
    head.textContent = "Waiting for the first shot…";
    head.classList.remove("foul");
    notes.textContent = "";
  }
  const cam = s.camera || {};
  const status = document.getElementById("status");
  let line = cam.message || "";
  if (s.ignored && s.ignored.length) line += ` · ${s.ignored.length} event(s) left out`;
  status.textContent = (socketOk ? "live" : "reconnecting to the server…") + " · " + line;
  const dot = document.getElementById("conn");
  dot.className = "dot " + (!socketOk ? "off" : cam.status === "lost" ? "warn" : cam.status === "ended" ? "end" : "on");
  document.body.classList.toggle("camera-lost", cam.status === "lost");
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  ws.onopen = () => { socketOk = true; };
  ws.onmessage = (ev) => {
    lastMsg = Date.now();
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") {
      window.luzaSocketStates += 1;
      render(msg);
    }
  };
  ws.onclose = () => {
    socketOk = false;
    if (window.luzaState) render(window.luzaState);
    setTimeout(connect, 1500);
  };
  ws.onerror = () => ws.close();
}

async function poll() {
  // a fallback while the socket is down (and the first paint)
  if (!socketOk || Date.now() - lastMsg > 15000) {
    try {
      const res = await fetch("/api/state", { cache: "no-store" });
      if (res.ok) render(await res.json());
    } catch (e) { /* the server is away: the status line says so */ }
  }
  setTimeout(poll, 3000);
}
poll();
connect();
