// Pure helpers of the browser test (e2e.js): inputs and outputs it writes, and what it
// measures on a page (coordinate labels, the panel's place in the window).
'use strict';
const path = require('path');
const J = require(path.join(__dirname, '..', 'judge.js'));

/** The first k moves of an output, as an output. */
function prefix(outText, k) {
  const lines = J.readLines(outText);
  return `${k}\n${lines.slice(1, 1 + k).join('\n')}\n`;
}
/**
 * An input of any size (tester gen keeps N in the contest's 8..30): C colours of N queens and
 * about P·N² walls on random free cells, one token per line like the official inputs.
 */
function boardInput(N, C, P, seed) {
  let s = seed >>> 0 || 1;
  const rnd = (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
  const grid = new Array(N * N).fill(0);
  const put = (v, count) => {
    for (let placed = 0; placed < count;) {
      const i = rnd(N * N);
      if (grid[i] === 0) { grid[i] = v; placed++; }
    }
  };
  for (let k = 1; k <= C; k++) put(k, N);
  put(-1, Math.floor(P * N * N));
  return `${N}\n${C}\n${grid.join('\n')}\n`;
}

/**
 * The coordinate labels the board draws, with boxes measured here (not by the page's code) in
 * the labels' own font, and the pairs of labels of one axis whose boxes overlap.
 */
async function labelBoxes(page) {
  return page.evaluate(() => {
    const rect = document.getElementById('board').getBoundingClientRect();
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const boxes = window.qaVis.coordLabels().map((l) => {
      ctx.font = l.font;
      const m = ctx.measureText(l.text);
      return {
        axis: l.axis, text: l.text,
        left: rect.left + l.x - m.actualBoundingBoxLeft, right: rect.left + l.x + m.actualBoundingBoxRight,
        top: rect.top + l.y - m.actualBoundingBoxAscent, bottom: rect.top + l.y + m.actualBoundingBoxDescent,
      };
    });
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
          overlaps.push(`${a.axis} ${a.text} / ${b.axis} ${b.text}`);
        }
      }
    }
    const of = (axis) => boxes.filter((b) => b.axis === axis).map((b) => b.text);
    return { cols: of('col'), rows: of('row'), overlaps };
  });
}

/** The panel's box and the score row's box against the window (all in CSS px). */
async function panelInView(page) {
  return page.evaluate(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    return {
      panel: box(document.querySelector('.panel')), score: box(document.getElementById('score')),
      board: box(document.getElementById('board')), header: box(document.querySelector('header')),
      footer: box(document.querySelector('footer')), w: window.innerWidth, h: window.innerHeight,
    };
  });
}
const inside = (b, w, h) => b.left >= 0 && b.top >= 0 && b.right <= w && b.bottom <= h;
const boxText = (b) => `${Math.round(b.left)},${Math.round(b.top)}–${Math.round(b.right)},${Math.round(b.bottom)}`;

/**
 * A move that passes through a piece or wall after the first k moves of out: some queen moving
 * along a line to an empty cell beyond a non-empty one.
 */
function throughMove(inputText, out, k) {
  const input = J.parseInput(inputText);
  const r = J.replay(input, J.parseOutput(prefix(out, k), input.N));
  const { grid } = r.stateAt(k), N = input.N;
  for (let i = 0; i < N * N; i++) {
    if (grid[i] <= 0) continue;
    const r1 = Math.floor(i / N), c1 = i % N;
    for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [0, -1], [-1, 0]]) {
      let blocked = false;
      for (let d = 1; ; d++) {
        const r2 = r1 + dr * d, c2 = c1 + dc * d;
        if (r2 < 0 || r2 >= N || c2 < 0 || c2 >= N) break;
        if (grid[r2 * N + c2] !== 0) blocked = true;
        else if (blocked) return `${r1} ${c1} ${r2} ${c2}`;
      }
    }
  }
  throw new Error('no blocked move found');
}

module.exports = { prefix, boardInput, labelBoxes, panelInView, inside, boxText, throughMove };
