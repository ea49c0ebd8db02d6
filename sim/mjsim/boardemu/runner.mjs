#!/usr/bin/env node
// sim/mjsim/boardemu/runner.mjs - the board harness's JS runner: MicroPython (rp2 port, RPI_PICO)
// inside the rp2040js emulator. Started from ../shared/rp2emu/rp2emu.mjs (written for this
// project); added: --bridge (the table's chips, played by a Python process over two pipes,
// see bridge.py), bus timing, power cuts, --console. The chips' logic is all in Python.
//
// Bridge: node runner.mjs --pty --pty-link L --bridge OUT,IN [--console FILE] [--flash-file FILE]
//   events to fd OUT, one line each, "<op> <emulated ns> <args>"; the answer to each is one
//   line read from fd IN (the CPU is paused meanwhile: emulated time is exact):
//     f NS GPIO FALL MOSI  an SPI frame: chip select GPIO was low from FALL to NS, MOSI (hex)
//     s NS BYTE        an SPI byte with no one (or two) selected; answer: the MISO byte
//     p NS GPIO STATE  a watched output pin changed (rp2040js GPIOPinState)
//     C NS ADDR MODE W N  I2C1 connect (answer 1 = ACK), after the bytes W (hex) written and
//                      N read since the last event (a restart)
//     R NS K           I2C byte K of a read beyond those read ahead; answer the byte
//     .P NS W N        I2C stop (no answer, like every event starting with ".")
//     l NS HEX         the bytes a WS2812 chain on the LED pin took (one latch)
//     t NS             the wake-up the bridge asked for (or a 10 ms heartbeat)
//     u NS             (told, no answer) the board wrote on its USB CDC
//     r NS KIND        the chip (re)started: "power" (first, after a cut) or "reset"
//     x NS OPS         power cut after the OPSth flash program/erase (flash in --flash-file)
//   each answer is "VALUE [directive]...": Bgpio,level,ns (drive an input pin at emulated ns),
//   Wns (wake me then), Cn (cut the power after n more flash operations; 0 cancels),
//   Uhex (bytes from the host on the USB link), Lg,g.. (watch these output pins),
//   Fnss,busy (an SPI chip select, the BUSY pin it raises on a frame's first byte, -1 none),
//   Mnss,fill,hex (MISO of that chip's next frame, then fill), Ahex (an I2C read's bytes
//   ahead), Dgpio (a WS2812 chain's data pin), X (stop the watchdog), Q (quit).
//
// Batch:       node rp2emu.mjs [--fw F.uf2] [--fs-in fs.img] [--fs-out fs.img]
//                   [--put local[:remote]]... [--run script.py]... [--exec CODE]...
//                   [--mem] [--json out.json] [--timeout EMU_S] [--wall-timeout S] [--quiet]
//                   [--no-flash-timing] [--trace-usb]      (steps run in command-line order)
// Interactive: node rp2emu.mjs --pty [--pty-link $RP2EMU_HOME/ttyPICO]   (then: mpremote connect /dev/pts/N ...)
//              node rp2emu.mjs --tcp 2217                                (then: mpremote connect socket://127.0.0.1:2217)
//              node rp2emu.mjs --repl                                    (stdin/stdout terminal, Ctrl-X quits)
//
// Environment: RP2EMU_NODE_DIR (a folder holding node_modules/rp2040js 1.4.1: `npm install --prefix DIR rp2040js@1.4.1`;
//                               default $RP2EMU_HOME/node, $RP2EMU_HOME defaulting to rp2emu in the temp folder)
//              RP2EMU_BOOTROM  (the RP2040 B1 ROM, .bin or rp2040js' bootrom.ts; default bootrom-B1.bin beside this file)
//              RP2EMU_FW       (the MicroPython image; default RPI_PICO-v1.28.0.uf2 beside this file)

import { createRequire } from 'module';
import fs from 'fs';
import os from 'os';
import path from 'path';
import net from 'net';
import { spawn } from 'child_process';
import { fileURLToPath } from 'url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// rp2040js models one core only; MicroPython's soft reset polls the inter-core FIFO
// (SIO 0x50 FIFO_ST / 0x58 FIFO_RD), which rp2040js reports with console.warn. Hide those.
const origWarn = console.warn;
console.warn = (...a) => { if (!/invalid SIO address: 5[08]\b/.test(String(a[0]))) origWarn(...a); };
const HOME = process.env.RP2EMU_HOME || path.join(os.tmpdir(), 'rp2emu');
const NODE_DIR = process.env.RP2EMU_NODE_DIR || path.join(HOME, 'node');
const require = createRequire(path.join(NODE_DIR, 'package.json'));
const { Simulator, USBCDC, ConsoleLogger, LogLevel } = require('rp2040js');

