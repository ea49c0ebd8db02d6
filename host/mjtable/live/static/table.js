// Draws one table from a snapshot (model.py's format) into a container: the
// four seats around the felt (seat 0 below, 1 right, 2 across, 3 left: play
// runs counter-clockwise), each with its hand, melds, discards in order,
// 定缺 suit, points and alerts; in the middle the wall, whose turn, the claim
// window and the last action. Payments fly from payer to payee once each.
// The same drawing serves the live pages and the replays.
"use strict";

const SUIT_BADGE = ["万", "筒", "条"];
const CLAIM_ZH = {hu: "胡", peng: "碰", gang: "杠", fei: "飞"};
const KIND_ZH = {peng: "碰", zhigang: "直杠", bugang: "补杠", angang: "暗杠"};
const PHASE_ZH = {deal: "配牌", exchange: "换三张", dingque: "定缺", draw: "摸牌", discard: "出牌",
  claim: "叫牌", rob: "抢杠", end: "结束", none: "—"};
const PLACES = ["bottom", "right", "top", "left"];
const animated = new Set();

function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

function signed(v) { return (v > 0 ? "+" : "") + v; }

// A win's 番 as the engine counts them (doublings): none is 平胡, which texts
// that count 1番 = x1 would call 1番 (docs/glossary.md).
function fanText(f) { return f === 0 ? "平胡" : `${f}番`; }
// the patterns a win counts by name (a house rule's own 番 as its file names it)
function patText(w) {
  return (w.patterns || []).filter(p => p.id !== "pinghu").map(p => esc(p.name)).join(" ");
}

function meldHTML(m) {
  const n = m.kind === "peng" ? 3 : 4;
  let tiles = "";
  for (let i = 0; i < n; i++) {
    const back = m.kind === "angang" && (i === 0 || i === 3);  // 暗杠: two shown
    tiles += tileSVG(back ? -1 : m.face, {width: 30});
  }
  return `<span class="meld" data-kind="${m.kind}" data-face="${m.face}" title="${KIND_ZH[m.kind]}">${tiles}</span>`;
}

function seatHTML(s, snap) {
  const turn = snap.turn === s.seat && !snap.over;
  let hand;
  if (s.hand === null) {
    hand = Array.from({length: s.count}, () => tileSVG(-1, {width: 34})).join("");
  } else {
    hand = s.hand.map(f => tileSVG(f, {width: 40})).join("");
  }
  let drawn = "";
  if (s.drawn >= 0) drawn = `<span class="drawn">${tileSVG(s.drawn, {width: 40, cls: "new"})}</span>`;
  else if (s.drawn === -2) drawn = `<span class="drawn">${tileSVG(-1, {width: 34})}</span>`;
  const melds = s.melds.map(meldHTML).join("");
  const disc = s.discards.map(d => tileSVG(d.face, {width: 28, cls: d.claimed ? "claimed" : ""})).join("");
  const voidb = s.void >= 0 ? `<span class="void suit${s.void}" title="定缺">缺${SUIT_BADGE[s.void]}</span>` : "";
  const dealer = snap.dealer === s.seat ? `<span class="dealer" title="庄家">庄</span>` : "";
  const won = s.won && !(s.wins || []).length ? `<span class="wonb">胡</span>` : "";
  const wins = (s.wins || []).map(w => `<span class="wonb" title="${esc(w.flags.join(" "))}` +
    `${w.from >= 0 ? " from " + esc(snap.seats[w.from].name) : ""}">胡 ` +
    `${tileSVG(w.face, {width: 22})} ${fanText(w.fan)} ${patText(w)}</span>`).join("");
  const prompt = s.prompt.length ?
    `<span class="prompt">${s.prompt.map(p => CLAIM_ZH[p] || p).join(" ")}?</span>` : "";
  const alerts = s.alerts.map(a => `<div class="alert${a.by_key ? " bykey" : ""}" data-key="${a.key}">` +
    `⚠ ${esc(a.name)}${a.code === 7 ? ": " + esc(a.reason) : ""}</div>`).join("");
  return `<section class="seat ${PLACES[s.seat] || ""}${turn ? " turn" : ""}${s.won ? " won" : ""}"` +
    ` data-seat="${s.seat}">` +
    `<header><span class="sname">${esc(s.name)}</span>${dealer}${voidb}${won}${wins}${prompt}` +
    `<span class="points"><b class="total">${signed(s.total)}</b>` +
    `<small class="delta">${signed(s.delta)} this hand</small></span></header>` +
    `${alerts}<div class="rack"><span class="hand">${hand}</span>${drawn}` +
    `<span class="melds">${melds}</span></div>` +
    `<div class="discards">${disc}</div></section>`;
}

