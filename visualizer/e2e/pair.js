// Browser check of the page of two answers side by side (run by run.sh after e2e.js):
//
//   TESTER=target/release/tester SOLVER=target/release/queenattack node visualizer/e2e/pair.js
//
// Writes pages with `tester vis --seed S A.out B.out -o P.html` and `tester compare --vis`, then
// in headless chromium: both scores and their difference equal `tester score`'s to 3 decimals,
// stepping moves both boards (by move, by fraction, each alone), the differing final cells are
// highlighted (as many as judge.js counts from the two output files), hover and export work per
// board, a rejected, an empty and a foreign answer get a clear message, and a seed link of a
// compare report opens that seed. Saves target/vis-e2e/pair.png (the screenshot of
// docs/visualizer.md) and target/vis-e2e/pair-54000.html (for bench.js). Ends with the line
// `pair: N passed, M failed`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { chromium } = require('playwright-core');
const J = require('../judge.js');
const { randomMoves } = require('./random-moves.js');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.resolve(process.env.E2E_OUT || path.join(ROOT, 'target', 'vis-e2e'));
const TESTER = path.resolve(ROOT, process.env.TESTER || 'target/release/tester');
const SOLVER = process.env.SOLVER ? path.resolve(ROOT, process.env.SOLVER) : null;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** The case of the two answers: seed 2 (N = 30, C = 6). */
const SEED = 2;

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail !== undefined ? '  (' + detail + ')' : ''}`);
  return ok;
}

function tester(args, opts = {}) {
  const r = spawnSync(TESTER, args, { encoding: 'utf8', maxBuffer: 1 << 28, cwd: OUT, ...opts });
  if (r.error) throw r.error;
  return r;
}
function score(seed, file) {
  const r = tester(['score', '--seed', String(seed), file, '--json']);
  return JSON.parse(r.stdout);
}
const fmt3 = (x) => Number(x).toFixed(3);
/** The page's signed difference (`+1.234`, `−1.234`) as a number. */
const signedNumber = (s) => Number(String(s).replace('−', '-').replace('±', ''));
/** The first k moves of an output, as an output. */
function prefix(outText, k) {
  const lines = J.readLines(outText);
  return `${k}\n${lines.slice(1, 1 + k).join('\n')}\n`;
}
/** Cells whose final content differs between two outputs on one input (judge.js replays). */
function differingCells(inputText, outA, outB) {
  const input = J.parseInput(inputText);
  const fin = (out) => { const g = J.replay(input, J.parseOutput(out, input.N)); return g.stateAt(g.applied).grid; };
  const a = fin(outA), b = fin(outB);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}
function pairPage(name, a, b, seed = SEED) {
  const r = tester(['vis', '--seed', String(seed), a, b, '-o', name]);
  return { r, file: path.join(OUT, name) };
}

async function open(ctx, file, errors, hash) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto('file://' + file + (hash || ''));
  return page;
}
const sides = (page) => page.evaluate(() => {
  const t = (id) => (document.getElementById(id) || {}).textContent;
  return {
    A: { move: Number(t('move-A')), now: t('now-A'), score: t('score-A') },
    B: { move: Number(t('move-B')), now: t('now-B'), score: t('score-B') },
    diff: t('score-diff'), fatal: document.getElementById('fatal').hidden ? null : t('fatal'),
    rejectedB: t('rejected-B') || null, pos: window.qaPair.pos(),
  };
});

async function numbersAndStepping(ctx, files, judged, texts) {
  const errs = [];
  const page = await open(ctx, files.page, errs);
  let s = await sides(page);
  check('pair: both scores equal tester score to 3 decimals', s.A.score === fmt3(judged.A.score) && s.B.score === fmt3(judged.B.score),
    `page ${s.A.score} ${s.B.score}, tester ${fmt3(judged.A.score)} ${fmt3(judged.B.score)}`);
  const want = judged.B.score - judged.A.score;
  check('pair: the difference B − A equals tester\'s to 3 decimals', fmt3(signedNumber(s.diff)) === fmt3(want), `page ${s.diff}, tester ${fmt3(want)}`);
  const errors = await page.evaluate(() => [document.getElementById('errors-A').textContent, document.getElementById('errors-B').textContent, document.getElementById('moves-B').textContent]);
  check('pair: errors and moves of both equal tester\'s', errors[0] === String(judged.A.errors) && errors[1] === String(judged.B.errors) && errors[2] === String(judged.B.moves), errors.join(' '));
  check('pair: opens at move 0 on both boards', s.A.move === 0 && s.B.move === 0, `${s.A.move} ${s.B.move}`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  s = await sides(page);
  const at2 = { A: score(SEED, writeOut('pA2.out', prefix(texts.A, 2))), B: score(SEED, writeOut('pB2.out', prefix(texts.B, 2))) };
  check('pair: → → steps both boards to move 2, each at tester\'s score of its first 2 moves', s.A.move === 2 && s.B.move === 2 && s.A.now === fmt3(at2.A.score) && s.B.now === fmt3(at2.B.score),
    `A ${s.A.move} ${s.A.now}/${fmt3(at2.A.score)}, B ${s.B.move} ${s.B.now}/${fmt3(at2.B.score)}`);
  const nA = judged.A.moves, nB = judged.B.moves, M = Math.max(nA, nB), short = nA < nB ? 'A' : 'B';
  await page.keyboard.press('End');
  s = await sides(page);
  check('pair: End shows both final boards', s.A.move === nA && s.B.move === nB && s.pos === M, `A ${s.A.move}/${nA}, B ${s.B.move}/${nB}`);
  // By move number, the shorter answer waits at its end; by fraction, both are halfway.
  const half = Math.floor(M / 2);
  await page.evaluate((h) => window.qaPair.setPos(h), half);
  s = await sides(page);
  check('pair: by move number, both boards at the same move (the shorter one waits at its end)', s[short].move === Math.min(half, short === 'A' ? nA : nB) && s[short === 'A' ? 'B' : 'A'].move === half,
    `A ${s.A.move}, B ${s.B.move} at ${half}`);
  await page.selectOption('#step-mode', 'fraction');
  await page.evaluate((h) => window.qaPair.setPos(h), half);
  s = await sides(page);
  check('pair: by fraction, each board at the same share of its answer', s.A.move === Math.round(half * nA / M) && s.B.move === Math.round(half * nB / M),
    `A ${s.A.move}/${nA}, B ${s.B.move}/${nB} at ${half}/${M}`);
  await page.selectOption('#step-mode', 'alone');
  await page.click('#board-B');
  const before = await sides(page);
  await page.keyboard.press('ArrowLeft');
  s = await sides(page);
  check('pair: each alone, ← steps only the board clicked last', s.B.move === before.B.move - 1 && s.A.move === before.A.move, `A ${before.A.move}→${s.A.move}, B ${before.B.move}→${s.B.move}`);
  await page.selectOption('#step-mode', 'move');
  await page.keyboard.press('End');

  // The differing final cells: counted by judge.js from the two files, drawn on both boards.
  const cells = differingCells(texts.input, texts.A, texts.B);
  const shown = await page.evaluate(() => ({
    count: Number(document.getElementById('diff-count').textContent),
    marked: [0, 1].map((i) => (window.qaPair.frameSvg(i).match(/stroke="#7b1fa2"/g) || []).length),
  }));
  check('pair: the differing final cells are counted as judge.js counts them from the two outputs', shown.count === cells && cells > 0, `page ${shown.count}, files ${cells}`);
  check('pair: each board outlines exactly those cells', shown.marked.every((m) => m === cells), `${shown.marked.join(', ')} outlines, ${cells} cells`);
  await page.uncheck('#opt-diff');
  const off = await page.evaluate(() => (window.qaPair.frameSvg(0).match(/stroke="#7b1fa2"/g) || []).length);
  check('pair: the "differences" box hides them', off === 0, `${off} outlines`);
  await page.check('#opt-diff');

  // Hover and export per board.
  const target = await page.evaluate(() => {
    const g = window.qaPair.game(1), f = g.stateAt(g.applied), N = g.N, box = document.getElementById('board-B').getBoundingClientRect();
    const cell = window.qaPair.cell(), margin = (box.width - 6 - cell * N);
    for (let i = 0; i < N * N; i++) if (f.ids[i] >= 0) return { x: box.left + margin + (i % N + 0.5) * cell, y: box.top + margin + (Math.floor(i / N) + 0.5) * cell, r: Math.floor(i / N), c: i % N };
    return null;
  });
  await page.mouse.move(target.x, target.y);
  const hover = await page.evaluate(() => [document.getElementById('hover-A').textContent, document.getElementById('hover-B').textContent]);
  check('pair: hovering a queen of B describes it under B only', hover[0] === '' && hover[1].includes(`${target.r} ${target.c}`), hover.join(' | '));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#svg-B')]);
  const svgFile = path.join(OUT, 'pair-B.svg');
  await dl.saveAs(svgFile);
  const svg = fs.readFileSync(svgFile, 'utf8');
  check('pair: B\'s SVG export is B\'s board with its marks', dl.suggestedFilename() === `queenattack-seed${SEED}-B-move${nB}.svg` && svg.startsWith('<svg') && svg.includes('#7b1fa2'), dl.suggestedFilename());
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(OUT, 'pair.png') });
  check('pair: no script errors', errs.length === 0, errs.join(' | '));
  await page.close();
}

function writeOut(name, text) {
  fs.writeFileSync(path.join(OUT, name), text);
  return name;
}

async function badAnswers(ctx, texts) {
  const cases = [
    ['rejected', 'pair-bad.out', '1\n0 0 0 0\n'],
    ['empty', 'pair-empty.out', ''],
  ];
  for (const [what, name, text] of cases) {
    writeOut(name, text);
    const judged = score(SEED, name);
    const { r, file } = pairPage(`pair-${what}.html`, 'pairA.out', name);
    check(`pair, ${what} answer: tester vis says B is rejected`, r.status === 1 && r.stderr.includes('B: invalid output (rejected)'), r.stderr.trim());
    const errs = [];
    const page = await open(ctx, file, errs);
    const s = await sides(page);
    check(`pair, ${what} answer: the page says B is rejected, with the judge's message`, s.rejectedB !== null && s.rejectedB.includes(judged.error) && s.B.score === '-1.000' && s.diff === '—',
      `${s.rejectedB}; score ${s.B.score}, diff ${s.diff}`);
    const visible = await page.evaluate(() => document.getElementById('board-A').getBoundingClientRect().width > 100);
    check(`pair, ${what} answer: A's board is still shown`, visible && s.A.score === fmt3(score(SEED, 'pairA.out').score));
    check(`pair, ${what} answer: no script errors`, errs.length === 0, errs.join(' | '));
    await page.close();
  }
  // An answer of another case: a run folder's SEED.out beside its SEED.in.
  const other = path.join(OUT, 'pair-other-run');
  fs.mkdirSync(other, { recursive: true });
  fs.writeFileSync(path.join(other, '3.in'), tester(['gen', '--seed', '3']).stdout);
  fs.writeFileSync(path.join(other, '3.out'), '0\n');
  const r = pairPage('pair-foreign.html', 'pairA.out', path.join(other, '3.out'));
  check('pair, an answer of another input: tester vis refuses with a clear message', r.r.status === 2 && r.r.stderr.includes('answers another input'), r.r.stderr.trim());
  // A page that carries one answer only (hand-made): a message, not a blank page.
  const html = fs.readFileSync(path.join(OUT, 'pair.html'), 'utf8');
  const one = html.replace(/"answers":\[(\{.*?\}),\{.*?\}\]/s, '"answers":[$1]');
  fs.writeFileSync(path.join(OUT, 'pair-one.html'), one);
  const errs = [];
  const page = await open(ctx, path.join(OUT, 'pair-one.html'), errs);
  const s = await sides(page);
  check('pair, a page with one answer: says so', one !== html && s.fatal !== null && s.fatal.includes('two answers'), s.fatal);
  await page.close();
}