const FLASH_SIZE = 2 * 1024 * 1024;          // RPI_PICO: 2 MiB
const FS_BASE = FLASH_SIZE - 1408 * 1024;    // MICROPY_HW_FLASH_STORAGE_BASE = 0xA0000
// Modelled flash timings (W25Q16JV typical); CPU is stalled in the ROM routine meanwhile.
const FLASH_ERASE_NS_PER_4K = 45e6;
const FLASH_PROG_NS_PER_256 = 0.4e6;

// ---------------------------------------------------------------- args
function parseArgs(argv) {
  const o = { steps: [], fw: process.env.RP2EMU_FW || path.join(HERE, 'RPI_PICO-v1.28.0.uf2') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    switch (a) {
      case '--fw': o.fw = v(); break;
      case '--fs-in': o.fsIn = v(); break;
      case '--fs-out': o.fsOut = v(); break;
      case '--put': o.steps.push({ kind: 'put', arg: v() }); break;
      case '--run': o.steps.push({ kind: 'run', arg: v() }); break;
      case '--exec': o.steps.push({ kind: 'exec', arg: v() }); break;
      case '--json': o.json = v(); break;
      case '--timeout': o.timeout = parseFloat(v()); break;
      case '--wall-timeout': o.wallTimeout = parseFloat(v()); break;
      case '--mem': o.mem = true; break;
      case '--quiet': case '-q': o.quiet = true; break;
      case '--pty': o.pty = true; break;
      case '--pty-link': o.ptyLink = v(); break;
      case '--tcp': o.tcp = parseInt(v(), 10); break;
      case '--repl': o.repl = true; break;
      case '--no-throttle': o.noThrottle = true; break;
      case '--no-flash-timing': o.noFlashTiming = true; break;
      case '--trace-usb': o.traceUsb = true; break;
      case '--bridge': o.bridge = v().split(',').map(Number); break;  // fds: events out, answers in
      case '--console': o.console = v(); break;
      case '--flash-file': o.flashFile = v(); break;
      case '-h': case '--help':
        console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 15).join('\n'));
        process.exit(0);
      default:
        console.error('unknown argument: ' + a); process.exit(2);
    }
  }
  return o;
}

// ---------------------------------------------------------------- helpers
function loadBootrom(file) {
  if (file.endsWith('.bin')) {  // the ROM as 16 KiB of little-endian words
    const b = fs.readFileSync(file);
    return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  }
  const src = fs.readFileSync(file, 'utf8');
  const body = src.slice(src.indexOf('['), src.lastIndexOf(']'));
  const words = body.match(/0x[0-9a-fA-F]+/g).map((h) => parseInt(h, 16) >>> 0);
  return new Uint32Array(words);
}

function loadImage(mcu, file) {
  const data = fs.readFileSync(file);
  if (file.endsWith('.uf2')) {
    let n = 0;
    for (let off = 0; off + 512 <= data.length; off += 512) {
      const m0 = data.readUInt32LE(off), m1 = data.readUInt32LE(off + 4), m2 = data.readUInt32LE(off + 508);
      if (m0 !== 0x0a324655 || m1 !== 0x9e5d5157 || m2 !== 0x0ab16f30) continue;
      const flags = data.readUInt32LE(off + 8);
      if (flags & 1) continue; // not main flash
      const addr = data.readUInt32LE(off + 12), size = data.readUInt32LE(off + 16);
      if (addr < 0x10000000 || addr >= 0x11000000) continue;
      mcu.flash.set(data.subarray(off + 32, off + 32 + size), addr - 0x10000000);
      n++;
    }
    if (!n) throw new Error('no UF2 blocks in ' + file);
  } else {
    mcu.flash.set(data, 0); // raw .bin starting at flash offset 0 (boot2 first)
  }
}