const ACTION_ZH = {deal: "配牌", exchange: "换三张", dingque: "定缺", draw: "摸牌", discard: "打出",
  peng: "碰", zhigang: "杠", bugang: "补杠", angang: "暗杠", hu: "胡", pass: "过", ma: "马",
  baohu: "报胡", qinghu: "请胡", benjin: "本金", fei: "飞", ti: "提"};

function lastHTML(last, names) {
  if (!last) return "";
  const tile = last.face >= 0 && last.kind !== "dingque" ? tileSVG(last.face, {width: 26}) : "";
  const suit = last.kind === "dingque" && last.face >= 0 && last.face < 3 ? " " + SUIT_BADGE[last.face] : "";
  return `${esc(names[last.seat] || "")} ${ACTION_ZH[last.kind] || esc(last.kind)}${suit} ${tile}`;
}

// The last action's payments, netted per seat for each reason: "暗杠 下雨: East +6 · South -2 ..."
function paysHTML(pays, names) {
  const by = new Map();
  pays.forEach(p => {
    if (!by.has(p.why_zh)) by.set(p.why_zh, new Map());
    const net = by.get(p.why_zh);
    net.set(p.payer, (net.get(p.payer) || 0) - p.amount);
    net.set(p.payee, (net.get(p.payee) || 0) + p.amount);
  });
  return Array.from(by, ([why, net]) => `<div class="pays">${esc(why)}: ` +
    Array.from(net).filter(([, v]) => v).map(([s, v]) => `${esc(names[s] || "")} ${signed(v)}`)
      .join(" · ") + `</div>`).join("");
}

// The 流局 verdicts (查花猪/查大叫): "West 听牌 2番 · North 没叫 · East 花猪"
function checksHTML(checks, names) {
  if (!checks || !checks.length) return "";
  return `<div class="checks">` + checks.map(c => `${esc(names[c.seat] || "")} ${esc(c.status_zh)}` +
    `${c.status === "ready" ? " " + fanText(c.fan) : ""}`).join(" · ") + `</div>`;
}

function centreHTML(snap) {
  const seats = snap.seats || [];
  const names = seats.map(s => s.name);
  let claim = "";
  if (snap.claim) {
    const who = Object.entries(snap.claim.may).map(([s, ks]) =>
      `<li>${esc(names[s])}: ${ks.map(k => CLAIM_ZH[k] || k).join(" ")}</li>`).join("");
    claim = `<div class="claimwin"><div>${snap.claim.rob ? "抢杠 window" : "Claim window"}: ` +
      `${esc(names[snap.claim.from] || "")}'s</div>${tileSVG(snap.claim.face, {width: 44})}` +
      `<ul>${who || "<li>no one</li>"}</ul></div>`;
  }
  const wins = (snap.wins || []).map(w => `<div class="win">${esc(names[w.seat])} 胡 ` +
    `${tileSVG(w.face, {width: 28})} ${fanText(w.fan)} ${patText(w)} ${w.flags.join(" ")}` +
    `${w.from >= 0 ? " from " + esc(names[w.from]) : ""}</div>`).join("");
  const turn = snap.turn >= 0 && !snap.over ? esc(names[snap.turn] || "") : "—";
  return `<div class="centre"><div class="wall"><b>${snap.wall}</b> tiles in the wall</div>` +
    `<div class="phase">${PHASE_ZH[snap.phase] || esc(snap.phase)} · turn: <b class="turnname">${turn}</b></div>` +
    `${claim}${wins}<div class="last">${lastHTML(snap.last, names)}</div>` +
    `${paysHTML(snap.pays || [], names)}${checksHTML(snap.checks, names)}` +
    `${snap.over ? '<div class="over">Hand over</div>' : ""}` +
    `${snap.error ? `<div class="error">${esc(snap.error)}</div>` : ""}</div>`;
}

