// Draws one table from a snapshot (model.py's format) into a container: the
// four seats around the felt (seat 0 below, 1 right, 2 across, 3 left: play
// runs counter-clockwise; opts.seat puts another seat below, a player's own
// view), each with its player, hand, melds, discards in order, 定缺 suit,
// points, alerts, its wins (tile, fan, patterns, 自摸 or whose discard) and
// its waits when ready (each tile, the copies left in the wall, the fan a win
// would score); in the middle the wall, whose turn, the claim window, the
// last action, a 流局 and the match's end; below, the hand's actions so far.
// Payments fly from payer to payee once each, never over the points. The
// same drawing serves the live pages and the replays.
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

// The place of seat s on the felt when seat `me` is at the bottom.
function placeOf(s, me) { return PLACES[((s - me) % 4 + 4) % 4]; }

// A win as the seat keeps it: 胡 [tile] 3番 清一色 根 · 自摸 | 点炮 South
function winHTML(w, names) {
  const how = w.from >= 0 ? `点炮 ${esc(names[w.from] || "")}` : "自摸";
  const flags = w.flags.filter(f => f !== "自摸");
  const what = (w.patterns || []).map(p => p.name).concat(flags).join(" ");
  const fan = w.shown === undefined ? fanText(w.fan) : w.shown > 0 ? `${w.shown}番` : "";
  return `<span class="wonb" data-face="${w.face}" data-from="${w.from}">胡 ` +
    `${tileSVG(w.face, {width: 22})} ${esc([what, fan].filter(x => x).join(" "))} · ${how}</span>`;
}

// A ready seat's 下叫: each wait, the copies still in the wall, the fan a win scores.
function waitsHTML(ws) {
  if (!ws || !ws.length) return "";
  return `<div class="waits"><span class="wlabel">听</span>` + ws.map(w =>
    `<span class="wait" data-face="${w.face}" data-left="${w.left}" data-fan="${w.fan}"` +
    ` title="${esc((w.patterns || []).join(" "))}">${tileSVG(w.face, {width: 24})}` +
    `<small>剩${w.left}${w.fan !== null && w.fan !== undefined ? " · " + w.fan + "番" : ""}</small>` +
    `</span>`).join("") + `</div>`;
}

// A seat's markup in slots (seatHTML puts each in an element of its own):
// drawTable draws a slot again only when its own markup changed, as an
// action changes a slot or two of a seat (its hand, one more discard); a
// seat drawn whole is ~40 tiles parsed, laid out and rastered again.
const SEAT_SLOTS = ["header", "wins", "alerts", "hand", "drawn", "melds", "waits", "discards"];

function seatSlots(s, snap, me) {
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
  const voidb = s.void >= 0 ? `<span class="void suit${s.void}" title="定缺">缺${SUIT_BADGE[s.void]}</span>` : "";
  const dealer = snap.dealer === s.seat ? `<span class="dealer" title="庄家">庄</span>` : "";
  const names = snap.seats.map(x => x.name);
  const won = s.won && !(s.wins || []).length ? `<span class="wonb">胡</span>` : "";
  const wins = (s.wins || []).map(w => winHTML(w, names)).join("");
  const player = s.player ? `<span class="player">${esc(s.player)}</span>` : "";
  const prompt = s.prompt.length ?
    `<span class="prompt">${s.prompt.map(p => CLAIM_ZH[p] || p).join(" ")}?</span>` : "";
  const alerts = s.alerts.map(a => `<div class="alert${a.by_key ? " bykey" : ""}" data-key="${a.key}">` +
    `⚠ ${esc(a.name)}${a.code === 7 ? ": " + esc(a.reason) : ""}</div>`).join("");
  return {
    cls: `seat ${placeOf(s.seat, me)}${turn ? " turn" : ""}${s.won ? " won" : ""}`,
    header: `<span class="sname">${esc(s.name)}</span>${player}${dealer}${voidb}${won}${prompt}` +
      `<span class="payslot"></span><span class="points"><b class="total">${signed(s.total)}</b>` +
      `<small class="delta">${signed(s.delta)} this hand</small></span>`,
    wins: wins ? `<div class="wins">${wins}</div>` : "", alerts, hand, drawn, melds,
    waits: waitsHTML(s.waits),
    discards: s.discards.map(d => tileSVG(d.face, {width: 28, cls: d.claimed ? "claimed" : ""})),
  };
}

