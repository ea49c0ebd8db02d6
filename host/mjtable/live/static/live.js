// A WebSocket that stays open: reconnects after a drop (the server, or the
// network between), and the first message after each connect is the whole
// state, so nothing needs catching up on the page's side. Read-only: the
// page never sends anything. onSnap(snapshot) is called for each message.
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);
// Latency of each update, ms from the host's reading of the table's event to
// the page laid out (what the next frame paints); `make bench` reads it.
window.liveLatency = [];

function stream(path, onSnap, onState) {
  let ws = null, wait = 250;
  function open() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    ws.onopen = () => { wait = 250; onState("open"); };
    ws.onmessage = ev => {
      const snap = JSON.parse(ev.data);
      onSnap(snap);
      if (snap.t) {
        void document.body.offsetHeight;  // style and layout done: what the next frame paints
        window.liveLatency.push(Date.now() - snap.t * 1000 - CONFIG.delay * 1000);
        if (window.liveLatency.length > 5000) window.liveLatency.shift();
      }
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
