// The playground page: the editor (RulesEditor, bundled CodeMirror) beside the game drawn as SVG from the
// server's scene. Every call goes to the JSON endpoints under /api/.
"use strict";

const UNIT = 44; // pixels between the nearest two cells
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const page = {
  path: null, editor: null, lastValid: null, game: null, session: null, replay: null, simulation: null,
  selected: [], targets: [], validateTimer: null, scene: null, viewAs: false,
  at: null, // the position of the game shown (a number of plies), null: the last, where the game is
  bundled: false, // the file open is a bundled game (read-only: Save writes a copy)
};

async function api(name, data) {
  const response = await fetch("/api/" + name, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data || {}),
  });
  const body = await response.json();
  if (!response.ok) throw body;
  return body;
}

function say(text) { $("message").textContent = text || ""; }

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// -- the editor and its problems ----------------------------------------------------------------
async function openFile(path, bundled) {
  page.path = path;
  page.bundled = Boolean(bundled);
  const { text } = await api("read", { path, bundled: page.bundled });
  if (page.editor) RulesEditor.setText(page.editor, text);
  else page.editor = RulesEditor.create($("editor"), text, () => scheduleValidate());
  await validateNow(true);
}

function scheduleValidate() {
  clearTimeout(page.validateTimer);
  page.validateTimer = setTimeout(() => validateNow(false), 300);
}

async function validateNow(first) {
  const text = RulesEditor.getText(page.editor);
  let options = {};
  try { options = JSON.parse($("options").value.trim() || "{}"); } catch (e) { say("options: " + e.message); }
  const found = await api("validate", { path: page.path, bundled: page.bundled, text, variant: $("variant").value,
                                        options });
  const here = found.problems.filter((p) => p.here);
  RulesEditor.showProblems(page.editor, here);
  const list = $("problems");
  list.innerHTML = "";
  for (const p of found.problems) {
    const li = document.createElement("li");
    li.className = p.severity;
    li.textContent = `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}` + (p.hint ? ` (hint: ${p.hint})` : "");
    list.appendChild(li);
  }
  $("problems-head").textContent = found.problems.length ? `Problems (${found.problems.length})` : "Problems: none";
  if (found.ok && found.game && text !== page.lastValid) {
    page.lastValid = text;
    setGame(found.game, first);
    await newGame(); // the game is reloaded from the last valid version
  }
}

function setGame(game, first) {
  const changed = !page.game || JSON.stringify(page.game.players) !== JSON.stringify(game.players);
  page.game = game;
  const variant = $("variant"), kept = variant.value;
  variant.innerHTML = '<option value="">(none)</option>';
  for (const name of Object.keys(game.variants)) variant.add(new Option(name, name));
  variant.value = kept in game.variants ? kept : "";
  if (changed || first) {
    const seats = $("seats");
    seats.innerHTML = "";
    game.players.forEach((name, p) => {
      const label = document.createElement("label");
      label.textContent = name + " ";
      const input = document.createElement("input");
      input.className = "seat";
      input.size = 8;
      input.value = p === 0 ? "human" : "random";
      input.title = "human, or an agent: random, first, greedy, mcts:iterations=200";
      label.appendChild(input);
      seats.appendChild(label);
    });
    $("sim-agents").value = game.players.map(() => "random").join(",");
  }
}

// -- playing ------------------------------------------------------------------------------------
function settings() {
  let options = {};
  const text = $("options").value.trim();
  if (text) options = JSON.parse(text);
  return { path: page.path, bundled: page.bundled, text: page.lastValid, seed: Number($("seed").value || 0),
           variant: $("variant").value, options };
}

// The seats a game may be viewed as: the human seats (the server shows no other unless started with
// --allow-view-as, when every seat is offered).
function setViewers(seats) {
  const viewer = $("viewer"), kept = viewer.value;
  viewer.innerHTML = '<option value="">player to move</option>';
  page.game.players.forEach((name, p) => {
    if (page.viewAs || seats[p] === "human") viewer.add(new Option(name, String(p)));
  });
  viewer.value = [...viewer.options].some((o) => o.value === kept) ? kept : "";
}

