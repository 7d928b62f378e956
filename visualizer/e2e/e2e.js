// End-to-end test of the visualizer in a real headless browser (Debian's chromium, driven by
// playwright-core). Run it through run.sh, which builds the binaries it needs:
//
//   TESTER=target/release/tester SOLVER=target/release/queenattack node visualizer/e2e/e2e.js
//
// It writes pages with `tester vis`, plays them, compares every number it reads on the page
// with `tester score`, saves screenshots and exports to target/vis-e2e/, and ends with the line
// `E2E: N passed, M failed`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { chromium } = require('playwright-core');
const J = require('../judge.js');
const { randomMoves } = require('./random-moves.js');
const { prefix, boardInput, labelBoxes, panelInView, inside, boxText, throughMove } = require('./measure.js');
const { differential, officialCases } = require('./judge-agree.js');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.resolve(process.env.E2E_OUT || path.join(ROOT, 'target', 'vis-e2e'));
const TESTER = path.resolve(ROOT, process.env.TESTER || 'target/release/tester');
const SOLVER = process.env.SOLVER ? path.resolve(ROOT, process.env.SOLVER) : null;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** Time limit given to the solver (seconds): short, any real run of the solver will do. */
const SOLVER_SECS = process.env.E2E_SOLVER_SECONDS || '4';

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail !== undefined ? '  (' + detail + ')' : ''}`);
  return ok;
}
function log(s) { console.log('     ' + s); }

// ------------------------------------------------------------------ tester helpers

function tester(args, opts = {}) {
  const r = spawnSync(TESTER, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.error) throw r.error;
  return r;
}
/** `tester score --json` on a seed's case; returns {score, errors, moves, penalty, error}. */
function score(seed, outFile) {
  const r = tester(['score', '--seed', String(seed), outFile, '--json']);
  // Exit 1 is an invalid answer (score -1, the object still printed); 2 is bad usage.
  if (r.status !== 0 && r.status !== 1) throw new Error(`tester score failed (${r.status}): ${r.stderr}`);
  const t = JSON.parse(r.stdout);
  if ((r.status === 1) !== (t.score === -1)) throw new Error(`tester score exit ${r.status} for score ${t.score}`);
  return t;
}
function writeOut(name, text) {
  const p = path.join(OUT, name);
  fs.writeFileSync(p, text);
  return p;
}
/** The page of an answer; `invalid`: the judge rejects it, so tester vis writes the page and
 * exits 1, as tester score does (any other exit, or 1 for a valid answer, fails the run). */
function visPage(seed, outFile, pageName, invalid = false) {
  const page = path.join(OUT, pageName);
  // Run in OUT with short names: the page title shows them.
  const r = tester(['vis', '--seed', String(seed), path.relative(OUT, outFile), '-o', pageName], { cwd: OUT });
  if (r.status !== (invalid ? 1 : 0)) throw new Error(`tester vis failed (${r.status}): ${r.stderr}`);
  if (!fs.existsSync(page)) throw new Error(`tester vis exited ${r.status} without writing ${pageName}`);
  return page;
}
const url = (file, hash) => 'file://' + file + (hash ? '#' + hash : '');
const fmt3 = (x) => Number(x).toFixed(3);

// ------------------------------------------------------------------ page helpers

async function panel(page) {
  return page.evaluate(() => ({
    move: Number(document.getElementById('v-move').textContent),
    total: document.getElementById('v-total').textContent,
    errors: Number(document.getElementById('v-errors').textContent),
    penalty: document.getElementById('v-penalty').textContent,
    score: document.getElementById('score').textContent,
    official: (document.getElementById('official-score') || {}).textContent,
    fatal: (document.getElementById('fatal-message') || {}).textContent || null,
    judgeCheck: (document.getElementById('judge-check') || {}).className || null,
    seed: document.getElementById('v-seed').textContent,
    n: document.getElementById('v-n').textContent,
    c: document.getElementById('v-c').textContent,
    p: document.getElementById('v-p').title,
    hash: location.hash,
  }));
}

/** Resizes the window and waits until the page has laid the board out for the new size. */
async function resize(page, width, height) {
  await page.setViewportSize({ width, height });
  await page.waitForFunction((want) => window.qaVis.laidOutFor() === want, `${width}x${height}`);
}

async function open(ctx, file, hash, errors) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url(file, hash));
  await page.waitForFunction(() => window.qaVis && window.qaVis.game() !== null);
  return page;
}

/** Plays from the start at the fastest speed until the last frame. */
async function playToEnd(page, applied) {
  await page.keyboard.press('Home');
  await page.selectOption('#speed', '5000');
  await page.click('#btn-play');
  await page.waitForFunction((n) => window.qaVis.frame() === n, applied, { timeout: 60000 + applied * 2 });
}

async function download(page, button, saveAs) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  await dl.saveAs(saveAs);
  return fs.readFileSync(saveAs);
}

// ------------------------------------------------------------------ scenarios

/** Keys, buttons, play/pause and the slider on a page at its last move; each frame against the judge. */
async function stepChecks(page, seed, outText, judged, label) {
  const n = judged.moves;
  let p;
  const back1 = score(seed, writeOut(`${label}-back1.out`, prefix(outText, n - 1)));
  const back2 = score(seed, writeOut(`${label}-back2.out`, prefix(outText, n - 2)));
  await page.keyboard.press('ArrowLeft');
  p = await panel(page);
  check(`${label}: ← steps back one move`, p.move === n - 1 && p.score === fmt3(back1.score) && p.hash === `#move=${n - 1}`,
    `move ${p.move}, score ${p.score} vs ${fmt3(back1.score)}, ${p.hash}`);
  await page.click('#btn-back');
  p = await panel(page);
  check(`${label}: back button steps back`, p.move === n - 2 && p.score === fmt3(back2.score), `move ${p.move}, ${p.score} vs ${fmt3(back2.score)}`);
  await page.click('#btn-fwd');
  await page.keyboard.press('ArrowRight');
  p = await panel(page);
  check(`${label}: forward button and → return to the end`, p.move === n && p.score === fmt3(judged.score), `move ${p.move}, ${p.score}`);
  await page.keyboard.press('ArrowRight');
  p = await panel(page);
  check(`${label}: → at the end stays at the end`, p.move === n, `move ${p.move}`);

  // Space plays and pauses; Home goes to the start.
  await page.keyboard.press('Home');
  await page.selectOption('#speed', '10');
  await page.focus('#board');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => window.qaVis.frame() >= 2);
  await page.keyboard.press(' ');
  const t1 = await page.evaluate(() => window.qaVis.frame());
  await page.waitForTimeout(400);
  const t2 = await page.evaluate(() => window.qaVis.frame());
  check(`${label}: space plays and pauses`, t1 >= 2 && t1 === t2, `paused at ${t1}, then ${t2}`);

  // Slider: a middle move, checked against the judge on that prefix.
  const mid = Math.floor(n / 2);
  await page.evaluate((m) => { const s = document.getElementById('slider'); s.value = m; s.dispatchEvent(new Event('input')); }, mid);
  p = await panel(page);
  const midJudged = score(seed, writeOut(`${label}-mid.out`, prefix(outText, mid)));
  check(`${label}: slider jumps to move ${mid}`, p.move === mid && p.score === fmt3(midJudged.score), `${p.score} vs ${fmt3(midJudged.score)}`);

}