// A seat whole, its slots marked data-slot (in SEAT_SLOTS' order); the
// slots that may be empty take no box of their own (.slot: display contents).
function seatHTML(x, seat) {
  return `<section class="${x.cls}" data-seat="${seat}"><header data-slot>${x.header}</header>` +
    `<div class="slot" data-slot>${x.wins}</div><div class="slot" data-slot>${x.alerts}</div>` +
    `<div class="rack"><span class="hand" data-slot>${x.hand}</span>` +
    `<span class="slot" data-slot>${x.drawn}</span><span class="melds" data-slot>${x.melds}</span></div>` +
    `<div class="slot" data-slot>${x.waits}</div>` +
    `<div class="discards" data-slot>${x.discards.join("")}</div></section>`;
}

// Draws a seat's slots again where they changed (old: its slots as last drawn).
function patchSeat(sec, x, old) {
  if (x.cls !== old.cls) sec.className = x.cls;
  const boxes = sec.querySelectorAll("[data-slot]");
  SEAT_SLOTS.forEach((k, i) => {
    if (k === "discards") patchList(boxes[i], old.discards, x.discards);
    else if (x[k] !== old[k]) boxes[i].innerHTML = x[k];
  });
}

// A list's items (markup each) drawn again: only the new ones added when the
// old list is where it starts (a discard, an action in the ticker).
function patchList(box, old, now) {
  const grows = now.length >= old.length && old.every((h, i) => h === now[i]);
  if (!grows) box.innerHTML = now.join("");
  else if (now.length > old.length) box.insertAdjacentHTML("beforeend", now.slice(old.length).join(""));
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

// The match's end: the final order, first to last.
function matchHTML(match, names, players) {
  if (!match || !match.over) return "";
  return `<div class="matchover"><b>Match over</b><ol>` + match.order.map(o =>
    `<li data-seat="${o.seat}">${esc(names[o.seat] || "")}${players[o.seat] ? " " +
      esc(players[o.seat]) : ""} <b>${signed(o.total)}</b></li>`).join("") + `</ol></div>`;
}

const TICK_ZH = Object.assign({}, ACTION_ZH, {discard: "打"});

// The hand's actions so far, newest last: "East 打 5万 · South 碰 5万 (East) ...",
// an <li> each (drawTable adds the new ones to the ticker's <ol>).
function tickerItems(ticker, names) {
  return (ticker || []).map(([k, s, f, frm]) =>
    `<li>${esc(names[s] || "")} ${TICK_ZH[k] || esc(k)}${f >= 0 && k !== "dingque" ? " " +
      faceName(f) : ""}${k === "dingque" && f >= 0 && f < 3 ? " " + SUIT_BADGE[f] : ""}` +
    `${frm >= 0 ? " (" + esc(names[frm] || "") + ")" : ""}</li>`);
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
  // the wall ran out: 流局 (查花猪/查大叫 below); else the hand ended by its wins
  const over = !snap.over ? "" : snap.wall === 0 ?
    '<div class="over liuju">流局 <small>the wall is empty</small></div>' :
    '<div class="over">Hand over</div>';
  const players = seats.map(s => s.player || "");
  return `<div class="centre"><div class="wall"><b>${snap.wall}</b> tiles in the wall</div>` +
    `<div class="phase">${PHASE_ZH[snap.phase] || esc(snap.phase)} · turn: <b class="turnname">${turn}</b></div>` +
    `${claim}${wins}<div class="last">${lastHTML(snap.last, names)}</div>` +
    `${paysHTML(snap.pays || [], names)}${over}${checksHTML(snap.checks, names)}` +
    `${matchHTML(snap.match, names, players)}` +
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
  // seats and the centre), and of a seat only its slots that changed:
  // parsing, laying out and rastering ~150 tiles per update is the page's cost.
  const me = opts.seat !== undefined && opts.seat !== null ? opts.seat : 0;
  const names = (snap.seats || []).map(s => s.name);
  const now = {banner, seats: (snap.seats || []).map(s => seatSlots(s, snap, me)),
    centre: centreHTML(snap), ticker: tickerItems(snap.ticker, names)};
  const old = el._drawn;
  if (!old || old.seats.length !== now.seats.length) {
    el.innerHTML = `<div class="banner">${banner}</div><div class="felt">` +
      now.seats.map((x, i) => seatHTML(x, snap.seats[i].seat)).join("") +
      `<div class="part">${now.centre}</div><div class="ticker"><ol>${now.ticker.join("")}</ol></div></div>`;
  } else {
    if (banner !== old.banner) el.querySelector(".banner").innerHTML = banner;
    const secs = el.querySelectorAll(".felt > .seat");
    now.seats.forEach((x, i) => patchSeat(secs[i], x, old.seats[i]));
    if (now.centre !== old.centre) el.querySelector(".felt > .part").innerHTML = now.centre;
    patchList(el.querySelector(".ticker ol"), old.ticker, now.ticker);
  }
  el._drawn = now;
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

const CHIP = 34;  // px: a chip's size (live.css .chip)

function overlaps(r, boxes) {
  return boxes.some(b => r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top);
}

// Does a chip moving in a straight line from a to b (its top-left corners)
// ever cover one of the boxes? Checked every few px of the way.
function crosses(a, b, boxes) {
  const n = Math.max(2, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 8));
  for (let i = 0; i <= n; i++) {
    const x = a.x + (b.x - a.x) * i / n, y = a.y + (b.y - a.y) * i / n;
    if (overlaps({left: x, top: y, right: x + CHIP, bottom: y + CHIP}, boxes)) return true;
  }
  return false;
}

// A payment flies from the payer's slot (beside its points) to the payee's:
// straight, or through the middle of the felt, or across at the middle's
// height, whichever first covers no seat's points on the way; one that would
// cover them every way is not flown (the points change anyway). Every
// position is in the page's coordinates.
function chipPath(el, p) {
  const slot = s => el.querySelector(`.seat[data-seat="${s}"] .payslot`);
  const from = slot(p.payer), to = slot(p.payee);
  if (!from || !to) return null;
  const sx = window.scrollX, sy = window.scrollY;
  const at = r => ({x: r.left + r.width / 2 - CHIP / 2 + sx, y: r.top + r.height / 2 - CHIP / 2 + sy});
  const boxes = Array.from(el.querySelectorAll(".points")).map(t => {
    const r = t.getBoundingClientRect();
    return {left: r.left + sx, right: r.right + sx, top: r.top + sy, bottom: r.bottom + sy};
  });
  const a = at(from.getBoundingClientRect()), b = at(to.getBoundingClientRect());
  const ways = [[a, b]];
  const mid = el.querySelector(".centre");
  if (mid) {
    const m = at(mid.getBoundingClientRect());
    ways.push([a, m, b], [a, {x: a.x, y: m.y}, {x: b.x, y: m.y}, b]);
  }
  return ways.find(w => w.slice(1).every((pt, i) => !crosses(w[i], pt, boxes))) || null;
}

function animatePays(el, pays) {
  pays.forEach((p, i) => {
    if (animated.has(p.key)) return;
    animated.add(p.key);
    const path = chipPath(el, p);
    if (!path) return;
    const chip = document.createElement("div");
    chip.className = "chip";
    chip.textContent = `${p.amount}`;
    chip.title = p.why;
    chip.style.left = `${path[0].x}px`;
    chip.style.top = `${path[0].y}px`;
    document.body.appendChild(chip);
    // one animation through the path's corners (evenly timed legs): timers
    // per leg cut the corners on a busy page, where a leg starts before the
    // last has ended and the chip goes straight across the points
    const frames = path.map((pt, k) => ({
      transform: `translate(${pt.x - path[0].x}px, ${pt.y - path[0].y}px)`,
      opacity: k === path.length - 1 ? 0.2 : 1}));
    chip.animate(frames, {duration: 1100, delay: 30 + 150 * i, fill: "forwards"})
      .finished.then(() => chip.remove(), () => chip.remove());
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
