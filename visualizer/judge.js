/*
 * QueenAttack judge for the visualizer: reads an input and an output exactly like the
 * official tester (and the Rust `tools` judge), then replays the moves once and keeps what
 * the page needs to jump to any move fast: per-move totals and board snapshots.
 *
 * Plain script (no modules) so the page opens from the file system; also loadable by Node
 * (`require('./judge.js')`) for the tests in e2e/.
 */
(function (root) {
  'use strict';

  /** Snapshots of the board are kept every SNAP moves: a jump replays at most SNAP-1 moves. */
  const SNAP = 256;

  const PARSE_ERROR = 'Cannot parse your output';

  /** Java's Integer.parseInt for radix 10 on ASCII digits: null when Java would throw. */
  function javaParseInt(s) {
    if (!/^[+-]?[0-9]+$/.test(s)) return null;
    const v = Number(s);
    // Number() is exact up to 2^53; longer digit strings are far outside the int range anyway.
    if (!(v >= -2147483648 && v <= 2147483647)) return null;
    return v === 0 ? 0 : v; // no -0
  }

  /** Java's String.split(" "): leading empty strings kept, trailing ones dropped. */
  function javaSplitSpace(line) {
    if (line.indexOf(' ') < 0) return [line];
    const parts = line.split(' ');
    let end = parts.length;
    while (end > 0 && parts[end - 1] === '') end--;
    return parts.slice(0, end);
  }

  /** Lines as java.io.BufferedReader.readLine returns them (\n, \r\n or \r endings). */
  function readLines(text) {
    if (text.length === 0) return [];
    const lines = text.split(/\r\n|\r|\n/);
    // A final terminator ends the last line; it does not start a new one.
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  /**
   * Parses an input: N, C, then N*N cell values row-major (-1 wall, 0 empty, k colour k).
   * Throws an Error with a readable message on a malformed input.
   */
  function parseInput(text) {
    const tok = text.split(/\s+/).filter((t) => t.length > 0);
    const num = (i, what) => {
      if (i >= tok.length) throw new Error('input: missing ' + what);
      const v = javaParseInt(tok[i]);
      if (v === null) throw new Error('input: ' + what + ' is not an integer: ' + tok[i]);
      return v;
    };
    const N = num(0, 'N');
    const C = num(1, 'C');
    if (N < 1 || N > 200) throw new Error('input: N out of range: ' + N);
    if (C < 1 || C > 64) throw new Error('input: C out of range: ' + C);
    const grid = new Int8Array(N * N);
    for (let i = 0; i < N * N; i++) {
      const v = num(2 + i, 'cell ' + Math.floor(i / N) + ',' + (i % N));
      if (v < -1 || v > C) throw new Error('input: bad cell value ' + v + ' at ' + Math.floor(i / N) + ',' + (i % N));
      grid[i] = v;
    }
    return { N, C, grid };
  }

  /**
   * Reads a move line of the usual form, four unsigned numbers of at most 9 digits with one
   * space between them, into out[at..at + 4] and returns true; false for any other line (the
   * exact Java rules then decide). Scanning the characters once instead of splitting and
   * matching each number halves the load of 54 000 moves (parse 73 ms of 126 ms before).
   */
  function plainMove(line, out, at) {
    const n = line.length;
    let i = 0;
    for (let j = 0; j < 4; j++) {
      if (j > 0) {
        if (i >= n || line.charCodeAt(i) !== 32) return false;
        i++;
      }
      const start = i;
      let v = 0;
      for (; i < n; i++) {
        const c = line.charCodeAt(i);
        if (c < 48 || c > 57) break;
        v = v * 10 + (c - 48);
      }
      if (i === start || i - start > 9) return false;
      out[at + j] = v;
    }
    return i === n;
  }

  /**
   * Parses an output for a board of size N, like the official tester: all lines first.
   * Returns { declared, moves: Int32Array(4*k), lines: [k raw lines], error } where error is
   * null or { index, message } (index = 0-based move whose line failed, -1 for the count line).
   */
  function parseOutput(text, N) {
    const lines = readLines(text);
    const out = { declared: null, moves: new Int32Array(0), lines: [], error: null };
    if (lines.length === 0) {
      out.error = { index: -1, message: PARSE_ERROR, global: true };
      return out;
    }
    const n = javaParseInt(lines[0]);
    if (n === null) {
      out.error = { index: -1, message: PARSE_ERROR, global: true };
      return out;
    }
    out.declared = n;
    const limit = 2 * N * N * N;
    if (n < 0 || n > limit) {
      out.error = { index: -1, message: 'Number of moves must between 0 and ' + limit + ' inclusive', global: true };
      return out;
    }
    // Every counted line is read before any move is played: a short output is unreadable
    // whatever its moves are (`global`). The moves that are there are still shown.
    const available = Math.min(n, lines.length - 1);
    const moves = new Int32Array(4 * available);
    let k = 0;
    for (; k < available; k++) {
      const line = lines[1 + k];
      if (plainMove(line, moves, 4 * k)) { out.lines.push(line); continue; }
      const parts = javaSplitSpace(line);
      if (parts.length !== 4) {
        out.error = { index: k, message: 'Each move must contain exactly 4 numbers separated by a space: ' + line };
        break;
      }
      let bad = false;
      for (let j = 0; j < 4; j++) {
        const v = javaParseInt(parts[j]);
        if (v === null) { bad = true; break; }
        moves[4 * k + j] = v;
      }
      if (bad) {
        out.error = { index: k, message: PARSE_ERROR };
        break;
      }
      out.lines.push(line);
    }
    if (available < n) out.error = { index: available, message: PARSE_ERROR, global: true };
    out.moves = moves.subarray(0, 4 * k);
    return out;
  }

  /** Why move (r1,c1)->(r2,c2) is illegal on `grid`, or null if it is legal. */
  function moveError(N, grid, r1, c1, r2, c2, line) {
    const inGrid = (r, c) => r >= 0 && r < N && c >= 0 && c < N;
    if (!inGrid(r1, c1)) return 'Location (' + r1 + ',' + c1 + ') is not in the grid';
    if (!inGrid(r2, c2)) return 'Location (' + r2 + ',' + c2 + ') is not in the grid';
    if (r1 === r2 && c1 === c2) return 'Start and end locations cannot be the same: ' + line;
    const dr = r2 - r1, dc = c2 - c1;
    if (!(dr === 0 || dc === 0 || Math.abs(dr) === Math.abs(dc))) return 'Not a legal queen move: ' + line;
    if (grid[r1 * N + c1] <= 0) return 'Start location (' + r1 + ',' + c1 + ') cannot be empty or wall';
    if (grid[r2 * N + c2] !== 0) return 'End location (' + r2 + ',' + c2 + ') must be empty';
    const sr = Math.sign(dr), sc = Math.sign(dc);
    for (let r = r1 + sr, c = c1 + sc; r !== r2 || c !== c2; r += sr, c += sc) {
      if (grid[r * N + c] !== 0) return 'Cannot move through other pieces or walls ' + line;
    }
    return null;
  }

  /** Same-colour line counts of a board, to count and update attacking pairs. */
  class LineCounts {
    constructor(N, C) {
      this.N = N;
      this.row = new Int32Array((C + 1) * N);
      this.col = new Int32Array((C + 1) * N);
      this.diag = new Int32Array((C + 1) * (2 * N - 1));
      this.anti = new Int32Array((C + 1) * (2 * N - 1));
      this.pairs = 0;
    }
    /** Adds (+1) or removes (-1) a queen of colour k at (r,c), keeping `pairs` exact. */
    update(k, r, c, delta) {
      const N = this.N, D = 2 * N - 1;
      // No array of the four lines per call: the replay of 54 000 moves makes 108 000 calls.
      this.bump(this.row, k * N + r, delta);
      this.bump(this.col, k * N + c, delta);
      this.bump(this.diag, k * D + (r - c + N - 1), delta);
      this.bump(this.anti, k * D + (r + c), delta);
    }
    /** One line's count of a colour up (+1) or down (-1), with the pairs it makes or ends. */
    bump(arr, i, delta) {
      if (delta > 0) { this.pairs += arr[i]; arr[i]++; } else { arr[i]--; this.pairs -= arr[i]; }
    }
    /** Same-colour queens attacking the queen of colour k at (r,c) (it is on the board). */
    attackers(k, r, c) {
      const N = this.N, D = 2 * N - 1;
      return this.row[k * N + r] + this.col[k * N + c] + this.diag[k * D + (r - c + N - 1)] +
        this.anti[k * D + (r + c)] - 4;
    }
    static of(N, C, grid) {
      const lc = new LineCounts(N, C);
      for (let i = 0; i < N * N; i++) if (grid[i] > 0) lc.update(grid[i], Math.floor(i / N), i % N, 1);
      return lc;
    }
  }

  /**
   * The moves of each queen, for the travelled paths: queen q's moves are
   * pathMoves[pathStart[q]..pathStart[q + 1]] (ascending), and pathPen[j] is the penalty of that
   * queen's moves up to pathMoves[j], so a hovered queen's penalty so far is one lookup, not a
   * sum over its path.
   */
  function queenPaths(moves, queenOf, applied, queens) {
    const pathStart = new Int32Array(queens + 1);
    for (let i = 0; i < applied; i++) pathStart[queenOf[i] + 1]++;
    for (let q = 0; q < queens; q++) pathStart[q + 1] += pathStart[q];
    const pathMoves = new Int32Array(applied);
    const fill = pathStart.slice(0, queens);
    for (let i = 0; i < applied; i++) pathMoves[fill[queenOf[i]]++] = i;
    const pathPen = new Float64Array(applied);
    for (let q = 0; q < queens; q++) {
      let sum = 0;
      for (let j = pathStart[q]; j < pathStart[q + 1]; j++) {
        const i = pathMoves[j];
        sum += Math.sqrt(Math.max(Math.abs(moves[4 * i + 2] - moves[4 * i]), Math.abs(moves[4 * i + 3] - moves[4 * i + 1])));
        pathPen[j] = sum;
      }
    }
    return { pathStart, pathMoves, pathPen };
  }

  /**
   * Replays a parsed output on an input. Frame t (0..applied) is the board after t moves.
   *
   * Result fields: N, C, applied (legal moves replayed), moves (Int32Array, 4 per move, the
   * applied ones plus the illegal one if any), lines, fatal (null or {index, message, kind:
   * 'parse'|'move', move: [r1,c1,r2,c2] or null}), errors/penalty/run (per frame), queenOf
   * (queen id per applied move), stateAt(t) -> {grid, ids}, score(t), officialScore.
   */
  function replay(input, parsed) {
    const { N, C } = input;
    const total = parsed.moves.length / 4;
    const grid = Int8Array.from(input.grid);
    const ids = new Int16Array(N * N).fill(-1);
    let queens = 0;
    for (let i = 0; i < N * N; i++) if (grid[i] > 0) ids[i] = queens++;
    const colourOf = new Int8Array(queens);
    for (let i = 0; i < N * N; i++) if (ids[i] >= 0) colourOf[ids[i]] = grid[i];
    const lc = LineCounts.of(N, C, grid);

    const errors = new Int32Array(total + 1);
    const penalty = new Float64Array(total + 1);
    const run = new Float64Array(total + 1);
    const queenOf = new Int32Array(total);
    const snapGrids = [], snapIds = [];
    errors[0] = lc.pairs;
    let fatal = null, t = 0;
    for (; t < total; t++) {
      if (t % SNAP === 0) { snapGrids.push(Int8Array.from(grid)); snapIds.push(Int16Array.from(ids)); }
      const m = parsed.moves;
      const r1 = m[4 * t], c1 = m[4 * t + 1], r2 = m[4 * t + 2], c2 = m[4 * t + 3];
      const why = moveError(N, grid, r1, c1, r2, c2, parsed.lines[t]);
      if (why !== null) {
        fatal = { index: t, message: why, kind: 'move', move: [r1, c1, r2, c2] };
        break;
      }
      const a = r1 * N + c1, b = r2 * N + c2, k = grid[a];
      lc.update(k, r1, c1, -1);
      lc.update(k, r2, c2, 1);
      grid[b] = k; grid[a] = 0;
      ids[b] = ids[a]; ids[a] = -1;
      queenOf[t] = ids[b];
      const pen = Math.sqrt(Math.max(Math.abs(r2 - r1), Math.abs(c2 - c1)));
      errors[t + 1] = lc.pairs;
      penalty[t + 1] = penalty[t] + pen;
      const cont = t > 0 && m[4 * t - 2] === r1 && m[4 * t - 1] === c1;
      run[t + 1] = cont ? run[t] + pen : pen;
    }
    const applied = t;
    if (applied % SNAP === 0 && snapGrids.length * SNAP <= applied) {
      snapGrids.push(Int8Array.from(grid)); snapIds.push(Int16Array.from(ids));
    }
    // The official tester reads all counted lines first (a missing one beats an illegal move),
    // then splits, parses and plays line by line (an illegal move beats a later bad line).
    const official = parsed.error && (parsed.error.global || fatal === null)
      ? { index: parsed.error.index, message: parsed.error.message, kind: 'parse', move: null }
      : fatal;
    if (fatal === null && parsed.error) fatal = official;

    const { pathStart, pathMoves, pathPen } = queenPaths(parsed.moves, queenOf, applied, queens);

    /** The end of queen q's moves before frame t in pathMoves (binary search). */
    const pathEnd = (q, t0) => {
      let lo = pathStart[q], hi = pathStart[q + 1];
      while (lo < hi) { const mid = (lo + hi) >> 1; if (pathMoves[mid] < t0) lo = mid + 1; else hi = mid; }
      return lo;
    };
    const moves = parsed.moves;
    const res = {
      N, C, queens, colourOf, applied, total: parsed.declared, moves, lines: parsed.lines,
      fatal, official, errors, penalty, run, queenOf,
      /** Board after t moves: fresh arrays the caller may keep. */
      stateAt(t0) {
        const tt = Math.max(0, Math.min(applied, t0));
        const s = Math.floor(tt / SNAP);
        const g = Int8Array.from(snapGrids[s]);
        const q = Int16Array.from(snapIds[s]);
        for (let i = s * SNAP; i < tt; i++) {
          const a = moves[4 * i] * N + moves[4 * i + 1], b = moves[4 * i + 2] * N + moves[4 * i + 3];
          g[b] = g[a]; g[a] = 0; q[b] = q[a]; q[a] = -1;
        }
        return { grid: g, ids: q, lines: LineCounts.of(N, C, g) };
      },
      /** errors*N + total penalty after t moves (what the judge prints for a valid output). */
      score(t0) { return errors[t0] * N + penalty[t0]; },
      /** The judge's score: -1 on any fatal. */
      officialScore: official ? -1 : errors[applied] * N + penalty[applied],
      /** Indices of the moves queen q made before frame t (ascending): a view, O(log n). */
      pathOf(q, t0) {
        return pathMoves.subarray(pathStart[q], pathEnd(q, t0));
      },
      /** The penalty of the moves queen q made before frame t. */
      pathPenalty(q, t0) {
        const end = pathEnd(q, t0);
        return end > pathStart[q] ? pathPen[end - 1] : 0;
      },
    };
    return res;
  }

  const api = { SNAP, javaParseInt, javaSplitSpace, readLines, parseInput, parseOutput, moveError, LineCounts, replay };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.QAJudge = api;
})(typeof window !== 'undefined' ? window : this);