/** Redraw timing, a hovered queen's path, and the SVG and PNG exports of a middle move; closes the page. */
async function hoverAndExports(page, label, n) {
  const mid = Math.floor(n / 2);
  const p = await panel(page);
  // Redraw time of random jumps (reported, not asserted: the machine may be loaded).
  const times = await page.evaluate((n0) => {
    const out = [];
    for (let i = 0; i < 200; i++) {
      const t = Math.floor(Math.random() * (n0 + 1));
      const a = performance.now();
      window.qaVis.setFrame(t);
      out.push(performance.now() - a);
    }
    return out.sort((a, b) => a - b);
  }, n);
  log(`${label}: 200 random slider jumps, redraw median ${times[100].toFixed(2)} ms, max ${times[199].toFixed(2)} ms`);

  // A hovered queen with all paths on, for the screenshot.
  await page.evaluate((m) => window.qaVis.setFrame(m), mid);
  await page.check('#opt-lines');
  const box = await page.locator('#board').boundingBox();
  const target = await page.evaluate(() => {
    const g = window.qaVis.game(), s = g.stateAt(window.qaVis.frame());
    // The queen with the longest path so far (most attackers on a tie): a telling picture.
    let best = -1, bestLen = -1, bestKey = -1;
    for (let i = 0; i < g.N * g.N; i++) {
      if (s.ids[i] < 0) continue;
      const len = g.pathOf(s.ids[i], window.qaVis.frame()).length;
      const key = len * 100 + s.lines.attackers(s.grid[i], Math.floor(i / g.N), i % g.N);
      if (key > bestKey) { bestKey = key; bestLen = len; best = i; }
    }
    return { r: Math.floor(best / g.N), c: best % g.N, len: bestLen };
  });
  const geo = await page.evaluate(() => { const c = document.getElementById('board'); return { w: c.clientWidth }; });
  const N = Number(p.n);
  // The board is drawn after a margin for coordinates; the hover hit test uses the same cell size.
  const cell = await page.evaluate(() => window.qaVis.cell());
  const margin = await page.evaluate(() => window.qaVis.margin());
  await page.mouse.move(box.x + margin + (target.c + 0.5) * cell, box.y + margin + (target.r + 0.5) * cell);
  const hover = await page.locator('#v-hover').textContent();
  check(`${label}: hovering a queen describes its path`, hover.includes(`${target.r} ${target.c}`) && hover.includes(`${target.len} move`), hover);
  await page.screenshot({ path: path.join(OUT, `${label}-mid-hover.png`) });
  await page.check('#opt-paths');
  await page.screenshot({ path: path.join(OUT, `${label}-mid-all-paths.png`) });
  log(`board ${N}x${N}, canvas ${geo.w}px`);

  // Exports of the current frame.
  const svg = (await download(page, '#btn-svg', path.join(OUT, `${label}-mid.svg`))).toString('utf8');
  const rects = (svg.match(/<rect /g) || []).length;
  check(`${label}: SVG export is an SVG of the board`, svg.startsWith('<svg') && svg.trimEnd().endsWith('</svg>') && rects >= N * N, `${svg.length} bytes, ${rects} rects`);
  const png = await download(page, '#btn-png', path.join(OUT, `${label}-mid.png`));
  check(`${label}: PNG export is a PNG`, png.subarray(1, 4).toString() === 'PNG' && png.length > 5000, `${png.length} bytes`);
  await page.close();

}

