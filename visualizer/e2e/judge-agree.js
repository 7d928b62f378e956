// judge.js (the page's judge) against the Rust judge: `tester score` on random and damaged
// outputs, and the official tester's own verdicts; part of the browser test (e2e.js), no
// browser needed.
'use strict';
const fs = require('fs');
const path = require('path');
const J = require(path.join(__dirname, '..', 'judge.js'));
const { randomMoves } = require('./random-moves.js');

/** judge.js against `tester score` on many random and damaged outputs (no browser). */
function differential(seeds, perSeed, { check, tester, score, writeOut }) {
  let same = 0;
  const diffs = [];
  let rnd = 12345;
  const rand = (n) => { rnd = (rnd * 1103515245 + 12345) & 0x7fffffff; return rnd % n; };
  const line = (ls) => (ls.length > 1 ? 1 + rand(ls.length - 1) : -1);
  const damage = [
    (ls) => { const i = line(ls); if (i > 0) ls.splice(i, 1); },                       // lose a line
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i].replace(' ', '  '); },
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i].split(' ').reverse().join(' '); },
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i] + ' '; },
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i].replace(/\d+/, String(rand(40) - 5)); },
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i].split(' ').slice(0, 3).join(' '); },
    (ls) => { ls[0] = String(Number(ls[0]) + rand(3) - 1); },
    (ls) => { ls[0] = '+' + ls[0]; },
    (ls) => { const i = line(ls); if (i < 0) return; ls[i] = ls[i].replace(/\d/, 'x'); },
    (ls) => { const i = line(ls); if (i < 0) return; const p = ls[i].split(' '); ls[i] = `${p[0]} ${p[1]} ${p[0]} ${p[1]}`; },
    () => {},
  ];
  for (const seed of seeds) {
    const inputText = tester(['gen', '--seed', String(seed)]).stdout;
    const input = J.parseInput(inputText);
    for (let i = 0; i < perSeed; i++) {
      const text = randomMoves(inputText, 1 + rand(60), 1000 * seed + i);
      const ls = J.readLines(text);
      damage[rand(damage.length)](ls);
      if (rand(4) === 0) damage[rand(damage.length)](ls);
      const eol = ['\n', '\r\n', '\r'][rand(3)];
      const out = ls.join(eol) + (rand(2) ? eol : '');
      const file = writeOut('diff.out', out);
      const t = score(seed, file);
      const r = J.replay(input, J.parseOutput(out, input.N));
      const js = r.official ? { score: -1, error: r.official.message } : { score: r.officialScore, error: null };
      if (js.error === t.error && Math.abs(js.score - t.score) < 1e-9) same++;
      else if (diffs.length < 5) diffs.push(`seed ${seed}: js ${JSON.stringify(js)} tester ${JSON.stringify({ score: t.score, error: t.error })}`);
    }
  }
  const total = seeds.length * perSeed;
  check(`judge.js agrees with tester score on ${total} random and damaged outputs`, same === total, `${same}/${total} agree${diffs.length ? ': ' + diffs.join(' | ') : ''}`);
}

/**
 * judge.js against the official tester's own verdicts on 155 hand-made outputs (the reference
 * data, found like the Rust tests find it: $QA_OFFICIAL or tools/tests/official).
 */
function officialCases(ROOT, check) {
  const dir = [process.env.QA_OFFICIAL, path.join(ROOT, 'tools', 'tests', 'official')]
    .find((d) => d && fs.existsSync(path.join(d, 'scorer_cases.csv')));
  check('official scorer cases found', Boolean(dir), 'set QA_OFFICIAL to the reference data');
  if (!dir) return;
  const rows = fs.readFileSync(path.join(dir, 'scorer_cases.csv'), 'utf8').trim().split('\n').slice(1);
  let same = 0;
  const diffs = [];
  for (const row of rows) {
    const [, seed, file, raw] = /^(\d+),([^,]+),(.*)$/.exec(row);
    const expected = raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw;
    const input = J.parseInput(fs.readFileSync(path.join(dir, 'inputs', `${seed}.in`), 'utf8'));
    const out = new TextDecoder('utf-8', { ignoreBOM: true }).decode(fs.readFileSync(path.join(dir, file)));
    const r = J.replay(input, J.parseOutput(out, input.N));
    const ok = r.official ? r.official.message === expected : Math.abs(r.officialScore - Number(expected)) < 1e-9;
    if (ok) same++; else if (diffs.length < 5) diffs.push(`${file}: ${r.official ? r.official.message : r.officialScore} vs ${expected}`);
  }
  check(`judge.js reproduces the official tester on ${rows.length} scorer cases`, same === rows.length && rows.length > 0,
    `${same}/${rows.length}${diffs.length ? ': ' + diffs.join(' | ') : ''}`);
}

module.exports = { differential, officialCases };