// Patch the bootrom's flash_range_erase / flash_range_program with BKPT so that
// flash writes (littlefs) really modify the emulated flash array.
// (rp2040js' SSI does not model a SPI flash chip's program/erase commands.)
function patchFlashRom(mcu, stats) {
  const rom = mcu.bootrom;
  const rd16 = (a) => (rom[a >>> 2] >>> ((a & 2) * 8)) & 0xffff;
  const wr16 = (a, v) => {
    const sh = (a & 2) * 8;
    rom[a >>> 2] = ((rom[a >>> 2] & ~(0xffff << sh)) | (v << sh)) >>> 0;
  };
  const lookup = (code) => {
    const c = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
    for (let p = rd16(0x14); rd16(p); p += 4) if (rd16(p) === c) return rd16(p + 2);
    throw new Error('bootrom function not found: ' + code);
  };
  const RE = lookup('RE') & ~1, RP = lookup('RP') & ~1;
  wr16(RE, 0xbe00 | 0xe1);
  wr16(RP, 0xbe00 | 0xe2);
  const core = mcu.core;
  // The CPU is stuck in the ROM routine while the flash chip is busy: advance the
  // emulated clock by the modelled time (not counted as core cycles).
  const stall = (ns) => { if (stats.flashTiming) { mcu.clock.tick(ns); stats.flashNs += ns; } };
  mcu.onBreak = (code) => {
    const r = core.registers;
    const ret = () => { core.PC = r[14] & ~1; };
    if (code === 0xe1 && core.PC - 2 === RE) {
      const addr = r[0] >>> 0, count = r[1] >>> 0;
      if (process.env.RP2EMU_DEBUG) console.error('erase', addr.toString(16), count, 'at', mcu.clock.nanos / 1e6);
      mcu.flash.fill(0xff, addr, addr + count);
      stats.eraseBytes += count;
      stall(Math.ceil(count / 4096) * FLASH_ERASE_NS_PER_4K);
      ret();
      if (stats.onFlashOp) stats.onFlashOp();
    } else if (code === 0xe2 && core.PC - 2 === RP) {
      const addr = r[0] >>> 0, src = r[1] >>> 0, count = r[2] >>> 0;
      for (let i = 0; i < count; i++) mcu.flash[addr + i] &= mcu.readUint8(src + i);
      stats.progBytes += count;
      stall(Math.ceil(count / 256) * FLASH_PROG_NS_PER_256);
      ret();
      if (stats.onFlashOp) stats.onFlashOp();
    } else {
      stats.fatal = `BKPT #${code} at 0x${(core.PC - 2).toString(16)} (firmware panic/breakpoint)`;
    }
  };
}

const RAN = 0, RX = 1, IDLE = 2;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const yieldLoop = () => new Promise((r) => setImmediate(r));

// ---------------------------------------------------------------- board
class Board {
  constructor(opts) {
    this.opts = opts;
    this.stats = { eraseBytes: 0, progBytes: 0, flashNs: 0, fatal: null, flashTiming: !opts.noFlashTiming,
      resets: 0, flashOps: 0 };
    this.bridge = opts.bridgeObj || null;
    this.cutAfter = 0; this.cutPending = false;
    this.bootrom = loadBootrom(process.env.RP2EMU_BOOTROM || path.join(HERE, 'bootrom-B1.bin'));
    this.rx = '';          // latin1 string of bytes received from the board
    this.rxFlag = false;   // set when bytes arrive / USB connects; makes step() return so the host can react
    this.tap = null;       // optional (Buffer) => void, gets every byte from the board
    this.onReset = null;   // optional () => void, called after a hard reset (machine.reset())
    this.txq = [];         // bytes waiting to be sent to the board
    this.nanosBase = 0; this.cyclesBase = 0;
    this.powerOn(null);
  }

  // (Re)create the chip. flash: previous flash contents (after a watchdog reset) or null.
  powerOn(flash) {
    if (this.sim) { this.nanosBase += this.clock.nanos; this.cyclesBase += this.mcu.core.cycles; }
    this.sim = new Simulator();
    this.mcu = this.sim.rp2040;
    this.clock = this.sim.clock;
    this.mcu.logger = new ConsoleLogger(LogLevel.Error);
    this.mcu.loadBootrom(this.bootrom); // resets flash to 0xff
    if (flash) {
      this.mcu.flash.set(flash);
    } else {
      loadImage(this.mcu, this.opts.fw);
      if (this.opts.fsIn) {
        const img = fs.readFileSync(this.opts.fsIn);
        this.mcu.flash.set(img.subarray(0, FLASH_SIZE - FS_BASE), FS_BASE);
      }
    }
    patchFlashRom(this.mcu, this.stats);
    this.resetPending = false;
    // rp2040js 1.4.1 re-arms the watchdog's alarm 0 ns ahead once its counter has run
    // out, so the clock would fire it forever: stop it; the chip is re-created anyway.
    const wd = this.mcu.peripherals[0x40058];
    wd.onWatchdogTrigger = () => { this.resetPending = true; wd.alarm.enable = false; wd.timer.enable = false; };
    this.pendingReads = new Map();
    this.connected = false;

    const cdc = (this.cdc = new USBCDC(this.mcu.usbCtrl));
    const usb = this.mcu.usbCtrl;
    cdc.onDeviceConnected = () => { this.connected = true; this.rxFlag = true; };
    cdc.onSerialData = (buf) => {
      const b = Buffer.from(buf);
      if (this.opts.traceUsb) console.error(`[usb ${(this.nanos / 1e6).toFixed(3)}ms board->host]`, JSON.stringify(b.toString('latin1')));
      this.rx += b.toString('latin1');
      this.rxFlag = true;
      if (this.bridge) this.bridge.tell(`u ${this.nanos}`); // before the host can read it
      if (this.tap) this.tap(b);
    };
    // Real-USB-like OUT handling: NAK (keep the transfer pending) while the host has
    // nothing to send, instead of completing zero-length packets every 10 us (which
    // would interrupt the CPU ~100000 times per emulated second and skew timings).
    if (process.env.RP2EMU_DEBUG) {
      const t = () => (this.nanos / 1e6).toFixed(3);
      const ow = usb.onEndpointWrite, orr = usb.onResetReceived, oe = usb.onUSBEnabled;
      usb.onEndpointWrite = (ep, buf) => { console.error(t(), 'EPwrite', ep, buf.length, 'PM', this.mcu.core.PM); ow(ep, buf); };
      usb.onResetReceived = () => { console.error(t(), 'resetReceived'); orr(); };
      usb.onUSBEnabled = () => { console.error(t(), 'usbEnabled'); oe(); };
    }
    usb.onEndpointRead = (ep, size) => {
      if (process.env.RP2EMU_DEBUG) console.error((this.nanos / 1e6).toFixed(3), 'EPread', ep, size);
      this.pendingReads.set(ep, size); // kept even before the CDC OUT endpoint is known
      this.pump();
    };
    this.mcu.core.PC = 0x10000000; // like rp2040js' demo: start at boot2 in flash
    if (this.bridge) this.bridge.attach(this, flash && !this.cutDone ? 'reset' : 'power');
    this.cutDone = false;
  }