/** `#move=end` and `#move=K` links open the move they name. */
async function linkChecks(ctx, file, seed, outText, judged, label, errs) {
  const n = judged.moves;
  let p;
  const endPage = await open(ctx, file, 'move=end', errs);
  p = await panel(endPage);
  check(`${label}: #move=end opens the last move`, p.move === n && p.score === fmt3(judged.score), `move ${p.move}, ${p.score}`);
  await endPage.close();
  const k = Math.min(123, n);
  const kJudged = score(seed, writeOut(`${label}-k.out`, prefix(outText, k)));
  const kPage = await open(ctx, file, `move=${k}`, errs);
  p = await panel(kPage);
  check(`${label}: #move=${k} opens move ${k}`, p.move === k && p.score === fmt3(kJudged.score), `move ${p.move}, ${p.score} vs ${fmt3(kJudged.score)}`);
  await kPage.close();
}

/** A valid output: play, step, jump, links, exports. */
async function validCase(ctx, seed, outText, label) {
  const errs = [];
  const outFile = writeOut(`${label}.out`, outText);
  const judged = score(seed, outFile);
  const n = judged.moves;
  check(`${label}: tester accepts the output`, judged.error === null, `score ${judged.score}, ${n} moves`);
  const file = visPage(seed, outFile, `${label}.html`);
  const page = await open(ctx, file, '', errs);

  let p = await panel(page);
  const start = score(seed, writeOut(`${label}-0.out`, '0\n'));
  check(`${label}: opens at move 0 with the start score`, p.move === 0 && p.score === fmt3(start.score), `${p.score} vs ${fmt3(start.score)}`);
  const params = fs.readFileSync(path.join(OUT, `${seed}.in`), 'utf8').split('\n');
  check(`${label}: panel shows seed, N, C, P`, p.seed === String(seed) && p.total === String(n) && p.n === params[0] && p.c === params[1] && p.p === (seed === 2 ? '0.25' : p.p), `seed ${p.seed}, N ${p.n}, C ${p.c}, P ${p.p}, total ${p.total}`);
  await page.screenshot({ path: path.join(OUT, `${label}-start.png`) });

  await playToEnd(page, n);
  p = await panel(page);
  check(`${label}: played to the end`, p.move === n, `move ${p.move} / ${p.total}`);
  check(`${label}: the page agrees with the verdict tester vis embedded`, p.judgeCheck === 'agree', p.judgeCheck);
  check(`${label}: final score equals tester score`, p.score === fmt3(judged.score), `page ${p.score}, tester ${fmt3(judged.score)}`);
  check(`${label}: errors and penalty equal tester's`, p.errors === judged.errors && p.penalty === fmt3(judged.penalty),
    `errors ${p.errors}/${judged.errors}, penalty ${p.penalty}/${fmt3(judged.penalty)}`);
  check(`${label}: the URL links the last move`, p.hash === '#move=end', p.hash);
  await page.screenshot({ path: path.join(OUT, `${label}-end.png`) });

  await stepChecks(page, seed, outText, judged, label);
  await hoverAndExports(page, label, judged.moves);
  await linkChecks(ctx, file, seed, outText, judged, label, errs);
  check(`${label}: no script errors`, errs.length === 0, errs.join('; '));
}