async function newGame() {
  try {
    const seats = [...document.querySelectorAll(".seat")].map((i) => i.value.trim() || "human");
    setViewers(seats);
    const view = await api("new", { ...settings(), seats, viewer: $("viewer").value });
    page.session = view.session;
    page.replay = null;
    page.at = null;
    say("");
    show(view);
  } catch (e) { say(e.error || String(e)); }
}

// A step of the game at the position shown (a move there drops the later positions, as undo does).
async function act(name, data) {
  if (!page.session) return null;
  try {
    const at = name === "undo" ? null : page.at;
    const view = await api(name, { session: page.session, viewer: $("viewer").value, at, ...data });
    show(view);
    return view;
  } catch (e) {
    say(e.error + (e.hint ? ` (${e.hint})` : ""));
    return null;
  }
}

async function playText(text) {
  page.selected = [];
  page.targets = [];
  const view = await act("move", { move: text });
  if (view) say("");
}

async function clickCell(name) {
  if (page.replay) return;
  const cells = page.selected.concat([name]);
  const view = await act("click", { cells });
  if (!view) return;
  const found = view.click;
  page.selected = [];
  page.targets = [];
  if (found.play) say("");
  else if (found.next) { page.selected = cells; page.targets = found.next; say(""); }
  else if (found.choices) say("several moves use these cells: pick one from the list");
  else if (found.why) say("illegal: " + found.why);
  show(view);
}

// -- time travel through the game being played -------------------------------------------------
async function travel(ply) {
  if (!page.session || !page.scene) return;
  const last = page.scene.plies;
  page.at = Math.max(0, Math.min(ply, last)) >= last ? null : Math.max(0, ply);
  page.selected = [];
  page.targets = [];
  await act("state", {});
}

function showTravel(view) {
  const bar = $("travel");
  bar.hidden = !page.session || page.replay !== null || view.plies === undefined;
  if (bar.hidden) return;
  page.at = view.ply < view.plies ? view.ply : null;
  $("tt-ply").max = view.plies;
  $("tt-ply").value = view.ply;
  bar.classList.toggle("past", page.at !== null);
  $("tt-text").textContent = page.at === null ? `position ${view.ply} of ${view.plies} (the game)`
    : `position ${view.ply} of ${view.plies}: looking back` + (view.legal.length ? " (a move here drops the later ones)" : "");
  $("tt-back").disabled = $("tt-first").disabled = view.ply === 0;
  $("tt-forward").disabled = $("tt-last").disabled = view.ply === view.plies;
}

// The arrow keys step through the positions (of the game, or of the replay open), unless typing somewhere.
function onKey(e) {
  const target = e.target;
  if (target.closest && target.closest(".cm-editor, input, textarea, select")) return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  if (!(e.key in moves)) return;
  e.preventDefault();
  const delta = moves[e.key];
  if (page.replay) {
    const ply = Number($("ply").value), last = Number($("ply").max);
    step(Math.max(0, Math.min(last, delta === -Infinity ? 0 : delta === Infinity ? last : ply + delta)));
  } else if (page.scene && page.scene.plies !== undefined) {
    const ply = page.scene.ply;
    travel(delta === -Infinity ? 0 : delta === Infinity ? page.scene.plies : ply + delta);
  }
}

// -- drawing ------------------------------------------------------------------------------------
function show(view) {
  page.scene = view;
  $("status").textContent = view.status;
  $("told").textContent = (view.told || []).join("  ·  ");
  showTravel(view);
  drawPanel(view);
  drawBoard(view);
  drawZones(view);
  const legal = $("legal");
  legal.innerHTML = "";
  for (const m of view.legal || []) {
    const b = document.createElement("button");
    b.textContent = m;
    b.className = "legal-move";
    b.onclick = () => playText(m);
    legal.appendChild(b);
  }
  const history = $("history");
  history.innerHTML = "";
  for (const h of view.history || []) {
    const li = document.createElement("li");
    li.textContent = h;
    history.appendChild(li);
  }
  $("undo").disabled = !view.can_undo;
}