  hardReset() {
    if (process.env.RP2EMU_DEBUG) console.error("[rp2emu] hard reset at", this.nanos);
    this.stats.resets++;
    const flash = Uint8Array.from(this.mcu.flash);
    this.powerOn(flash);
    if (this.onReset) this.onReset();
  }

  // The power went off right after a flash operation: the flash image goes to
  // --flash-file, the bridge is told and answers when the power comes back (it may
  // have changed the file); the chip then boots from it. Host bytes sent meanwhile are lost.
  powerCut() {
    this.cutPending = false;
    fs.writeFileSync(this.opts.flashFile, this.mcu.flash);
    this.bridge.call(`x ${this.nanos} ${this.stats.flashOps}`);
    const flash = new Uint8Array(fs.readFileSync(this.opts.flashFile));
    this.txq = [];
    this.cutDone = true;
    this.stats.resets++;
    this.powerOn(flash);
  }

  send(data) {
    const b = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    if (this.opts.traceUsb) console.error(`[usb ${(this.nanos / 1e6).toFixed(3)}ms host->board]`, JSON.stringify(Buffer.from(b).toString('latin1')));
    for (const x of b) this.txq.push(x);
    this.pump();
  }

  pump() {
    const ep = this.cdc.outEndpoint, size = this.pendingReads.get(ep);
    if (size === undefined || this.txq.length === 0) return;
    this.pendingReads.delete(ep);
    const chunk = Uint8Array.from(this.txq.splice(0, Math.min(size, this.txq.length)));
    this.mcu.usbCtrl.endpointReadDone(ep, chunk);
  }

  get nanos() { return this.nanosBase + this.clock.nanos; }
  get cycles() { return this.cyclesBase + this.mcu.core.cycles; }

  // Execute up to n instructions. Returns RAN (n done), RX (bytes arrived from the
  // board: the host may want to react at this emulated instant) or IDLE (the core
  // sleeps and its next wake-up lies beyond maxNanos, or nothing is scheduled; the
  // clock has been advanced to maxNanos if that is finite).
  step(n, maxNanos = Infinity) {
    const core = this.mcu.core, clock = this.clock;
    const cycleNs = 1e9 / (this.mcu.clkSys || 125e6); // follows machine.freq() changes
    const maxLocal = maxNanos - this.nanosBase;
    this.rxFlag = false;
    for (let i = 0; i < n; i++) {
      if (core.waiting) {
        const d = clock.nextAlarm ? clock.nanosToNextAlarm : Infinity;
        if (clock.nanos + d > maxLocal) {
          if (maxLocal > clock.nanos && maxLocal < Infinity) clock.tick(maxLocal - clock.nanos);
          return IDLE;
        }
        clock.tick(d);
      } else {
        clock.tick(core.executeInstruction() * cycleNs);
      }
      if (this.rxFlag) return RX;
      if (this.resetPending) { this.hardReset(); return RX; }
      if (this.cutPending) { this.powerCut(); return RX; }
      if (this.stats.fatal) throw new Error(this.stats.fatal);
    }
    return RAN;
  }