/** An invalid output: the page stops at the failing move and shows the judge's message. */
async function invalidCase(ctx, seed, outText, label, expectStart, expectMove) {
  const errs = [];
  const outFile = writeOut(`${label}.out`, outText);
  const judged = score(seed, outFile);
  check(`${label}: tester rejects the output`, judged.error !== null && judged.score === -1 && judged.error.startsWith(expectStart), judged.error);
  const file = visPage(seed, outFile, `${label}.html`, true);
  const page = await open(ctx, file, '', errs);
  let p = await panel(page);
  check(`${label}: the judge's message is shown`, p.fatal === judged.error, `page: ${p.fatal}`);
  check(`${label}: the official score is -1`, p.official === '-1.0', p.official);
  check(`${label}: the page agrees with the verdict tester vis embedded`, p.judgeCheck === 'agree', p.judgeCheck);
  if (expectMove !== null) {
    await playToEnd(page, expectMove);
    p = await panel(page);
    const before = score(seed, writeOut(`${label}-before.out`, prefix(outText, expectMove)));
    check(`${label}: plays up to the illegal move ${expectMove + 1}`, p.move === expectMove && judged.fatal_move === expectMove && p.score === fmt3(before.score),
      `stops at ${p.move}, tester failed at move index ${judged.fatal_move}, score ${p.score} vs ${fmt3(before.score)}`);
    await page.screenshot({ path: path.join(OUT, `${label}-end.png`) });
  }
  await page.close();
  check(`${label}: no script errors`, errs.length === 0, errs.join('; '));
}

/**
 * Hovering a queen with a long path draws in milliseconds (issue 25: N = 60, one queen walking
 * 200 000 moves froze the page about 1.3 s per hover, one segment and one dot per move).
 */
