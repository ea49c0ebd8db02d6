// The project's own mahjong tiles, drawn as SVG by code (no copied art).
// A face is 0..26: suit = face / 9 (0 万 characters, 1 筒 dots, 2 条 bamboo),
// rank = face % 9 + 1. tileDocument(face) is one tile's SVG; tileSVG(face, opts)
// the markup of a tile on the page; face -1 is a tile's back.
"use strict";

const TILE_W = 60, TILE_H = 80;
const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUIT_ZH = ["万", "筒", "条"];
const BLUE = "#1b4f9c", GREEN = "#18794e", RED = "#c62828", INK = "#1d2433";

// Dot (筒) positions per rank, in the 60 x 80 face (x, y, radius, colour).
const DOTS = {
  1: [[30, 40, 19, "c"]],
  2: [[30, 22, 12, "g"], [30, 58, 12, "b"]],
  3: [[15, 17, 10, "b"], [30, 40, 10, "r"], [45, 63, 10, "g"]],
  4: [[17, 22, 11, "b"], [43, 22, 11, "g"], [17, 58, 11, "g"], [43, 58, 11, "b"]],
  5: [[16, 19, 10, "b"], [44, 19, 10, "g"], [30, 40, 10, "r"], [16, 61, 10, "g"], [44, 61, 10, "b"]],
  6: [[18, 15, 9, "g"], [42, 15, 9, "g"], [18, 40, 9, "r"], [42, 40, 9, "r"], [18, 65, 9, "r"], [42, 65, 9, "r"]],
  7: [[13, 13, 7.5, "g"], [30, 20, 7.5, "g"], [47, 27, 7.5, "g"], [18, 48, 8, "r"], [42, 48, 8, "r"],
      [18, 67, 8, "r"], [42, 67, 8, "r"]],
  8: [[18, 11, 8, "b"], [42, 11, 8, "b"], [18, 30.5, 8, "b"], [42, 30.5, 8, "b"], [18, 50, 8, "b"],
      [42, 50, 8, "b"], [18, 69.5, 8, "b"], [42, 69.5, 8, "b"]],
  9: [[13, 16, 7.5, "b"], [30, 16, 7.5, "b"], [47, 16, 7.5, "b"], [13, 40, 7.5, "r"], [30, 40, 7.5, "r"],
      [47, 40, 7.5, "r"], [13, 64, 7.5, "g"], [30, 64, 7.5, "g"], [47, 64, 7.5, "g"]],
};
// Bamboo (条) sticks per rank: (x, y centre, colour); each stick 7 x 20.
const STICKS = {
  2: [[30, 22, "g"], [30, 58, "g"]],
  3: [[30, 22, "g"], [18, 58, "g"], [42, 58, "g"]],
  4: [[18, 22, "g"], [42, 22, "b"], [18, 58, "b"], [42, 58, "g"]],
  5: [[15, 22, "g"], [45, 22, "b"], [30, 40, "r"], [15, 58, "b"], [45, 58, "g"]],
  6: [[15, 22, "g"], [30, 22, "g"], [45, 22, "g"], [15, 58, "b"], [30, 58, "b"], [45, 58, "b"]],
  7: [[30, 14, "r"], [15, 40, "g"], [30, 40, "g"], [45, 40, "g"], [15, 66, "g"], [30, 66, "g"], [45, 66, "g"]],
  8: [[12, 22, "g"], [24, 22, "g"], [36, 22, "g"], [48, 22, "g"], [12, 58, "b"], [24, 58, "b"], [36, 58, "b"],
      [48, 58, "b"]],
  9: [[15, 14, "r"], [30, 14, "b"], [45, 14, "g"], [15, 40, "r"], [30, 40, "b"], [45, 40, "g"],
      [15, 66, "r"], [30, 66, "b"], [45, 66, "g"]],
};
const COLOURS = {b: BLUE, g: GREEN, r: RED};

function dot(x, y, r, c) {
  if (c === "c") {  // the 1 筒: a large rosette
    return `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${GREEN}" stroke-width="3"/>` +
      `<circle cx="${x}" cy="${y}" r="${r - 5}" fill="${RED}"/>` +
      `<circle cx="${x}" cy="${y}" r="${r - 10}" fill="#fbf7ea"/>` +
      `<circle cx="${x}" cy="${y}" r="${r - 14}" fill="${BLUE}"/>`;
  }
  const col = COLOURS[c];
  return `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${col}" stroke-width="2.2"/>` +
    `<circle cx="${x}" cy="${y}" r="${r * 0.45}" fill="${col}"/>`;
}