  // Run until pred() is true. Limits in emulated seconds / wall seconds.
  async runUntil(pred, { emuS = Infinity, wallS = Infinity, what = 'condition' } = {}) {
    const emuEnd = this.nanos + emuS * 1e9, wallEnd = Date.now() + wallS * 1000;
    let lastYield = Date.now(), stuckNs = 0;
    while (!pred()) {
      const st = this.step(20000, emuEnd);
      if (st === IDLE && this.nanos < emuEnd) {
        // Board asleep with nothing scheduled and the host is waiting: let 1 ms pass.
        this.clock.tick(1e6);
        if (!this.clock.nextAlarm && !this.txq.length && (stuckNs += 1e6) > 30e9)
          throw new Error(`board asleep with nothing scheduled for 30 emulated s while waiting for ${what}`);
      } else stuckNs = 0;
      if (pred()) break;
      if (this.nanos >= emuEnd) throw new Error(`timeout (${emuS} emulated s) waiting for ${what}`);
      const now = Date.now();
      if (now > wallEnd) throw new Error(`timeout (${wallS} wall s) waiting for ${what}`);
      if (now - lastYield > 50) { lastYield = now; await yieldLoop(); }
    }
  }

  async expect(str, lim = {}) {
    let idx = -1;
    await this.runUntil(() => (idx = this.rx.indexOf(str)) >= 0, { what: JSON.stringify(str), ...lim });
    const before = this.rx.slice(0, idx);
    this.rx = this.rx.slice(idx + str.length);
    return before;
  }

  // Free-running mode for interactive bridges. While the board sleeps, emulated time
  // never runs ahead of wall time (a board waiting with a timeout must see the host's
  // reply in time); with throttle, busy execution is also held to wall time.
  async runForever(throttle) {
    const t0w = Date.now(), t0e = this.nanos;
    for (;;) {
      const target = t0e + (Date.now() - t0w) * 1e6;
      const r = this.step(20000, target);
      if (r === IDLE || (throttle && this.nanos > target + 5e6)) await sleep(1);
      else await yieldLoop();
    }
  }

  fsImage() { return Buffer.from(this.mcu.flash.subarray(FS_BASE, FLASH_SIZE)); }
}


// ---------------------------------------------------------------- the chips' bridge
// Transport only: bus events go to the Python bridge (sim/mjsim/boardemu/bridge.py), which holds the
// chip models and answers; the runner times the bus (a byte completes after its bit time at
// the bus's clock), drives the input pins when the bridge says, and batches: an SPI frame
// goes over as one event when its NSS rises (MISO bytes and the BUSY pin to raise on the
// first byte were given beforehand by the bridge), I2C writes ride with the next event that
// needs an answer, reads come from bytes the bridge read ahead.
const LED_T1H_NS = 625;     // WS2812: a high pulse longer than this is a 1 bit (T0H 400, T1H 800 ns)
const LED_LATCH_NS = 50e3;  // low this long: the chain latches what it got
const HEARTBEAT_NS = 10e6;  // wake the bridge at least this often
const hex = (a) => (a.length ? Buffer.from(a).toString('hex') : '-');

class Bridge {
  constructor(fdOut, fdIn) {
    this.out = fdOut; this.inp = fdIn;
    this.buf = Buffer.alloc(1 << 16); this.pending = '';
    this.pinAlarms = new Map();
    this.frames = new Map();  // NSS gpio -> { busy, low, fall, mosi, miso, fill }
    this.events = 0;
    this.waitNs = 0n;  // wall time spent waiting for answers
    if (process.env.BOARDEMU_STATS) {
      const t0 = Date.now();
      setInterval(() => console.error(`[boardemu] ${this.events} events, ${Number(this.waitNs / 1000000n)} ms of ${Date.now() - t0} ms waiting for the bridge`), 5000);
    }
  }

  // One event out, its answer in (the emulated CPU waits). Returns the answer's value.
  call(line) {
    this.events++;
    const t0 = process.hrtime.bigint();
    try { return this.exchange(line); } finally { this.waitNs += process.hrtime.bigint() - t0; }
  }

  // An event that needs no answer (the bridge takes it in order).
  tell(line) { fs.writeSync(this.out, '.' + line + '\n'); }

  exchange(line) {
    fs.writeSync(this.out, line + '\n');
    for (;;) {
      const i = this.pending.indexOf('\n');
      if (i >= 0) {
        const ans = this.pending.slice(0, i);
        this.pending = this.pending.slice(i + 1);
        return this.apply(ans);
      }
      let n;
      try { n = fs.readSync(this.inp, this.buf, 0, this.buf.length, null); } catch (e) {
        if (e.code === 'EAGAIN') continue;
        throw e;
      }
      if (n === 0) { console.error('[boardemu] the bridge closed its pipe'); process.exit(0); }
      this.pending += this.buf.toString('latin1', 0, n);
    }
  }