async function longPathCase(ctx) {
  const N = 60, moves = 200000;
  // One colour: the walker at (0, 0), the other 59 queens on the last row.
  const grid = new Array(N * N).fill(0);
  grid[0] = 1;
  for (let c = 1; c < N; c++) grid[(N - 1) * N + c] = 1;
  const input = `${N}\n1\n${grid.join('\n')}\n`;
  let s = 7, r = 0, c = 0;
  const rnd = (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
  const dirs = [[0, 1], [1, 0], [1, 1], [1, -1], [0, -1], [-1, 0], [-1, -1], [-1, 1]];
  const lines = [];
  while (lines.length < moves) {
    const [dr, dc] = dirs[rnd(8)];
    let len = 0; // rows 0..N-2 are empty but for the walker
    while (r + dr * (len + 1) >= 0 && r + dr * (len + 1) < N - 1 && c + dc * (len + 1) >= 0 && c + dc * (len + 1) < N) len++;
    if (len === 0) continue;
    const d = 1 + rnd(len);
    lines.push(`${r} ${c} ${r + dr * d} ${c + dc * d}`);
    r += dr * d; c += dc * d;
  }
  const errs = [];
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errs.push(e.message));
  await page.goto(url(path.join(ROOT, 'visualizer', 'index.html')));
  const ms = await page.evaluate(([inp, out, rr, cc, N]) => {
    window.qaVis.load(inp, out, { title: 'long path' });
    window.qaVis.setFrame(window.qaVis.game().applied);
    const canvas = document.getElementById('board'), box = canvas.getBoundingClientRect();
    const cell = window.qaVis.cell(), m = window.qaVis.margin();
    const at = (x, y) => canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + m + (x + 0.5) * cell, clientY: box.top + m + (y + 0.5) * cell }));
    const times = [];
    for (let i = 0; i < 5; i++) {
      at(0, N - 1); // bottom left: always empty (the walker stays above the last row)
      const a = performance.now();
      at(cc, rr);
      times.push(performance.now() - a);
    }
    return { times: times.sort((x, y) => x - y), text: document.getElementById('v-hover').textContent };
  }, [input, `${moves}\n${lines.join('\n')}\n`, r, c, N]);
  log(`long path (N = ${N}, ${moves} moves of one queen): hover draws in ${ms.times.map((t) => t.toFixed(1)).join(', ')} ms`);
  check('long path: the hover describes all its moves', ms.text.includes(`${moves} moves`), ms.text);
  // Before: about 1300 ms. 150 ms leaves room for a loaded machine.
  check('long path: hovering the queen draws in milliseconds (median < 150 ms)', ms.times[2] < 150, `${ms.times[2].toFixed(1)} ms`);
  check('long path: no script errors', errs.length === 0, errs.join('; '));
  await page.close();
}

/** The plain page (no data): the file pickers, paste boxes and a drop of two files. */
async function plainPageCase(ctx, seed, inputText, outText) {
  const errs = [];
  const inFile = writeOut(`${seed}.in`, inputText), outFile = writeOut(`plain-${seed}.out`, outText);
  const want = fmt3(score(seed, outFile).score);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errs.push(e.message));
  await page.goto(url(path.join(ROOT, 'visualizer', 'index.html')));
  await page.screenshot({ path: path.join(OUT, 'empty-page.png') });
  const N = J.parseInput(inputText).N;
  const loaded = () => page.waitForFunction((n) => window.qaVis.game() !== null && window.qaVis.game().N === n, N);
  const atEnd = async (how) => {
    await loaded();
    await page.keyboard.press('End');
    const p = await panel(page);
    check(`plain page: ${how} shows the judge's final score`, p.score === want && p.official === want && p.seed === String(seed), `${p.score} vs ${want}, seed ${p.seed}`);
    await page.evaluate(() => window.qaVis.load('1 1 0', null, {})); // a 1x1 board until the next load
  };
  await page.setInputFiles('#pick-input', inFile);
  await page.setInputFiles('#pick-output', outFile);
  await atEnd('Input… and Output… pickers');

  await page.click('#toggle-paste');
  await page.fill('#paste-input', inputText);
  await page.fill('#paste-output', outText);
  await page.click('#paste-load');
  await loaded();
  await page.keyboard.press('End');
  let p = await panel(page);
  check('plain page: pasted texts show the judge\'s final score', p.score === want, `${p.score} vs ${want}`);
  await page.click('#toggle-paste');
  await page.evaluate(() => window.qaVis.load('1 1 0', null, {}));

  // Drag and drop of the two files (a synthetic drop: chromium cannot drag from the desktop).
  await page.evaluate(([a, b, name]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([b], 'plain.out'));
    dt.items.add(new File([a], name));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [inputText, outText, `${seed}.in`]);
  await atEnd('a drop of S.in and S.out');
  await page.close();
  check('plain page: no script errors', errs.length === 0, errs.join('; '));
}

