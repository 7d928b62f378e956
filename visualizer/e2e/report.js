// Browser check of the `tester compare --html` page (run by run.sh after e2e.js):
//
//   TESTER=target/release/tester node visualizer/e2e/report.js
//
// Two short real runs of the solver (the `queenattack` next to `tester`, at 1 s and 2 s on
// seeds 1-4), `tester compare --html`, then in headless chromium: the page loads with no
// request beyond its own file and no console error, shows the seed table and every SVG plot
// with its points, and is saved as a screenshot in target/vis-e2e/compare-report.png.
// Ends with the line `report: N passed, M failed`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.resolve(process.env.E2E_OUT || path.join(ROOT, 'target', 'vis-e2e'));
const TESTER = path.resolve(ROOT, process.env.TESTER || 'target/release/tester');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SEEDS = [1, 2, 3, 4];

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail !== undefined ? '  (' + detail + ')' : ''}`);
  return ok;
}

function tester(args) {
  const r = spawnSync(TESTER, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.error) throw r.error;
  return r;
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const dirs = [];
  for (const secs of ['1', '2']) {
    const dir = path.join(OUT, `compare-run-${secs}s`);
    fs.rmSync(dir, { recursive: true, force: true });
    // A seed that times out on a loaded machine is shown and excluded: the page still loads.
    const r = tester(['run', '--seeds', SEEDS.join(','), '--time-limit', secs, '--out', dir, '--quiet', '--allow-failures']);
    check(`tester run at ${secs} s`, fs.existsSync(path.join(dir, 'results.json')), `exit ${r.status} ${r.stderr.trim().slice(0, 300)}`);
    dirs.push(dir);
  }
  const page = path.join(OUT, 'compare-report.html');
  const t0 = process.hrtime.bigint();
  const r = tester(['compare', ...dirs, '--html', page]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!check('tester compare --html writes the page', r.status === 0 && fs.existsSync(page), `exit ${r.status} ${r.stderr.trim()}`)) return;
  console.log(`     page ${fs.statSync(page).size} bytes, written in ${ms.toFixed(0)} ms`);

  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1150, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const tab = await ctx.newPage();
    const requests = [], errors = [];
    tab.on('request', (q) => { if (!q.url().startsWith('file://')) requests.push(q.url()); });
    tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.goto('file://' + page);
    const seen = await tab.evaluate(() => ({
      rows: document.querySelectorAll('table#seeds tbody tr').length,
      plots: [...document.querySelectorAll('figure.plot')].map((f) => {
        const svg = f.querySelector('svg');
        const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
        return { title: f.title, width: box.width, height: box.height, points: svg ? svg.querySelectorAll('circle').length : 0 };
      }),
      summary: (document.getElementById('summary') || {}).textContent || '',
    }));
    check('the seed table has a row per seed', seen.rows === SEEDS.length, `${seen.rows} rows`);
    // Score scatter, the ratio against N, C and P, the relative score against the time limit,
    // and the ratio against each numeric key of the solver's `[DATA]` lines.
    const results = JSON.parse(fs.readFileSync(path.join(dirs[0], 'results.json'), 'utf8')).results;
    const dataKeys = [...new Set(results.flatMap((r) => Object.keys(r.data || {})))]
      .filter((k) => results.every((r) => !r.data || !(k in r.data) || typeof r.data[k] === 'number'));
    const titled = (what) => seen.plots.some((p) => p.title.includes(`against ${what} `));
    check('a plot against N, C, P and each numeric [DATA] key', ['N', 'C', 'P', ...dataKeys].every(titled), `keys ${dataKeys.join(', ')}`);
    check(`${5 + dataKeys.length} SVG plots, each drawn with its points`, seen.plots.length === 5 + dataKeys.length && seen.plots.every((p) => p.width > 200 && p.height > 150 && p.points > 0),
      seen.plots.map((p) => `${p.title}: ${p.points} points`).join('; '));
    check('the summary names the pair and the test', /B vs A: .* paired seeds/.test(seen.summary) && seen.summary.includes('Wilcoxon'));
    check('no request beyond the page itself', requests.length === 0, requests.join(' '));
    check('no console error', errors.length === 0, errors.join(' | '));
    await tab.screenshot({ path: path.join(OUT, 'compare-report.png'), fullPage: true });
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

main()
  .catch((e) => { check('report run', false, e.stack || String(e)); })
  .finally(() => {
    console.log(`report: ${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
  });