  apply(ans) {
    const tok = ans.split(' ');
    for (let k = 1; k < tok.length; k++) {
      const d = tok[k], c = d[0], arg = d.slice(1);
      if (c === 'B') { const [g, v, at] = arg.split(',').map(Number); this.drive(g, !!v, at); }
      else if (c === 'W') this.wake.schedule(Math.max(0, Number(arg) - this.b.nanos));
      else if (c === 'C') this.b.cutAfter = Number(arg) ? this.b.stats.flashOps + Number(arg) : 0;
      else if (c === 'U') this.b.send(Buffer.from(arg, 'hex'));
      else if (c === 'L') for (const g of arg.split(',').map(Number)) this.listen(g);
      else if (c === 'F') { const [g, busy] = arg.split(',').map(Number); this.framePin(g, busy); }
      else if (c === 'M') {
        const [g, fill, h] = arg.split(',');
        const f = this.frames.get(Number(g));
        f.fill = Number(fill); f.miso = h === '-' ? [] : [...Buffer.from(h, 'hex')];
      }
      else if (c === 'A') this.ahead = arg === '-' ? [] : [...Buffer.from(arg, 'hex')];
      else if (c === 'D') this.ledPin(Number(arg));
      else if (c === 'X') { const wd = this.mcu.peripherals[0x40058]; wd.enable = false; wd.timer.enable = false; wd.alarm.enable = false; }
      else if (c === 'Q') process.exit(0);
    }
    return tok[0];
  }

  // An input pin at a level from emulated time `at` (now if past); a newer order for
  // the same pin replaces one still waiting.
  drive(g, level, at) {
    const old = this.pinAlarms.get(g);
    if (old) old.cancel();
    const pin = this.mcu.gpio[g];
    const delta = at - this.b.nanos;
    if (delta <= 0) { pin.setInputValue(level); return; }
    const a = this.b.clock.createAlarm(() => { this.pinAlarms.delete(g); pin.setInputValue(level); });
    this.pinAlarms.set(g, a);
    a.schedule(delta);
  }

  listen(g) {
    this.mcu.gpio[g].addListener((state) => this.call(`p ${this.b.nanos} ${g} ${state}`));
  }

  // An SPI chip select: the frame between its fall and rise goes over at the rise.
  framePin(g, busy) {
    if (this.frames.has(g)) { this.frames.get(g).busy = busy; return; }
    const f = { busy, low: false, fall: 0, mosi: [], miso: [], fill: 0xff };
    this.frames.set(g, f);
    this.mcu.gpio[g].addListener((state) => {
      const low = state === 0;  // driven low; anything else leaves the chip deselected
      if (low === f.low) return;
      f.low = low;
      if (low) { f.fall = this.b.nanos; f.mosi = []; return; }
      this.call(`f ${this.b.nanos} ${g} ${f.fall} ${hex(f.mosi)}`);
    });
  }

  spiByte(v) {
    let sel = null, n = 0;
    for (const f of this.frames.values()) if (f.low) { sel = f; n++; }
    if (n !== 1) return Number(this.call(`s ${this.b.nanos} ${v}`));
    if (sel.mosi.length === 0 && sel.busy >= 0) this.drive(sel.busy, true, 0);
    const k = sel.mosi.length;
    sel.mosi.push(v);
    return k < sel.miso.length ? sel.miso[k] : sel.fill;
  }

  // WS2812 data line: pulse widths to bits, bits to bytes, a latch gap ends a frame.
  ledPin(g) {
    let rise = 0, bits = 0, n = 0; let bytes = [];
    const latch = this.b.clock.createAlarm(() => {
      if (bytes.length) this.call(`l ${this.b.nanos} ${Buffer.from(bytes).toString('hex')}`);
      bytes = []; bits = 0; n = 0;
    });
    this.mcu.gpio[g].addListener((state) => {
      const now = this.b.clock.nanos;
      if (state === 1) { rise = now; latch.cancel(); return; }
      if (state !== 0) return;
      bits = (bits << 1) | (now - rise > LED_T1H_NS ? 1 : 0);
      if (++n === 8) { bytes.push(bits); bits = 0; n = 0; }
      latch.schedule(LED_LATCH_NS);
    });
  }