/**
 * Layout: coordinate labels thin out instead of running together (N = 80), the panel stays in
 * view in an 800×600 window, and the empty page shows no score.
 */
async function layoutCase(ctx) {
  const errs = [];
  // No case loaded: no score, not even 0.000.
  const empty = await ctx.newPage();
  empty.on('pageerror', (e) => errs.push(e.message));
  await empty.setViewportSize({ width: 800, height: 600 });
  await empty.goto(url(path.join(ROOT, 'visualizer', 'index.html')));
  const blank = await empty.evaluate(() => ['score', 'v-errors', 'v-penalty', 'v-move'].map((id) => document.getElementById(id).textContent.trim()));
  check('empty page: no score before a case is loaded', blank.every((t) => Number.isNaN(Number(t))), blank.join(' | '));
  await empty.screenshot({ path: path.join(OUT, 'empty-800x600.png') });
  // A load that fails leaves no number behind either.
  await empty.evaluate(() => window.qaVis.load('4\n1\n1\n', null, {}));
  const failed = await empty.evaluate(() => document.getElementById('score').textContent.trim());
  check('empty page: a failed load shows no score', Number.isNaN(Number(failed)), failed);
  await empty.close();

  // N = 80, C = 4, 8 % walls, 400 random legal moves, through `tester vis --input`.
  const inFile = writeOut('n80.in', boardInput(80, 4, 0.08, 80));
  const outFile = writeOut('n80.out', randomMoves(fs.readFileSync(inFile, 'utf8'), 400, 80));
  const r = tester(['vis', '--input', path.relative(OUT, inFile), path.relative(OUT, outFile), '-o', 'n80.html'], { cwd: OUT });
  check('tester vis writes an N = 80 page', r.status === 0, (r.stderr || '').trim());
  for (const [w, h] of [[1280, 860], [800, 600]]) {
    const page = await open(ctx, path.join(OUT, 'n80.html'), 'move=end', errs);
    await resize(page, w, h);
    const lb = await labelBoxes(page);
    const cell = await page.evaluate(() => window.qaVis.cell());
    check(`N = 80 at ${w}×${h}: coordinate labels do not overlap`, lb.overlaps.length === 0,
      `cell ${cell}px; columns ${lb.cols.join(' ')}; rows ${lb.rows.join(' ')}${lb.overlaps.length ? '; overlapping: ' + lb.overlaps.slice(0, 5).join(', ') : ''}`);
    check(`N = 80 at ${w}×${h}: labels thinned, not dropped`, lb.cols[0] === '0' && lb.rows[0] === '0' && lb.cols.length >= 8 && lb.cols.length < 80 && lb.rows.length >= 8 && lb.rows.length < 80,
      `${lb.cols.length} column and ${lb.rows.length} row labels`);
    const v = await panelInView(page);
    check(`N = 80 at ${w}×${h}: panel and score inside the window`, inside(v.panel, v.w, v.h) && inside(v.score, v.w, v.h), `panel ${boxText(v.panel)}, score ${boxText(v.score)} in ${v.w}×${v.h}`);
    check(`N = 80 at ${w}×${h}: the board fits between header and controls`, v.board.top >= v.header.bottom && v.board.bottom <= v.footer.top && inside(v.board, v.w, v.h),
      `board ${boxText(v.board)}, header ends at ${Math.round(v.header.bottom)}, controls start at ${Math.round(v.footer.top)}`);
    await page.screenshot({ path: path.join(OUT, `n80-${w}x${h}.png`) });
    await page.close();
  }

  // Seed 2 (N = 30) at 800×600: panel in view; at 1280×860 every label has room.
  const seed2 = path.join(OUT, 'seed2-54000.html');
  const small = await open(ctx, seed2, 'move=123', errs);
  await resize(small, 800, 600);
  const v = await panelInView(small);
  check('seed 2 at 800×600: panel and score inside the window', inside(v.panel, v.w, v.h) && inside(v.score, v.w, v.h), `panel ${boxText(v.panel)}, score ${boxText(v.score)}`);
  const lb800 = await labelBoxes(small);
  check('seed 2 at 800×600: coordinate labels do not overlap', lb800.overlaps.length === 0, lb800.overlaps.slice(0, 5).join(', ') || `${lb800.cols.length} column labels`);
  await small.screenshot({ path: path.join(OUT, 'seed2-800x600.png') });
  await resize(small, 1280, 860);
  const lb = await labelBoxes(small);
  check('seed 2 at 1280×860: all 30 labels per axis, no overlap', lb.cols.length === 30 && lb.rows.length === 30 && lb.overlaps.length === 0,
    `${lb.cols.length} column, ${lb.rows.length} row labels; ${lb.overlaps.length} overlaps`);
  await small.close();
  check('layout: no script errors', errs.length === 0, errs.join('; '));
}

