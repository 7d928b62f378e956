// Measures the visualizer on a page in headless chromium: load time (parse, replay, first
// draw) and the redraw time of random jumps. Reports numbers; asserts nothing.
//   node visualizer/e2e/bench.js [PAGE.html] [JUMPS]
// Default page: target/vis-e2e/seed2-54000.html, written by run.sh (N = 30, C = 6, 54 000 moves).
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
      await p.waitForFunction(() => window.qaVis && window.qaVis.game() !== null);
      loads.push(await p.evaluate(() => window.qaVis.loadMs()));
    }
    const r = await p.evaluate(async (n) => {
      const g = window.qaVis.game(), out = [];
      for (let i = 0; i < n; i++) {
        const t = Math.floor(Math.random() * (g.applied + 1));
        const a = performance.now();
        window.qaVis.setFrame(t);
        out.push(performance.now() - a);
        // Let the browser paint now and then, as a user dragging the slider would.
        if (i % 10 === 9) await new Promise((res) => requestAnimationFrame(res));
      }
      out.sort((x, y) => x - y);
      const q = (f) => out[Math.min(out.length - 1, Math.floor(f * out.length))].toFixed(2);
      return { N: g.N, moves: g.applied, median: q(0.5), p95: q(0.95), p99: q(0.99), max: q(1) };
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