  // Wire the buses of a freshly (re)created chip; kind: 'power' or 'reset'.
  attach(b, kind) {
    this.b = b; this.mcu = b.mcu;
    const mcu = b.mcu, clock = b.clock;
    this.pinAlarms = new Map();
    this.frames = new Map();
    // rp2040js leaves `scheduled` set on an alarm that fired: clear it, so a wake the
    // answer did not ask for falls back to the heartbeat
    this.wake = clock.createAlarm(() => {
      this.wake.scheduled = false;
      this.call(`t ${b.nanos}`);
      if (!this.wake.scheduled) this.wake.schedule(HEARTBEAT_NS);
    });
    const spi = mcu.spi[0];
    let miso = 0;
    const spiDone = clock.createAlarm(() => spi.completeTransmit(miso));
    spi.onTransmit = (v) => {
      miso = this.spiByte(v);
      spiDone.schedule(8e9 / (spi.clockFrequency || 1e6));
    };
    const i2c = mcu.i2c[1];
    const bitNs = () => ((i2c.sclHighPeriod + i2c.sclLowPeriod) || 1250) * 1e9 / (mcu.clkSys || 125e6);
    let done = null, wr = [], nread = 0, acked = false;
    this.ahead = [];
    const i2cDone = clock.createAlarm(() => done());
    const later = (bits, f) => { done = f; i2cDone.schedule(bits * bitNs()); };
    i2c.onStart = () => later(1, () => i2c.completeStart());
    i2c.onConnect = (addr, mode) => {
      acked = this.call(`C ${b.nanos} ${addr} ${mode} ${hex(wr)} ${nread}`) === '1';
      wr = []; nread = 0;
      later(9, () => i2c.completeConnect(acked));
    };
    i2c.onWriteByte = (v) => { wr.push(v); later(9, () => i2c.completeWrite(acked)); };
    i2c.onReadByte = () => {
      const v = nread < this.ahead.length ? this.ahead[nread] : Number(this.call(`R ${b.nanos} ${nread}`));
      nread++;
      later(9, () => i2c.completeRead(v));
    };
    i2c.onStop = () => {
      this.tell(`P ${b.nanos} ${hex(wr)} ${nread}`);
      wr = []; nread = 0;
      later(1, () => i2c.completeStop());
    };
    b.stats.onFlashOp = () => {
      b.stats.flashOps++;
      if (b.cutAfter && b.stats.flashOps >= b.cutAfter) { b.cutAfter = 0; b.cutPending = true; }
    };
    this.call(`r ${b.nanos} ${kind}`);
    if (!this.wake.scheduled) this.wake.schedule(HEARTBEAT_NS);
  }
}