function drawBoard(view) {
  const svg = $("board");
  svg.innerHTML = "";
  if (!view.cells.length) { svg.setAttribute("height", 0); return; }
  const width = Math.max(...view.cells.map((c) => c.x)) + 1;
  const height = Math.max(...view.cells.map((c) => c.y)) + 1;
  svg.setAttribute("viewBox", `${-0.5 * UNIT} ${-0.5 * UNIT} ${width * UNIT} ${height * UNIT}`);
  svg.setAttribute("width", width * UNIT);
  svg.setAttribute("height", height * UNIT);
  const at = (c) => [c.x * UNIT, c.y * UNIT];
  const changed = new Set((view.panel && view.panel.last && view.panel.last.cells) || []);
  for (const [a, b] of view.links) {
    const [x1, y1] = at(view.cells[a]), [x2, y2] = at(view.cells[b]);
    el("line", { x1, y1, x2, y2, stroke: "#bbb", "stroke-width": 2 }, svg);
  }
  view.cells.forEach((c) => {
    const [x, y] = at(c);
    const g = el("g", { class: "cell", "data-cell": c.name }, svg);
    if (page.selected.includes(c.name)) g.classList.add("selected");
    if (page.targets.includes(c.name)) g.classList.add("target");
    if (changed.has(c.name)) g.classList.add("changed");
    const fill = c.fill || "#f0e6d2";
    if (view.shape === "square")
      el("rect", { x: x - UNIT / 2, y: y - UNIT / 2, width: UNIT, height: UNIT, fill, stroke: "#999" }, g);
    else el("circle", { cx: x, cy: y, r: UNIT * 0.42, fill, stroke: "#999" }, g);
    el("text", { x: x - UNIT * 0.45, y: y - UNIT * 0.3, "font-size": 8, fill: "#666" }, g, c.name);
    el("title", {}, g, c.name);
    g.addEventListener("click", () => clickCell(c.name));
  });
  for (const p of view.pieces) {
    const [x, y] = at(view.cells[p.cell]);
    const g = el("g", { class: "piece" + (p.hidden ? " hidden" : ""), "data-cell": view.cells[p.cell].name,
                        "data-kind": p.kind || "" }, svg);
    const dy = -p.level * 5;
    shape(p.shape, x, y + dy, UNIT * 0.3, { fill: p.fill, stroke: "#333" }, g);
    const size = p.text.length <= 2 ? 11 : p.text.length === 3 ? 9 : 7; // the text fits the piece
    el("text", { x, y: y + dy + 4, "text-anchor": "middle", "font-size": size, "font-weight": "bold" }, g, p.text);
    el("title", {}, g, (p.kind || "face down") + " " + JSON.stringify(p.attributes));
    g.style.pointerEvents = "none";
  }
}

