// Writes a long sequence of random legal moves for an input (a stand-in for a solver output
// when the solver binary is not available): node random-moves.js INPUT|- COUNT SEED > OUT
'use strict';
const fs = require('fs');
const path = require('path');
const J = require(path.join(__dirname, '..', 'judge.js'));

function randomMoves(inputText, count, seed) {
  const { N, grid: g0 } = J.parseInput(inputText);
  const grid = Int8Array.from(g0);
  let s = seed >>> 0 || 1;
  const rnd = (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
  const queens = [];
  for (let i = 0; i < N * N; i++) if (grid[i] > 0) queens.push(i);
  const dirs = [[0, 1], [1, 0], [1, 1], [1, -1], [0, -1], [-1, 0], [-1, -1], [-1, 1]];
  const lines = [];
  while (lines.length < count) {
    const qi = rnd(queens.length), a = queens[qi], r = Math.floor(a / N), c = a % N;
    const [dr, dc] = dirs[rnd(8)];
    let len = 0;
    while (true) {
      const rr = r + dr * (len + 1), cc = c + dc * (len + 1);
      if (rr < 0 || rr >= N || cc < 0 || cc >= N || grid[rr * N + cc] !== 0) break;
      len++;
    }
    if (len === 0) continue;
    const d = 1 + rnd(len), r2 = r + dr * d, c2 = c + dc * d, b = r2 * N + c2;
    grid[b] = grid[a]; grid[a] = 0; queens[qi] = b;
    lines.push(`${r} ${c} ${r2} ${c2}`);
  }
  return `${lines.length}\n${lines.join('\n')}\n`;
}

if (require.main === module) {
  const [input, count, seed] = process.argv.slice(2);
  const text = fs.readFileSync(input === '-' ? 0 : input, 'utf8');
  process.stdout.write(randomMoves(text, Number(count), Number(seed || 1)));
}
module.exports = { randomMoves };