// ---------------------------------------------------------------- raw REPL
class RawRepl {
  constructor(board, lim) { this.b = board; this.lim = lim; }
  async enter() {
    const b = this.b;
    b.send('\r\x03\x03');
    await b.runUntil(() => false, { emuS: 0.05 }).catch(() => {});
    b.rx = '';
    b.send('\r\x01');
    await b.expect('raw REPL; CTRL-B to exit\r\n>', this.lim);
  }
  // Returns { out, err, emuNs, cycles, wallMs } measured from the board's "OK"
  // (source fully received) to the end-of-output marker.
  async exec(src) {
    const b = this.b;
    const data = Buffer.from(src, 'utf8');
    for (let i = 0; i < data.length; i += 256) b.send(data.subarray(i, i + 256));
    b.send('\x04');
    await b.expect('OK', this.lim);
    const n0 = b.nanos, c0 = b.cycles, w0 = Date.now(), f0 = b.stats.flashNs;
    const out = await b.expect('\x04', this.lim);
    const n1 = b.nanos, c1 = b.cycles, w1 = Date.now(), f1 = b.stats.flashNs;
    const err = await b.expect('\x04', this.lim);
    await b.expect('>', this.lim);
    const dec = (s) => Buffer.from(s, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
    return { out: dec(out), err: dec(err), emuNs: n1 - n0, cycles: c1 - c0, wallMs: w1 - w0,
      flashModelNs: f1 - f0 };
  }
  async execOk(src) {
    const r = await this.exec(src);
    if (r.err) throw new Error('board error: ' + r.err);
    return r;
  }
  async put(local, remote) {
    const data = fs.readFileSync(local);
    await this.execOk(`import binascii\nf=open(${JSON.stringify(remote)},'wb')\nw=f.write`);
    for (let i = 0; i < data.length; i += 3072) {
      await this.execOk(`w(binascii.a2b_base64('${data.subarray(i, i + 3072).toString('base64')}'))`);
    }
    await this.execOk('f.close()\ndel f,w');
    return data.length;
  }
  async mem(collect) {
    const r = await this.execOk(`import gc\n${collect ? 'gc.collect()\n' : ''}print(gc.mem_free(),gc.mem_alloc())`);
    const [free, alloc] = r.out.trim().split(/\s+/).map(Number);
    return { free, alloc };
  }
}

// ---------------------------------------------------------------- main
async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.bridge) o.bridgeObj = new Bridge(o.bridge[0], o.bridge[1]);
  const log = (...a) => { if (!o.quiet) console.error('[rp2emu]', ...a); };
  const w0 = Date.now();
  const b = new Board(o);
  const lim = { emuS: o.timeout ?? 300, wallS: o.wallTimeout ?? Infinity };

  const interactive = o.pty || o.tcp || o.repl;
  if (interactive) return interactiveMain(o, b, log);

  // --- boot until USB enumerated and the friendly REPL prompt is seen
  await b.runUntil(() => b.connected, { emuS: 10, what: "USB enumeration" });
  b.send('\r\n');
  await b.expect('>>> ', { emuS: 10 });
  const result = { boot: { emuS: b.nanos / 1e9, wallS: (Date.now() - w0) / 1000 }, runs: [], puts: [] };
  log(`booted: emulated ${result.boot.emuS.toFixed(3)} s, wall ${result.boot.wallS.toFixed(2)} s`);

  const repl = new RawRepl(b, lim);
  await repl.enter();
  const banner = await repl.execOk('import sys\nprint(sys.implementation._machine, sys.version)');
  result.firmware = banner.out.trim();
  log('firmware:', result.firmware);

  let failed = false;
  for (const step of o.steps) {
    if (step.kind === 'put') {
      const spec = step.arg, i = spec.lastIndexOf(':');
      const [local, remote] = i > 0 ? [spec.slice(0, i), spec.slice(i + 1)] : [spec, path.basename(spec)];
      const e0 = b.nanos, t0 = Date.now();
      const n = await repl.put(local, remote);
      result.puts.push({ local, remote, bytes: n, emuS: (b.nanos - e0) / 1e9, wallS: (Date.now() - t0) / 1000 });
      log(`put ${local} -> :${remote} (${n} bytes)`);
      continue;
    }
    const job = step.kind === 'run' ? { name: step.arg, src: fs.readFileSync(step.arg, 'utf8') }
      : { name: '<exec>', src: step.arg };
    const memBefore = o.mem ? await repl.mem(true) : undefined;
    const r = await repl.exec(job.src);
    process.stdout.write(r.out);
    if (r.err) { process.stderr.write(r.err); failed = true; }
    const rec = { name: job.name, stdout: r.out, stderr: r.err, emuS: r.emuNs / 1e9, cycles: r.cycles,
      wallS: r.wallMs / 1000, wallPerEmuS: r.wallMs / 1000 / (r.emuNs / 1e9), flashModelS: r.flashModelNs / 1e9 };
    if (o.mem) {
      rec.memBefore = memBefore;
      rec.memAfter = await repl.mem(false);
      rec.memAfterCollect = await repl.mem(true);
    }
    result.runs.push(rec);
    log(`run ${job.name}: emulated ${rec.emuS.toFixed(6)} s (${rec.cycles} core cycles), wall ${rec.wallS.toFixed(2)} s` +
      ` -> ${rec.wallPerEmuS.toFixed(1)} wall-s per emulated s` + (o.mem ? `; mem ${JSON.stringify([rec.memBefore, rec.memAfter, rec.memAfterCollect])}` : ''));
  }
  result.flash = { eraseBytes: b.stats.eraseBytes, progBytes: b.stats.progBytes };
  result.total = { emuS: b.nanos / 1e9, wallS: (Date.now() - w0) / 1000 };
  if (o.fsOut) { fs.writeFileSync(o.fsOut, b.fsImage()); log('wrote filesystem image', o.fsOut); }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 1));
  process.exit(failed ? 1 : 0);
}

async function interactiveMain(o, b, log) {
  let sinks = [];
  b.tap = (buf) => { for (const s of sinks) s(buf); };
  if (o.console) {
    const fd = fs.openSync(o.console, 'a');
    sinks.push((buf) => fs.writeSync(fd, buf));
  }
  if (o.repl) {
    sinks.push((buf) => process.stdout.write(buf));
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    process.stdin.on('data', (d) => { if (d[0] === 24) process.exit(0); b.send(d); });
  }
  if (o.tcp) {
    net.createServer((sock) => {
      log('tcp client connected');
      const sink = (buf) => sock.write(buf);
      sinks.push(sink);
      sock.on('data', (d) => b.send(d));
      sock.on('close', () => { sinks = sinks.filter((s) => s !== sink); });
      sock.on('error', () => {});
    }).listen(o.tcp, '127.0.0.1', () => log(`serving the board's USB CDC on tcp 127.0.0.1:${o.tcp}`));
  }
  if (o.pty) {
    const child = spawn('python3', [path.join(HERE, 'pty_bridge.py'), o.ptyLink || ''], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.on('data', (d) => b.send(d));
    sinks.push((buf) => child.stdin.write(buf));
    b.onReset = () => log('board hard-reset (watchdog); USB re-enumerates, the pty stays');
    child.on('exit', () => process.exit(0));
  }
  const onExit = () => {
    if (o.fsOut) fs.writeFileSync(o.fsOut, b.fsImage());
    process.exit(0);
  };
  process.on('SIGINT', onExit); process.on('SIGTERM', onExit);
  await b.runForever(!o.noThrottle);
}

main().catch((e) => { console.error('[rp2emu] error:', e.message); process.exit(3); });