// The panel: each seat's score and own variables (the seat to move marked), dice, chips, the last ply.
function drawPanel(view) {
  const panel = view.panel;
  const table = $("seat-table"), dice = $("dice"), chips = $("chips"), last = $("last");
  table.innerHTML = "";
  dice.innerHTML = "";
  chips.innerHTML = "";
  last.textContent = "";
  if (!panel) return;
  const own = panel.seats.length ? panel.seats[0].values.map((v) => v.name) : [];
  const head = table.insertRow();
  for (const title of ["seat"].concat(panel.scored ? ["score"] : [], own)) {
    const th = document.createElement("th");
    th.textContent = title;
    head.appendChild(th);
  }
  panel.seats.forEach((seat) => {
    const row = table.insertRow();
    row.className = "seat-row" + (seat.to_move ? " to-move" : "");
    row.dataset.seat = seat.seat;
    row.dataset.name = seat.name;
    const name = row.insertCell();
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = (view.players[seat.seat] || {}).colour || "#ccc";
    name.append(swatch, (seat.to_move ? "\u25b6 " : "") + seat.name);
    if (panel.scored) {
      const cell = row.insertCell();
      cell.className = "score";
      cell.textContent = seat.score === null ? "?" : String(seat.score);
      if (panel.score_note) cell.title = panel.score_note;
    }
    for (const v of seat.values) row.insertCell().textContent = v.text;
  });
  for (const d of panel.dice) {
    const group = labelledGroup("die-group", d.name);
    for (const face of d.faces) group.appendChild(dieFace(face));
    dice.appendChild(group);
  }
  for (const c of panel.chips) {
    const group = labelledGroup("chip-group", c.name);
    for (const item of c.items) {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.textContent = item.text;
      if (item.fill) chip.style.background = item.fill;
      group.appendChild(chip);
    }
    if (c.count > c.items.length) group.append(` +${c.count - c.items.length}`);
    if (!c.count) group.append(c.hidden ? "(hidden)" : "none");
    chips.appendChild(group);
  }
  if (panel.last) last.textContent = "last: " + panel.last.text;
}

// a panel's group of values (dice, chips) under the variable's name
function labelledGroup(className, name) {
  const group = document.createElement("div");
  group.className = className;
  const label = document.createElement("span");
  label.textContent = name;
  group.appendChild(label);
  return group;
}

const PIPS = { 1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
               4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
               6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]] };

// A die's face: pips for 1 to 6, else its text (a colour named fills it); dashed and empty before any roll.
function dieFace(face) {
  const svg = document.createElementNS(SVGNS, "svg");
  const wide = face.text.length > 2 && !(face.number in PIPS);
  const w = wide ? Math.min(14 + face.text.length * 7, 120) : 30;
  svg.setAttribute("width", w);
  svg.setAttribute("height", 30);
  svg.setAttribute("class", "die" + (face.blank ? " blank" : ""));
  svg.dataset.face = face.text;
  el("rect", { x: 1, y: 1, width: w - 2, height: 28, rx: 5, fill: face.fill || "#fff", stroke: "#333",
               "stroke-width": 1.5, "stroke-dasharray": face.blank ? "3 3" : "none" }, svg);
  if (face.number in PIPS)
    for (const [a, b] of PIPS[face.number]) el("circle", { cx: 15 + a * 7, cy: 15 + b * 7, r: 2.6, fill: "#222" }, svg);
  else if (!face.blank)
    el("text", { x: w / 2, y: 19, "text-anchor": "middle", "font-size": 11, "font-weight": "bold",
                 fill: "#111", stroke: "#fff", "stroke-width": 2, "paint-order": "stroke" }, svg, face.text);
  el("title", {}, svg, face.blank ? "not drawn yet" : face.text);
  return svg;
}