// The matches this table played before (live.py keeps the last three): why
// each ended and its totals.
function previousHTML(snap) {
  const names = (snap.seats || []).map(s => s.name);
  return (snap.previous || []).map(p => `<div class="previous">Previous match (${esc(p.note)}, ` +
    `${p.hands} hand${p.hands === 1 ? "" : "s"}): ` +
    p.totals.slice(0, Math.max(names.length, 1)).map((v, i) =>
      `${esc(names[i] || "seat " + i)} ${signed(v)}`).join(" · ") + `</div>`).join("");
}

function drawTable(el, snap, opts = {}) {
  const link = snap.link || "ok";
  const banner = (link === "ok" ? "" :
    `<div class="linkstate ${link}">${link === "lost" ? "link lost" : "connecting"}` +
    `${snap.detail ? ": " + esc(snap.detail) : ""}</div>`) + previousHTML(snap);
  // Only the parts that changed are drawn again (an action changes one or two
  // seats and the centre): parsing ~150 SVG tiles per update is the page's cost.
  const parts = [banner].concat((snap.seats || []).map(s => seatHTML(s, snap)), [centreHTML(snap)]);
  const old = el._parts;
  if (!old || old.length !== parts.length) {
    el.innerHTML = `<div class="banner">${parts[0]}</div><div class="felt">` +
      parts.slice(1).map(p => `<div class="part">${p}</div>`).join("") + `</div>`;
  } else {
    const boxes = [el.querySelector(".banner")].concat(Array.from(el.querySelectorAll(".felt > .part")));
    parts.forEach((p, i) => { if (p !== old[i]) boxes[i].innerHTML = p; });
  }
  el._parts = parts;
  el.dataset.version = snap.version !== undefined ? snap.version : "";
  el.dataset.records = snap.records;
  el.dataset.actions = snap.actions;
  el.dataset.link = link;
  el.dataset.phase = snap.phase;
  el.dataset.turn = snap.turn;
  el.dataset.wall = snap.wall;
  el.dataset.hand = snap.hand !== undefined ? snap.hand : "";
  if (opts.animate !== false) animatePays(el, snap.pays || []);
}

function animatePays(el, pays) {
  pays.forEach((p, i) => {
    if (animated.has(p.key)) return;
    animated.add(p.key);
    const from = el.querySelector(`.seat[data-seat="${p.payer}"] .points`);
    const to = el.querySelector(`.seat[data-seat="${p.payee}"] .points`);
    if (!from || !to) return;
    const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
    const chip = document.createElement("div");
    chip.className = "chip";
    chip.textContent = `${p.amount}`;
    chip.title = p.why;
    chip.style.left = `${a.left + a.width / 2 + window.scrollX}px`;
    chip.style.top = `${a.top + window.scrollY}px`;
    document.body.appendChild(chip);
    setTimeout(() => {
      chip.style.transform = `translate(${b.left - a.left}px, ${b.top - a.top}px) scale(1.3)`;
      chip.style.opacity = "0.2";
    }, 30 + 150 * i);
    setTimeout(() => chip.remove(), 1400 + 150 * i);
  });
}

// What the page shows, read back from the drawing (the browser tests compare it with the table).
function readTable(el) {
  const out = {version: el.dataset.version, records: Number(el.dataset.records),
    actions: Number(el.dataset.actions), link: el.dataset.link,
    wall: Number(el.dataset.wall), turn: Number(el.dataset.turn), phase: el.dataset.phase, seats: []};
  el.querySelectorAll(".seat").forEach(s => {
    const faces = sel => Array.from(s.querySelectorAll(sel)).map(t => t.dataset.face);
    out.seats.push({
      seat: Number(s.dataset.seat),
      hand: faces(".hand .tile"), drawn: faces(".drawn .tile"),
      melds: Array.from(s.querySelectorAll(".meld")).map(m => [m.dataset.kind, Number(m.dataset.face)]),
      discards: Array.from(s.querySelectorAll(".discards .tile")).map(
        t => [Number(t.dataset.face), t.classList.contains("claimed")]),
      void: (s.querySelector(".void") || {}).textContent || "",
      total: (s.querySelector(".total") || {}).textContent || "",
    });
  });
  return out;
}