/**
 * What a page of a run's seed must show at the end: `tester score` of the saved output; for a
 * seed whose status is ok that is also the score in results.json (checked here).
 */
function expectedOfRun(dir, row) {
  const judged = score(row.seed, path.join(dir, `${row.seed}.out`));
  if (row.status === 'ok' && Math.abs(judged.score - row.score) > 1e-9) {
    check(`results.json score of seed ${row.seed} equals tester score of its output`, false, `${row.score} vs ${judged.score}`);
  }
  return judged.error ? '-1.0' : fmt3(judged.score);
}

/** A page written by `tester run --vis`: it ends at the run's score. */
async function runPageCase(ctx, file, resultsFile, seed) {
  const errs = [];
  const rows = JSON.parse(fs.readFileSync(resultsFile, 'utf8')).results;
  const row = rows.find((x) => x.seed === seed);
  const page = await open(ctx, file, 'move=end', errs);
  const p = await panel(page);
  const want = expectedOfRun(path.dirname(resultsFile), row);
  check(`tester run --vis page of seed ${seed} ends at the run's score`, p.official === want && p.seed === String(seed) && p.p === String(row.P) && p.judgeCheck === 'agree',
    `page ${p.official}, P ${p.p}, results.json ${row.score}, P ${row.P}`);
  await page.screenshot({ path: path.join(OUT, `run-${seed}.png`) });
  await page.close();
  check(`tester run --vis page of seed ${seed}: no script errors`, errs.length === 0, errs.join('; '));
}

/** The plain page (no data) loads a folder written by `tester run --out DIR`. */
async function folderCase(ctx, dir) {
  const errs = [];
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errs.push(e.message));
  await page.goto(url(path.join(ROOT, 'visualizer', 'index.html')));
  await page.setInputFiles('#pick-folder', dir);
  await page.waitForFunction(() => window.qaVis.game() !== null);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
  const rows = Array.isArray(results) ? results : results.results || results.seeds;
  const options = await page.$$eval('#seed-select option', (os) => os.map((o) => o.value));
  check('folder: every seed of the run is listed', options.join(',') === rows.map((r) => String(r.seed)).sort((a, b) => a - b).join(','), options.join(','));
  for (const row of rows) {
    await page.selectOption('#seed-select', String(row.seed));
    await page.waitForFunction((s) => document.getElementById('v-seed').textContent === String(s), row.seed);
    await page.keyboard.press('End');
    const p = await panel(page);
    const want = expectedOfRun(dir, row);
    check(`folder: seed ${row.seed} ends at the run's score`, p.official === want && (want === '-1.0' || p.score === want) && p.p === String(row.P ?? row.p),
      `page ${p.official} (P ${p.p}), results.json ${row.score} (P ${row.P ?? row.p})`);
  }
  await page.screenshot({ path: path.join(OUT, 'folder.png') });
  await page.close();
  check('folder: no script errors', errs.length === 0, errs.join('; '));
}