// A piece's shape (render: shapes) of radius r around (x, y).
function shape(name, x, y, r, attrs, parent) {
  if (name === "square") return el("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7, ...attrs }, parent);
  const corners = name === "diamond" ? [[0, -1], [1, 0], [0, 1], [-1, 0]]
    : name === "triangle" ? [[0, -1], [0.95, 0.75], [-0.95, 0.75]] : null;
  if (!corners) return el("circle", { cx: x, cy: y, r, ...attrs }, parent);
  return el("polygon", { points: corners.map(([a, b]) => `${x + a * r},${y + b * r}`).join(" "), ...attrs }, parent);
}

function pieceRow(items) {
  const svg = document.createElementNS(SVGNS, "svg");
  const n = Math.max(items.length, 1);
  svg.setAttribute("width", Math.min(n, 20) * 22);
  svg.setAttribute("height", Math.ceil(n / 20) * 22);
  items.forEach((p, i) => {
    const x = (i % 20) * 22 + 11, y = Math.floor(i / 20) * 22 + 11;
    shape(p.shape, x, y, 9, { fill: p.fill, stroke: "#333", class: p.hidden ? "face-down" : "face-up" }, svg);
    el("text", { x, y: y + 3, "text-anchor": "middle", "font-size": p.text.length <= 2 ? 8 : 6 }, svg, p.text);
  });
  return svg;
}

function drawZones(view) {
  const zones = $("zones");
  zones.innerHTML = "";
  for (const zone of view.zones) {
    for (const place of zone.places) {
      const box = document.createElement("div");
      box.className = "zone";
      const h = document.createElement("h4");
      h.textContent = (place.owner ? `${zone.name} (${place.owner})` : zone.name) + ` — ${place.count ?? 0}`;
      box.appendChild(h);
      if (place.items) box.appendChild(pieceRow(place.items));
      else box.append(place.text);
      zones.appendChild(box);
    }
  }
  const table = $("variables");
  table.innerHTML = "";
  const shown = new Set((view.panel && view.panel.shown) || []); // (drawn in the panel instead)
  for (const v of view.variables) {
    if (shown.has(v.name)) continue;
    for (const place of v.places) {
      const row = table.insertRow();
      row.insertCell().textContent = place.owner ? `${v.name} (${place.owner})` : v.name;
      row.insertCell().textContent = place.text;
    }
  }
}

// -- replay and simulate ------------------------------------------------------------------------
async function openLog() {
  try {
    const view = await api("replay", { path: $("log").value, game: Number($("log-game").value || 0) });
    page.replay = view.replay;
    page.session = null;
    page.at = null;
    $("ply").max = view.plies;
    showPly(view);
  } catch (e) { say(e.error || String(e)); }
}

function showPly(view) {
  $("ply").max = view.plies;
  $("ply").value = view.ply;
  $("ply-text").textContent = `position ${view.ply} of ${view.plies}`;
  say("");
  show(view);
}

async function step(ply) {
  if (!page.replay) return;
  showPly(await api("replay_step", { replay: page.replay, ply }));
}

// A balance report is a whole HTML page: shown in the sandboxed frame (no script, no origin; the page itself
// forbids fetching anything), never inserted into this page.
function showReport(html) {
  $("report").srcdoc = html;
  $("report-panel").open = true;
}

async function openReport() {
  try {
    showReport((await api("report", { path: $("log").value })).report);
    say("");
  } catch (e) { say(e.error || String(e)); }
}

async function runSimulation() {
  try {
    const s = settings();
    const agents = $("sim-agents").value.split(",").map((a) => a.trim());
    const { simulation } = await api("simulate", { ...s, agents, games: Number($("sim-games").value) });
    page.simulation = simulation;
    $("sim-report").textContent = "";
    $("stop-sim").disabled = false;
    const poll = async () => {
      const job = await api("simulation", { simulation });
      $("sim-progress").max = job.games;
      $("sim-progress").value = job.done;
      if (job.state === "running") { setTimeout(poll, 300); return; }
      $("stop-sim").disabled = true;
      if (job.error) $("sim-report").textContent = job.error;
      else if (job.report) {
        const summary = document.createElement("pre");
        summary.textContent = job.summary;
        $("sim-report").replaceChildren(summary);
        showReport(job.report);
      }
    };
    poll();
  } catch (e) { say(e.error || String(e)); }
}

async function stopSimulation() {
  if (!page.simulation) return;
  try { await api("stop", { simulation: page.simulation }); } catch (e) { say(e.error || String(e)); }
}

// -- wiring -------------------------------------------------------------------------------------
// A folder without rule files: said, with the bundled games to open and the tutorial.
function showEmpty(config) {
  $("empty").hidden = false;
  document.querySelector("main").style.display = "none";
  $("empty-text").textContent = `The folder ${config.folder} holds no rule file (.yaml).`;
  const list = $("bundled");
  list.innerHTML = "";
  for (const name of config.bundled) {
    const li = document.createElement("li");
    const open = document.createElement("button");
    open.textContent = "Open";
    open.className = "open-bundled";
    open.dataset.game = name;
    open.onclick = () => openBundled(name);
    li.append(open, " " + name.replace(/\.ya?ml$/, ""));
    list.appendChild(li);
  }
}

async function openBundled(name) {
  $("empty").hidden = true;
  document.querySelector("main").style.display = "";
  const label = `${name} (bundled, read-only)`;
  if (![...$("file").options].some((o) => o.value === "bundled:" + name)) $("file").add(new Option(label, "bundled:" + name));
  $("file").value = "bundled:" + name;
  showSave();
  await openFile(name, true);
}

function showSave() {
  const bundled = $("file").value.startsWith("bundled:");
  $("save").textContent = page.copiesTo || bundled ? "Save a copy" : "Save";
  $("save").title = page.copiesTo ? `these files are read-only: Save writes a copy into ${page.copiesTo}`
    : bundled ? "a bundled game is read-only: Save writes a copy into this folder"
    : "write the edited text to the file";
}

// The rule files listed again (after a copy is saved), keeping the one shown.
async function listFiles(select) {
  const config = await api("config");
  const kept = select || $("file").value;
  for (const o of [...$("file").options]) if (!o.value.startsWith("bundled:")) o.remove();
  for (const r of config.rules) $("file").add(new Option(r, r));
  $("file").value = kept;
}

async function start() {
  const config = await api("config");
  page.viewAs = config.view_as;
  page.copiesTo = config.copies_to;
  for (const r of config.rules) $("file").add(new Option(r, r));
  for (const l of config.logs) $("log").add(new Option(l, l));
  if (config.skipped.length) { // files the folder holds but could not be listed (a link loop, a pipe)
    $("skipped").textContent = `${config.skipped.length} not listed`;
    $("skipped").title = config.skipped.join("\n");
  }
  showSave(); // the installed games are read-only: Save writes a copy
  $("file").onchange = () => {
    page.lastValid = null;
    page.game = null;
    const value = $("file").value, bundled = value.startsWith("bundled:");
    showSave();
    openFile(bundled ? value.slice("bundled:".length) : value, bundled);
  };
  $("save").onclick = async () => {
    try {
      const done = await api("save", { path: page.path, bundled: page.bundled, text: RulesEditor.getText(page.editor) });
      if (page.bundled && !page.copiesTo) { // the copy is a file of this folder now: it is the one edited
        await listFiles(page.path);
        page.bundled = false;
        showSave();
      }
      // said once the page shows what was saved (the copy chosen in the file list)
      $("saved").textContent = done.copy ? `saved a copy: ${done.copy}` : "saved";
    } catch (e) { $("saved").textContent = e.error; }
  };
  $("new").onclick = newGame;
  $("undo").onclick = () => act("undo", {});
  $("viewer").onchange = () => act("state", {});
  $("variant").onchange = () => { page.lastValid = null; validateNow(false); };
  $("options").onchange = () => { page.lastValid = null; validateNow(false); }; // the players may change
  $("play-move").onclick = () => playText($("move-text").value);
  $("move-text").onkeydown = (e) => { if (e.key === "Enter") playText($("move-text").value); };
  $("open-log").onclick = openLog;
  $("open-report").onclick = openReport;
  $("back").onclick = () => step(Number($("ply").value) - 1);
  $("forward").onclick = () => step(Number($("ply").value) + 1);
  $("ply").oninput = () => step(Number($("ply").value));
  $("tt-first").onclick = () => travel(0);
  $("tt-back").onclick = () => travel(page.scene.ply - 1);
  $("tt-forward").onclick = () => travel(page.scene.ply + 1);
  $("tt-last").onclick = () => travel(page.scene.plies);
  $("tt-ply").oninput = () => travel(Number($("tt-ply").value));
  document.addEventListener("keydown", onKey);
  $("simulate").onclick = runSimulation;
  $("stop-sim").onclick = stopSimulation;
  const first = config.first || config.rules[0];
  if (first) {
    $("file").value = first;
    await openFile(first);
  } else showEmpty(config);
  document.body.dataset.ready = "1";
}

start();