async function compareLinks(ctx) {
  const dirs = [];
  for (const secs of ['0.3', '1']) {
    const dir = path.join(OUT, `pair-run-${secs}s`);
    fs.rmSync(dir, { recursive: true, force: true });
    const r = tester(['run', '--seeds', '1-3', '--time-limit', secs, '--out', dir, '--quiet', '--allow-failures']);
    check(`compare: tester run at ${secs} s`, fs.existsSync(path.join(dir, 'results.json')), `exit ${r.status} ${r.stderr.trim().slice(0, 200)}`);
    dirs.push(dir);
  }
  const report = path.join(OUT, 'pair-report.html');
  const r = tester(['compare', ...dirs, '--html', report, '--vis']);
  if (!check('compare --html --vis writes the report and the pages', r.status === 0 && r.stdout.includes('side-by-side pages: 3'), `exit ${r.status} ${r.stderr.trim()} ${r.stdout.split('\n').filter((l) => l.includes('side-by-side')).join('')}`)) return;
  const errs = [];
  const page = await open(ctx, report, errs);
  const layout = await page.evaluate(() => {
    const y = (sel) => document.querySelector(sel).getBoundingClientRect().top;
    const plots = document.querySelector('.plots').getBoundingClientRect();
    const ticks = [...document.querySelector('figure.plot svg').querySelectorAll('text')].map((t) => t.textContent.trim());
    return { order: [y('#verdict'), y('table#seeds'), y('.plots')], plotsWidth: plots.width, bodyWidth: document.body.clientWidth, ticks };
  });
  check('compare: the verdict, then the seed table, then the plots', layout.order[0] < layout.order[1] && layout.order[1] < layout.order[2], layout.order.join(' < '));
  check('compare: the plots use the full width', layout.plotsWidth >= 0.95 * layout.bodyWidth, `${layout.plotsWidth} of ${layout.bodyWidth} px`);
  const numeric = layout.ticks.filter((t) => /^[0-9.e+-]+$/.test(t));
  check('compare: the log-scale plot has several distinct tick labels', new Set(numeric).size >= 4, numeric.join(' '));
  const link = await page.evaluate(() => { const a = document.querySelector('table#seeds td.seed a'); return a ? { seed: a.textContent, href: a.getAttribute('href') } : null; });
  if (!check('compare: a seed links to its side-by-side page', link !== null, JSON.stringify(link))) return;
  await Promise.all([page.waitForNavigation(), page.click('table#seeds td.seed a')]);
  await page.waitForFunction(() => window.qaPair && window.qaPair.board(0) !== null);
  const seen = await page.evaluate(() => ({ seed: document.getElementById('v-seed').textContent, A: document.getElementById('score-A').textContent, B: document.getElementById('score-B').textContent }));
  const res = dirs.map((d) => JSON.parse(fs.readFileSync(path.join(d, 'results.json'), 'utf8')).results.find((x) => String(x.seed) === link.seed));
  const shown = (row) => (row.status === 'ok' ? fmt3(row.score) : '-1.000');
  check('compare: the link opens that seed, A and B at their runs\' scores', seen.seed === link.seed && seen.A === shown(res[0]) && seen.B === shown(res[1]),
    `seed ${seen.seed} (link ${link.seed}), A ${seen.A}/${shown(res[0])}, B ${seen.B}/${shown(res[1])}`);
  check('compare: no script errors', errs.length === 0, errs.join(' | '));
  await page.close();
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const input = tester(['gen', '--seed', String(SEED)]).stdout;
  // A: the solver's answer (or random moves without a solver); B: other random moves.
  let A = null;
  if (SOLVER) {
    const r = spawnSync(SOLVER, ['--time-limit', '1'], { input, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status === 0 && r.stdout.trim()) A = r.stdout;
  }
  A = A || randomMoves(input, 400, 7);
  // B: the solver at a shorter limit, or random moves (when that gives A's answer again).
  let B = null;
  if (SOLVER) {
    const r = spawnSync(SOLVER, ['--time-limit', '0.2'], { input, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status === 0 && r.stdout.trim() && r.stdout !== A) B = r.stdout;
  }
  const texts = { input, A, B: B || randomMoves(input, 300, 11) };
  writeOut('pairA.out', texts.A);
  writeOut('pairB.out', texts.B);
  const judged = { A: score(SEED, 'pairA.out'), B: score(SEED, 'pairB.out') };
  const { r, file } = pairPage('pair.html', 'pairA.out', 'pairB.out');
  check('tester vis --seed 2 A.out B.out writes a page', r.status === 0 && r.stderr.includes(`A: ${judged.A.moves} moves`) && r.stderr.includes(`B: ${judged.B.moves} moves`), r.stderr.trim());
  // For bench.js: two answers of 54 000 moves on N = 30.
  writeOut('long-A.out', randomMoves(input, 54000, 2));
  writeOut('long-B.out', randomMoves(input, 54000, 3));
  pairPage('pair-54000.html', 'long-A.out', 'long-B.out');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pair-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1400, height: 860 }, acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    await numbersAndStepping(ctx, { page: file }, judged, texts);
    await badAnswers(ctx, texts);
    await compareLinks(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main()
  .catch((e) => { check('pair run', false, e.stack || String(e)); })
  .finally(() => {
    console.log(`pair: ${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
  });