// ------------------------------------------------------------------ main

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  if (!fs.existsSync(TESTER)) throw new Error(`no tester binary at ${TESTER} (run visualizer/e2e/run.sh)`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}`);
  const input2 = tester(['gen', '--seed', '2']).stdout;
  fs.writeFileSync(path.join(OUT, '2.in'), input2);

  // A real solver output for seed 2 (N = 30, C = 6).
  let solverOut = null;
  if (SOLVER && fs.existsSync(SOLVER)) {
    const r = spawnSync(SOLVER, ['--time-limit', SOLVER_SECS], { input: input2, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 120000 });
    if (r.status === 0) solverOut = r.stdout;
    check('solver answers seed 2', solverOut !== null, `exit ${r.status}, ${solverOut ? J.readLines(solverOut)[0] + ' moves' : r.stderr.slice(0, 200)}`);
  } else {
    log(`no solver binary (${SOLVER}): the seed-2 solver case is skipped`);
  }

  officialCases(ROOT, check);
  differential([1, 2, 3, 4, 5], 60, { check, tester, score, writeOut });

  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    log(`browser: chromium ${ctx.browser() ? ctx.browser().version() : ''}`.trim());
    if (solverOut !== null) await validCase(ctx, 2, solverOut, 'seed2-solver');
    // The largest case the rules allow: 2·30³ = 54 000 legal moves on seed 2.
    const longOut = randomMoves(input2, 54000, 2);
    await validCase(ctx, 2, longOut, 'seed2-54000');

    // Hand-made invalid outputs.
    const base = solverOut !== null ? solverOut : longOut;
    const k = Math.min(10, Number(J.readLines(base)[0]));
    const through = throughMove(input2, base, k);
    await invalidCase(ctx, 2, `${k + 1}\n${J.readLines(base).slice(1, 1 + k).join('\n')}\n${through}\n`,
      'seed2-invalid-through', 'Cannot move through other pieces or walls', k);
    await invalidCase(ctx, 2, `6\n${J.readLines(base).slice(1, 6).join('\n')}\n1 2 3\n`,
      'seed2-invalid-three-numbers', 'Each move must contain exactly 4 numbers separated by a space: 1 2 3', 5);
    await invalidCase(ctx, 2, `20\n${J.readLines(base).slice(1, 6).join('\n')}\n`,
      'seed2-invalid-truncated', 'Cannot parse your output', null);

    await plainPageCase(ctx, 2, input2, prefix(base, Math.min(2000, Number(J.readLines(base)[0]))));
    await layoutCase(ctx);
    await longPathCase(ctx);

    // A run folder (the real solver if there is one, else random legal moves), opened in the
    // plain page through the folder picker; and one of the pages `tester run --vis` wrote.
    const dir = path.join(OUT, 'run');
    fs.rmSync(dir, { recursive: true, force: true });
    // The solver gets SOLVER_SECS; the kill limit is far above, so a loaded machine cannot
    // turn the run into timeouts.
    const exec = solverOut !== null
      ? ['--exec', `${JSON.stringify(SOLVER)} --time-limit ${SOLVER_SECS}`, '--time-limit', String(10 * Number(SOLVER_SECS))]
      : ['--exec', `node ${JSON.stringify(path.join(__dirname, 'random-moves.js'))} - 3000 1`];
    const r = tester(['run', '--seeds', '1-3', '--out', dir, '--vis', '--jobs', '2', '--quiet', ...exec]);
    check('tester run --vis writes a page per seed', r.status === 0 && [1, 2, 3].every((s) => fs.existsSync(path.join(dir, `${s}.html`))),
      `exit ${r.status}, ${exec.join(' ')} ${r.stderr.trim()}`);
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.html'))) {
      fs.renameSync(path.join(dir, f), path.join(OUT, 'run-' + f)); // keep the folder a plain run folder
    }
    await runPageCase(ctx, path.join(OUT, 'run-3.html'), path.join(dir, 'results.json'), 3);
    await folderCase(ctx, dir);
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

main()
  .catch((e) => { check('e2e run', false, e.stack || String(e)); })
  .finally(() => {
    console.log(`E2E: ${passed} passed, ${failed} failed (screenshots and pages in ${path.relative(process.cwd(), OUT) || OUT})`);
    process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
  });
