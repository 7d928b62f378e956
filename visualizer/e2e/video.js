// Browser test of the page's video export ("Record video": MediaRecorder on the board canvas).
// Run it through run.sh, or:
//
//   TESTER=target/release/tester node visualizer/e2e/video.js
//
// It writes a page with `tester vis`, clicks "Record video", waits until the replay has played
// to the end and the .webm download comes, and checks the video: a WebM file (EBML header), of
// the size and type the page reports, non-empty. Then the same with an early stop and with an
// invalid output. Ends with the line `video: N passed, M failed`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { chromium } = require('playwright-core');
const { randomMoves } = require('./random-moves.js');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.resolve(process.env.E2E_OUT || path.join(ROOT, 'target', 'vis-e2e'));
const TESTER = path.resolve(ROOT, process.env.TESTER || 'target/release/tester');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** The first four bytes of every WebM (Matroska) file: the EBML header's ID. */
const EBML = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail !== undefined ? '  (' + detail + ')' : ''}`);
  return ok;
}

/** Runs the tester; any exit but `status` (0 by default) fails the run. */
function tester(args, opts = {}, status = 0) {
  const r = spawnSync(TESTER, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.error) throw r.error;
  if (r.status !== status) throw new Error(`tester ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r;
}

/** A `tester vis` page of seed 2 with `out` as the output; `invalid`: the judge rejects it,
 * so tester vis writes the page and exits 1, as tester score does. */
function page(name, out, invalid = false) {
  fs.writeFileSync(path.join(OUT, `${name}.out`), out);
  tester(['vis', '--seed', '2', `${name}.out`, '-o', `${name}.html`], { cwd: OUT }, invalid ? 1 : 0);
  return 'file://' + path.join(OUT, `${name}.html`);
}

/** The button's report of the last recording: {bytes, type}, or null before one ends. */
const recorded = (p) => p.evaluate(() => {
  const b = document.getElementById('btn-record');
  return b.dataset.videoBytes === undefined ? null : { bytes: Number(b.dataset.videoBytes), type: b.dataset.videoType, label: b.textContent };
});

/** Clicks "Record video" (and, with stopAfterMs, again that much later); returns the download and the page's report. */
async function record(p, file, stopAfterMs) {
  const download = p.waitForEvent('download', { timeout: 120000 });
  await p.click('#btn-record');
  if (stopAfterMs !== undefined) {
    await p.waitForTimeout(stopAfterMs);
    await p.click('#btn-record');
  }
  const dl = await download;
  await dl.saveAs(file);
  return { bytes: fs.readFileSync(file), name: dl.suggestedFilename(), report: await recorded(p) };
}

/** Opens a video file in a page; returns its decoded size and a screenshot of its first frame. */
async function playBack(ctx, file) {
  // A page beside the file (a file: video plays only in a file: page).
  const html = file.replace(/\.webm$/, '.html');
  fs.writeFileSync(html, `<!DOCTYPE html><video id="v" muted src="${path.basename(file)}"></video>`);
  const v = await ctx.newPage();
  await v.goto('file://' + html);
  const size = await v.evaluate(() => new Promise((done) => {
    const el = document.getElementById('v');
    if (el.readyState >= 2) done({ w: el.videoWidth, h: el.videoHeight });
    el.onloadeddata = () => done({ w: el.videoWidth, h: el.videoHeight });
    el.onerror = () => done({ w: 0, h: 0, error: String(el.error && el.error.message) });
    setTimeout(() => done({ w: 0, h: 0, error: 'no frame decoded in 20 s' }), 20000);
  }));
  await v.locator('#v').screenshot({ path: file.replace(/\.webm$/, '-first-frame.png') });
  await v.close();
  return size;
}

async function videoCases(ctx) {
  const errs = [];
  const input2 = tester(['gen', '--seed', '2']).stdout;
  const moves = 400;
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errs.push(e.message));
  await p.goto(page('video', randomMoves(input2, moves, 7)));
  await p.waitForFunction(() => window.qaVis && window.qaVis.game() !== null);
  const enabled = await p.evaluate(() => !document.getElementById('btn-record').disabled);
  check('video: the Record video button is enabled (MediaRecorder records webm here)', enabled);
  if (!enabled) { await p.close(); return; }

  // A whole recording: from the start to the end at 300 moves per second.
  await p.selectOption('#speed', '300');
  await p.evaluate((t) => window.qaVis.setFrame(t), 123);
  const full = await record(p, path.join(OUT, 'video-full.webm'));
  const end = await p.evaluate(() => window.qaVis.frame());
  check('video: the recording played the replay to its last move', end === moves, `frame ${end} of ${moves}`);
  check('video: the download is a non-empty WebM video', full.bytes.length > 1000 && full.bytes.subarray(0, 4).equals(EBML) && full.name.endsWith('.webm'),
    `${full.name}, ${full.bytes.length} bytes, starts ${full.bytes.subarray(0, 4).toString('hex')}`);
  check('video: the page reports a video/webm Blob of the downloaded size', full.report && full.report.type === 'video/webm' && full.report.bytes === full.bytes.length,
    JSON.stringify(full.report));
  check('video: the button is ready for the next recording', full.report && full.report.label === 'Record video', full.report && full.report.label);
  // The browser plays the file back: its frames are the board with the strip of numbers under it.
  const board = await p.evaluate(() => ({ w: document.getElementById('board').width, h: document.getElementById('board').height }));
  const shown = await playBack(ctx, path.join(OUT, 'video-full.webm'));
  check('video: the browser decodes the video at the board\'s size plus the strip of numbers', shown.w === board.w && shown.h > board.h && shown.h <= board.h + 80,
    `video ${shown.w}×${shown.h}, board canvas ${board.w}×${board.h}${shown.error ? ', ' + shown.error : ''}`);

  // Stopped early: a shorter video, the replay stopped before the end.
  await p.selectOption('#speed', '10');
  const early = await record(p, path.join(OUT, 'video-early.webm'), 1500);
  const at = await p.evaluate(() => window.qaVis.frame());
  check('video: a second click stops early and still saves the video', at > 0 && at < moves && early.bytes.subarray(0, 4).equals(EBML) && early.report.bytes === early.bytes.length,
    `stopped at move ${at}, ${early.bytes.length} bytes`);
  await p.close();

  // An invalid output: the recording ends at the failing move.
  const bad = `6\n${randomMoves(input2, 5, 3).trim().split('\n').slice(1).join('\n')}\n0 0 0 0\n`;
  const q = await ctx.newPage();
  q.on('pageerror', (e) => errs.push(e.message));
  await q.goto(page('video-invalid', bad, true));
  await q.waitForFunction(() => window.qaVis && window.qaVis.game() !== null);
  const invalid = await record(q, path.join(OUT, 'video-invalid.webm'));
  const stop = await q.evaluate(() => window.qaVis.frame());
  check('video: an invalid output records up to the failing move', stop === 5 && invalid.bytes.subarray(0, 4).equals(EBML) && invalid.report.bytes > 0,
    `frame ${stop}, ${invalid.bytes.length} bytes`);
  await q.close();
  check('video: no script errors', errs.length === 0, errs.join('; '));
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  if (!fs.existsSync(TESTER)) throw new Error(`no tester binary at ${TESTER} (run visualizer/e2e/run.sh)`);
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-video-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    await videoCases(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

main()
  .catch((e) => { check('video run', false, e.stack || String(e)); })
  .finally(() => {
    console.log(`video: ${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
  });