function stick(x, y, c, h = 20, w = 7) {
  const col = COLOURS[c];
  const top = y - h / 2;
  return `<rect x="${x - w / 2}" y="${top}" width="${w}" height="${h}" rx="3" fill="${col}"/>` +
    `<rect x="${x - w / 2 - 1}" y="${y - 1.5}" width="${w + 2}" height="3" rx="1.5" fill="${col}"/>` +
    `<line x1="${x}" y1="${top + 3}" x2="${x}" y2="${top + h - 3}" stroke="#fbf7ea" stroke-width="1.2"/>`;
}

function faceArt(face) {
  const suit = Math.floor(face / 9), rank = face % 9 + 1;
  if (suit === 0) {  // 万: the numeral above, 萬 below, as on real tiles
    return `<text x="30" y="35" text-anchor="middle" font-size="27" font-weight="700" fill="${INK}"` +
      ` font-family="'Noto Serif CJK SC','Noto Sans CJK SC',serif">${NUMERALS[rank - 1]}</text>` +
      `<text x="30" y="70" text-anchor="middle" font-size="29" font-weight="700" fill="${RED}"` +
      ` font-family="'Noto Serif CJK SC','Noto Sans CJK SC',serif">萬</text>`;
  }
  if (suit === 1) return DOTS[rank].map(d => dot(...d)).join("");
  if (rank === 1) {  // the 1 条: one tall stick crowned in red, standing apart
    return stick(30, 44, "g", 52, 12) +
      `<circle cx="30" cy="13" r="7" fill="${RED}"/><circle cx="30" cy="13" r="3" fill="#fbf7ea"/>`;
  }
  return STICKS[rank].map(s => stick(...s)).join("");
}

// The whole SVG document of one face (or the back, face -1).
function tileDocument(face) {
  const open = `<svg xmlns="http://www.w3.org/2000/svg" width="60" height="84" viewBox="0 0 60 84">`;
  if (face < 0) {
    return open + `<rect x="1" y="5" width="58" height="78" rx="7" fill="#0f5132"/>` +
      `<rect x="1" y="1" width="58" height="78" rx="7" fill="#1f8a5b" stroke="#0f5132" stroke-width="1.5"/>` +
      `<rect x="8" y="8" width="44" height="64" rx="5" fill="none" stroke="#7fd1a8" stroke-width="1"/></svg>`;
  }
  return open + `<rect x="1" y="5" width="58" height="78" rx="7" fill="#1f8a5b"/>` +
    `<rect x="1" y="1" width="58" height="78" rx="7" fill="#fbf7ea" stroke="#b6ab8c" stroke-width="1.5"/>` +
    faceArt(face) + `</svg>`;
}

// Each face is drawn once per page, into an image URL: a tile on the page is
// then one <img>, not a tree of SVG shapes (a table shows ~150 tiles and is
// redrawn on every action; ten pages at once must keep up). The URL becomes a
// bitmap of the face as soon as the page has made one: Chromium paints an SVG
// image as its shapes each time the region is painted, which cost a third of
// a page's CPU an update (docs/live.md); until then, and where no canvas
// can, the SVG itself.
const TILE_URLS = {};
function tileURL(face) {
  let u = TILE_URLS[face];
  if (!u) {
    u = URL.createObjectURL(new Blob([tileDocument(face)], {type: "image/svg+xml"}));
    TILE_URLS[face] = u;
    toBitmap(face, u);
  }
  return u;
}

const BITMAP_SCALE = 2;  // px of the bitmap per px of the art: sharp on a 2x screen
function toBitmap(face, svgURL) {
  const img = new Image();
  img.src = svgURL;
  img.decode().then(() => {
    const c = document.createElement("canvas");
    c.width = TILE_W * BITMAP_SCALE;
    c.height = 84 * BITMAP_SCALE;
    c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
    c.toBlob(b => { if (b) TILE_URLS[face] = URL.createObjectURL(b); }, "image/png");
  }).catch(() => {});  // the SVG stays
}

// One tile's markup: width in CSS px, opts.cls extra classes.
function tileSVG(face, opts = {}) {
  const w = opts.width || 36;
  const h = Math.round(w * 84 / TILE_W);
  const cls = "tile" + (opts.cls ? " " + opts.cls : "");
  const data = face >= 0 ? face : "back";
  const alt = face >= 0 ? `${face % 9 + 1}${SUIT_ZH[Math.floor(face / 9)]}` : "背";
  return `<img class="${cls}" data-face="${data}" src="${tileURL(face)}" width="${w}" height="${h}" alt="${alt}">`;
}

function faceName(face) {
  return face >= 0 ? `${face % 9 + 1}${SUIT_ZH[Math.floor(face / 9)]}` : "?";
}
