// The operator panel: calls, fouls, choices, players -> POST /api/input with the token.
"use strict";
const POCKETS = ["head-left", "head-right", "middle-left", "middle-right", "foot-left", "foot-right"];
const FOULS = {
  "free-pyramid": ["non-tip", "foot-off-floor", "touched-ball", "double-hit", "push", "close-balls",
    "out-of-turn", "no-contact", "jumped-ball", "illegal-break"],
  "five-ball": ["touched-ball", "non-tip", "push", "talonmies", "double-hit", "wrong-ball",
    "touching-ball", "spoiled-setup", "early-strike", "out-of-turn", "over-length-cue"],
};
const CHOICES = {
  "free-pyramid": ["play", "hand-back", "rerack-self", "rerack-opponent", "break", "let-break"],
  "five-ball": ["ball-2", "restore", "break-start", "break-end", "decider-first", "give-start"],
};
const BALLS = { "five-ball": ["W1", "W2", "R1", "R2", "K"] };
const KEY = "luza-operator-token";
let game = null;
let players = [];

function $(id) { return document.getElementById(id); }
function fill(sel, values, blank) {
  const keep = sel.value;
  sel.textContent = "";
  if (blank !== undefined) sel.add(new Option(blank, ""));
  for (const v of values) sel.add(new Option(v, v));
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
}
function list(text) {
  return text.split(",").map((s) => s.trim()).filter((s) => s);
}
function log(text, ok) {
  const li = document.createElement("li");
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  li.className = ok ? "ok" : "err";
  $("log").prepend(li);
}

async function send(input) {
  const token = localStorage.getItem(KEY) || "";
  if (!token) { log("enter the operator token first", false); $("token").focus(); return; }
  try {
    const res = await fetch("/api/input", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
    const body = await res.json().catch(() => ({}));
    if (res.ok) log(`${input.type} ${input.kind || input.ball || (input.names || []).join(", ")}: stored at t=${body.input.t.toFixed(2)} s`, true);
    else if (res.status === 403) log("refused: wrong operator token", false);
    else log(`refused: ${body.error || res.status}`, false);
  } catch (e) {
    log(`cannot reach the server (${e})`, false);
  }
}

function setGame(s) {
  if (s.game === game && JSON.stringify(s.players) === JSON.stringify(players)) return;
  game = s.game;
  players = s.players || [];
  $("call-card").hidden = game !== "five-ball";
  const balls = BALLS[game] || [];
  fill($("call-ball"), balls);
  fill($("call-via"), balls, "none");
  fill($("call-combination"), balls, "none");
  fill($("call-pocket"), POCKETS);
  fill($("foul-kind"), FOULS[game] || []);
  fill($("choice-kind"), CHOICES[game] || []);
  fill($("foul-player"), players, "the striker");
  fill($("choice-player"), players, "–");
}

function render(s) {
  setGame(s);
  const sc = Object.entries(s.score || {}).map(([k, v]) => `${k} ${v}`).join(" : ");
  $("op-score").textContent = `${sc}${s.turn && !s.finished ? ` · ${s.turn} to play` : ""}${s.finished ? " · final" : ""}`;
  $("status").textContent = (s.camera || {}).message || "";
  $("op-ruling").textContent = s.last_ruling ? s.last_ruling.text : "–";
}

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  localStorage.setItem(KEY, $("token").value.trim());
  $("token").value = "";
  $("token-box").classList.add("saved");
  log("token saved in this browser", true);
});
$("token-clear").addEventListener("click", () => { localStorage.removeItem(KEY); $("token-box").classList.remove("saved"); });
if (localStorage.getItem(KEY)) $("token-box").classList.add("saved");

$("call-form").addEventListener("submit", (e) => {
  e.preventDefault();
  send({
    type: "call", ball: $("call-ball").value, pocket: $("call-pocket").value,
    route: {
      cushions: list($("call-cushions").value), cue_cushions: list($("call-cue-cushions").value),
      via: $("call-via").value || null, combination: $("call-combination").value || null,
      jaw: $("call-jaw").checked,
    },
  });
});
$("foul-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = { type: "foul", kind: $("foul-kind").value };
  if ($("foul-rule").value.trim()) input.rule = $("foul-rule").value.trim();
  if ($("foul-player").value) input.player = $("foul-player").value;
  send(input);
});
$("choice-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = { type: "choice", kind: $("choice-kind").value };
  if ($("choice-player").value) input.player = $("choice-player").value;
  send(input);
});
$("players-form").addEventListener("submit", (e) => {
  e.preventDefault();
  send({ type: "players", names: [$("players-a").value.trim(), $("players-b").value.trim()] });
});

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  ws.onmessage = (ev) => { const m = JSON.parse(ev.data); if (m.type === "state") render(m); };
  ws.onclose = () => { $("status").textContent = "reconnecting to the server…"; setTimeout(connect, 1500); };
  ws.onerror = () => ws.close();
}
fetch("/api/state").then((r) => r.json()).then(render).catch(() => {});
connect();
