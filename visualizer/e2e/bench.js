// Measures the visualizer on a page in headless chromium: load time (parse, replay, first
// draw) and the redraw time of random jumps. Reports numbers; asserts nothing.
//   node visualizer/e2e/bench.js [PAGE.html] [JUMPS]
// Default page: target/vis-e2e/seed2-54000.html, written by run.sh (N = 30, C = 6, 54 000 moves).
// A page of two answers (pair.html; target/vis-e2e/pair-54000.html, two answers of 54 000 moves
// written by e2e/pair.js) is measured the same way: its load replays both, a jump moves and
// redraws both boards.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function main() {
  const root = path.resolve(__dirname, '..', '..');
  const page = path.resolve(process.argv[2] || path.join(root, 'target', 'vis-e2e', 'seed2-54000.html'));
  const jumps = Number(process.argv[3] || 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-bench-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const loads = [];
    let p;
    for (let i = 0; i < 5; i++) {
      if (p) await p.close();
      p = await ctx.newPage();
      await p.goto('file://' + page);
      await p.waitForFunction(() => (window.qaVis && window.qaVis.game() !== null) || (window.qaPair && window.qaPair.game(1) !== null));
      loads.push(await p.evaluate(() => (window.qaPair ? window.qaPair.loadMs() : window.qaVis.loadMs())));
    }
    const r = await p.evaluate(async (n) => {
      const pair = window.qaPair, out = [];
      const g = pair ? pair.game(0) : window.qaVis.game();
      const last = pair ? Math.max(pair.game(0).applied, pair.game(1).applied) : g.applied;
      for (let i = 0; i < n; i++) {
        const t = Math.floor(Math.random() * (last + 1));
        const a = performance.now();
        if (pair) pair.setPos(t); else window.qaVis.setFrame(t);
        out.push(performance.now() - a);
        // Let the browser paint now and then, as a user dragging the slider would.
        if (i % 10 === 9) await new Promise((res) => requestAnimationFrame(res));
      }
      out.sort((x, y) => x - y);
      const q = (f) => out[Math.min(out.length - 1, Math.floor(f * out.length))].toFixed(2);
      return { N: g.N, moves: pair ? `${pair.game(0).applied} + ${pair.game(1).applied}` : g.applied, median: q(0.5), p95: q(0.95), p99: q(0.99), max: q(1) };
    }, jumps);
    loads.sort((a, b) => a - b);
    console.log(`page: ${path.relative(process.cwd(), page)} (N = ${r.N}, ${r.moves} moves)`);
    console.log(`load (parse + replay + first draw), 5 loads: median ${loads[2].toFixed(1)} ms, max ${loads[4].toFixed(1)} ms`);
    console.log(`${jumps} random jumps (state + redraw): median ${r.median} ms, p95 ${r.p95} ms, p99 ${r.p99} ms, max ${r.max} ms`);
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
main().catch((e) => { console.error(e); process.exitCode = 1; });
