// A WebSocket that stays open: reconnects after a drop (the server, or the
// network between), and the first message after each connect is the whole
// state, so nothing needs catching up on the page's side. Read-only: the
// page never sends anything. onSnap(snapshot) is called with the newest.
//
// Every message is a whole state, so a page that falls behind (a slow
// device; ten browsers on one small machine) draws only the newest of the
// messages waiting, and the payments of those it skipped: a draw costs a
// browser about 20 ms of CPU, more than reading a message (docs/live.md).
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);
// Latency of each update: [when drawn (ms since the epoch), ms from the
// host's reading of the table's event to the page laid out with it or a
// newer state (what the next frame paints)]; `make bench` reads it. liveSuperseded: [hand, actions] of the states that
// a newer one replaced before they were drawn (the browser tests read it).
window.liveLatency = [];
window.liveSuperseded = [];

function keep(list, item) {
  list.push(item);
  if (list.length > 5000) list.shift();
}

function stream(path, onSnap, onState) {
  let ws = null, wait = 250, waiting = [];
  // The draw runs as a task of its own, posted behind the messages already
  // queued: all of them are read before it (a timer would be throttled in
  // a background page; an animation frame never comes there).
  const tick = new MessageChannel();
  tick.port1.onmessage = () => draw();
  function draw() {
    const batch = waiting;
    waiting = [];
    const snap = batch[batch.length - 1];
    const pays = batch.flatMap(s => s.pays || []);
    if (pays.length) snap.pays = pays;  // animated once each, by key
    onSnap(snap);
    void document.body.offsetHeight;  // style and layout done: what the next frame paints
    const now = Date.now();
    batch.forEach((s, i) => {
      const superseded = i < batch.length - 1 && s.hand !== undefined;  // the event page's: no hand
      if (superseded) keep(window.liveSuperseded, [s.hand, s.actions]);
      if (s.t) keep(window.liveLatency, [now, now - s.t * 1000 - CONFIG.delay * 1000]);
    });
  }
  function open() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    ws.onopen = () => { wait = 250; onState("open"); };
    ws.onmessage = ev => {
      if (!waiting.length) tick.port2.postMessage(0);
      waiting.push(JSON.parse(ev.data));
    };
    ws.onclose = () => { onState("closed"); setTimeout(open, wait); wait = Math.min(wait * 2, 4000); };
  }
  open();
}

// The nav's note when the server itself is out of reach (the page keeps trying).
function serverState(st) {
  const s = document.getElementById("server");
  s.textContent = st === "open" ? "" : "server unreachable: reconnecting";
  s.className = "server " + st;
}

function delayNote() {
  const parts = [];
  if (CONFIG.delay > 0) parts.push(`broadcast delay ${CONFIG.delay} s`);
  if (CONFIG.hide) parts.push("concealed hands hidden");
  if (CONFIG.view === "referee") parts.push("referee view: no delay, every hand");
  return parts.join(" · ");
}
