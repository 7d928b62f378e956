/*
 * QueenAttack visualizer, two answers side by side (pair.html, written by
 * `tester vis --seed S A.out B.out -o P.html` and `tester compare --vis`): one input, answers A
 * and B on two boards at the same scale and colours, stepped together (by move number, by
 * fraction of each answer) or each alone; the judge's final numbers of both and their
 * difference, per colour too; on the boards, the final cells where the two answers differ and
 * the queens that move in one answer only. Rules and numbers come from judge.js, the drawing
 * from draw.js.
 */
(function () {
  'use strict';
  const J = window.QAJudge;
  const { rgbOf, css, colourName, CanvasPen, SvgPen, labelFont, geometry, paint, download } = window.QADraw;
  const $ = (id) => document.getElementById(id);
  const LABELS = ['A', 'B'];
  /** Outline of a final cell where the two answers differ. */
  const DIFF = '#7b1fa2';
  /** Ring of a queen that moves in this answer and stays in the other. */
  const MOVER = '#ef6c00';
  /** Ring of a queen that stays in this answer and moves in the other. */
  const STAYER = '#00897b';

  const S = {
    boards: [],     // per answer: {label, name, game, verdict, error, t, frame, hover, geo, cache, canvas}
    input: null,
    mode: 'move',   // 'move' | 'fraction' | 'alone'
    pos: 0,         // shared position (move or fraction mode)
    focus: 0,       // the board the controls step in 'alone' mode
    playing: false,
    diffCells: null, // Uint8Array N*N: 1 where the final boards differ
    lone: null,      // per board: Uint8Array of queens: 1 moves here only, 2 stays here only
    loadMs: 0,
    lastStepMs: 0,
  };
  const opt = () => ({
    counts: $('opt-counts').checked, lines: $('opt-lines').checked,
    paths: $('opt-paths').checked, coords: $('opt-coords').checked, diff: $('opt-diff').checked,
  });
  const fmt3 = (x) => x.toFixed(3);
  const signed = (x) => (x > 0 ? '+' : x < 0 ? '−' : '±') + fmt3(Math.abs(x));
  const ready = () => S.boards.length === 2 && S.boards.every((b) => b.game);
  /** The longest replay: the shared position runs over 0..maxApplied. */
  const maxApplied = () => Math.max(0, ...S.boards.map((b) => (b.game ? b.game.applied : 0)));

  // ---------------------------------------------------------------- numbers

  /** Per colour k (1..C): attacking pairs on the final board and Σ√L of its queens' moves. */
  function colourTotals(game) {
    const N = game.N, C = game.C, D = 2 * N - 1, lc = game.stateAt(game.applied).lines;
    const pairs = new Float64Array(C + 1), pen = new Float64Array(C + 1);
    for (let k = 1; k <= C; k++) {
      for (const [arr, len] of [[lc.row, N], [lc.col, N], [lc.diag, D], [lc.anti, D]]) {
        for (let i = k * len; i < (k + 1) * len; i++) pairs[k] += (arr[i] * (arr[i] - 1)) / 2;
      }
    }
    const m = game.moves;
    for (let i = 0; i < game.applied; i++) {
      const k = game.colourOf[game.queenOf[i]];
      pen[k] += Math.sqrt(Math.max(Math.abs(m[4 * i + 2] - m[4 * i]), Math.abs(m[4 * i + 3] - m[4 * i + 1])));
    }
    return { pairs, pen };
  }

  /** The final cells that differ and, per board, the queens that move there only (1) or stay (2). */
  function differences(a, b) {
    const N = a.game.N, fa = a.game.stateAt(a.game.applied).grid, fb = b.game.stateAt(b.game.applied).grid;
    const cells = new Uint8Array(N * N);
    let count = 0;
    for (let i = 0; i < N * N; i++) if (fa[i] !== fb[i]) { cells[i] = 1; count++; }
    const moved = (g, q) => g.pathOf(q, g.applied).length > 0;
    const lone = [new Uint8Array(a.game.queens), new Uint8Array(b.game.queens)];
    let onlyA = 0, onlyB = 0;
    for (let q = 0; q < a.game.queens; q++) {
      const ma = moved(a.game, q), mb = moved(b.game, q);
      if (ma && !mb) { lone[0][q] = 1; lone[1][q] = 2; onlyA++; }
      if (mb && !ma) { lone[1][q] = 1; lone[0][q] = 2; onlyB++; }
    }
    return { cells, count, lone, onlyA, onlyB };
  }

  /** The table of the judge's final numbers: A, B and B − A, then each colour. */
  function renderTable() {
    const [a, b] = S.boards, rows = [];
    const rejected = S.boards.filter((x) => x.game.official);
    const num = (x, f) => (x === null ? '—' : f(x));
    const row = (id, name, va, vb, f, title, noDiff) => {
      const d = va === null || vb === null || noDiff ? null : vb - va;
      rows.push(`<tr id="row-${id}"${title ? ` title="${title}"` : ''}><th>${name}</th><td id="${id}-A">${num(va, f)}</td>` +
        `<td id="${id}-B">${num(vb, f)}</td><td id="${id}-diff" class="${d > 1e-9 ? 'worse' : d < -1e-9 ? 'better' : ''}">${num(d, (x) => (f === fmt3 ? signed(x) : (x > 0 ? '+' : '') + x))}</td></tr>`);
    };
    const official = (x) => x.game.officialScore;
    // A rejected answer scores −1: a difference with it means nothing.
    row('score', 'Score', official(a), official(b), fmt3, 'errors × N + Σ√L; −1 for a rejected answer', rejected.length > 0);
    const fin = (x) => x.game.errors[x.game.applied];
    row('errors', 'Errors', fin(a), fin(b), String, 'attacking same-colour pairs on the final board');
    row('moves', 'Moves', a.game.applied, b.game.applied, String, 'moves replayed (up to a rejected one)');
    row('penalty', 'Σ√L', a.game.penalty[a.game.applied], b.game.penalty[b.game.applied], fmt3, 'move penalty: Σ √(length of each move)');
    const ta = colourTotals(a.game), tb = colourTotals(b.game), N = a.game.N;
    let payer = 0, share = 0;
    for (let k = 1; k <= a.game.C; k++) {
      const sa = ta.pairs[k] * N + ta.pen[k], sb = tb.pairs[k] * N + tb.pen[k];
      const name = `<span class="dot" style="background:${css(rgbOf(k))}"></span>${colourName(k)}`;
      row(`colour${k}`, name, sa, sb, fmt3, `${colourName(k)}: its pairs × N + Σ√L of its queens (A ${ta.pairs[k]} pairs, B ${tb.pairs[k]} pairs)`);
      if (Math.abs(sb - sa) > Math.abs(share)) { share = sb - sa; payer = k; }
    }
    $('pair-rows').innerHTML = rows.join('');
    const v = $('verdict');
    if (rejected.length) {
      v.innerHTML = '';
      for (const x of rejected) {
        const p = document.createElement('div');
        p.className = 'rejected';
        p.id = 'rejected-' + x.label;
        p.textContent = `${x.label} is rejected by the judge (official score −1): ${x.game.official.message}`;
        v.append(p);
      }
      return;
    }
    const d = official(b) - official(a);
    v.innerHTML = Math.abs(d) <= 1e-9 ? 'Same score.'
      : `B is <b>${d < 0 ? 'better' : 'worse'}</b> by ${fmt3(Math.abs(d))}` +
        (official(a) > 0 ? ` (${(100 * d / official(a)).toFixed(2)} %)` : '') +
        (payer ? `; ${colourName(payer)} pays the most of it (${signed(share)})` : '') + '.';
    for (const x of S.boards) {
      if (!x.verdict) continue;
      const agree = x.verdict.error === null ? Math.abs(x.game.officialScore - x.verdict.score) < 1e-9 : !!x.game.official;
      const note = document.createElement('div');
      note.id = 'judge-check-' + x.label;
      note.className = agree ? 'agree' : 'disagree';
      note.textContent = agree ? `✓ ${x.label}: tester score says ${fmt3(x.verdict.score)}` : `⚠ ${x.label}: this page's replay differs from tester score (${x.verdict.report})`;
      v.append(note);
    }
  }

  // ---------------------------------------------------------------- boards

  function measureLabel(text, px) {
    const ctx = S.boards[0].canvas.getContext('2d');
    ctx.font = labelFont(px);
    const m = ctx.measureText(text);
    return { w: m.width, h: m.actualBoundingBoxAscent + m.actualBoundingBoxDescent };
  }

  /** One geometry for both boards: the same scale, whatever each column's width. */
  function layout() {
    if (!ready()) return;
    const wraps = S.boards.map((b) => $('wrap-' + b.label));
    const maxW = Math.min(...wraps.map((w) => w.clientWidth));
    const top = wraps[0].getBoundingClientRect().top;
    const maxH = Math.max(240, window.innerHeight - top - document.querySelector('footer').offsetHeight - 90);
    const geo = geometry(S.input.N, maxW, maxH, opt().coords, measureLabel);
    const dpr = window.devicePixelRatio || 1;
    for (const b of S.boards) {
      b.geo = geo;
      b.cache = new Map();
      b.canvas.width = Math.round(geo.w * dpr); b.canvas.height = Math.round(geo.h * dpr);
      b.canvas.style.width = geo.w + 'px'; b.canvas.style.height = geo.h + 'px';
      draw(b);
    }
  }

  /** The comparison's marks on board b: differing final cells, lone movers and stayers. */
  function paintMarks(pen, g, b) {
    if (!opt().diff || !S.diffCells) return;
    const N = g.N, cell = g.cell;
    for (let i = 0; i < N * N; i++) {
      if (S.diffCells[i]) pen.rect(g.ox + (i % N) * cell + 1.5, g.oy + Math.floor(i / N) * cell + 1.5, cell - 3, cell - 3, null, DIFF, 2.5, [4, 2]);
    }
    const lone = S.lone[S.boards.indexOf(b)], ids = b.frame.ids;
    for (let i = 0; i < N * N; i++) {
      const q = ids[i];
      if (q < 0 || !lone[q]) continue;
      const x = g.ox + ((i % N) + 0.5) * cell, y = g.oy + (Math.floor(i / N) + 0.5) * cell;
      pen.circle(x, y, cell * 0.47, null, lone[q] === 1 ? MOVER : STAYER, Math.max(2, cell * 0.1));
    }
  }

  const view = (b) => ({ game: b.game, frame: b.frame, t: b.t, hover: b.hover, opts: opt() });

  function draw(b) {
    if (!b.geo) return;
    const ctx = b.canvas.getContext('2d'), dpr = b.canvas.width / b.geo.w;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const pen = new CanvasPen(ctx, b.cache, dpr);
    paint(pen, b.geo, view(b));
    paintMarks(pen, b.geo, b);
  }

  function updateSide(b) {
    const g = b.game;
    $('move-' + b.label).textContent = b.t;
    $('total-' + b.label).textContent = g.applied;
    $('at-errors-' + b.label).textContent = g.errors[b.t];
    $('now-' + b.label).textContent = fmt3(g.score(b.t));
    $('slider-' + b.label).value = b.t;
    updateHover(b);
  }

  function updateHover(b) {
    const box = $('hover-' + b.label);
    if (b.hover < 0) { box.textContent = ''; return; }
    const g = b.game, N = g.N, at = b.frame.ids.indexOf(b.hover);
    if (at < 0) { box.textContent = ''; return; }
    const r = Math.floor(at / N), c = at % N, k = g.colourOf[b.hover], n = g.pathOf(b.hover, b.t).length;
    box.innerHTML = `Queen at <code>${r} ${c}</code>, ${colourName(k)}: ${b.frame.lines.attackers(k, r, c)} attackers, ` +
      `${n} move${n === 1 ? '' : 's'} so far (penalty ${fmt3(g.pathPenalty(b.hover, b.t))})`;
  }

  /** Shows board b at move t (clamped). */
  function showBoard(b, t) {
    b.t = Math.max(0, Math.min(b.game.applied, t | 0));
    b.frame = b.game.stateAt(b.t);
    updateSide(b);
    draw(b);
  }

  // ---------------------------------------------------------------- stepping

  /** Where board b stands at shared position s in the current mode. */
  function boardAt(b, s) {
    const M = maxApplied();
    if (S.mode === 'fraction') return M > 0 ? Math.round((s * b.game.applied) / M) : 0;
    return Math.min(s, b.game.applied);
  }

  /** Moves to shared position s (in 'alone' mode: the focused board to move s). */
  function setPos(s) {
    if (!ready()) return;
    const t0 = performance.now();
    if (S.mode === 'alone') {
      showBoard(S.boards[S.focus], s);
      S.pos = S.boards[S.focus].t;
    } else {
      S.pos = Math.max(0, Math.min(maxApplied(), s | 0));
      for (const b of S.boards) showBoard(b, boardAt(b, S.pos));
    }
    S.lastStepMs = performance.now() - t0;
    const slider = $('slider');
    slider.max = S.mode === 'alone' ? S.boards[S.focus].game.applied : maxApplied();
    slider.value = S.pos;
    $('v-pos').textContent = S.mode === 'fraction' ? `${(100 * S.pos / Math.max(1, maxApplied())).toFixed(1)} %`
      : S.mode === 'alone' ? `${S.boards[S.focus].label}: ${S.pos}` : `move ${S.pos}`;
    if (!S.playing) writeHash();
  }

  function writeHash() {
    const h = '#move=' + (S.pos === Number($('slider').max) && S.pos > 0 ? 'end' : S.pos);
    if (location.hash !== h) try { history.replaceState(null, '', h); } catch (e) { /* file:// in some browsers */ }
  }

  function setMode(mode) {
    // The boards keep their moves: the shared position is taken from A (or the focused board).
    const keep = S.boards[S.mode === 'alone' ? S.focus : 0];
    S.mode = mode;
    $('step-mode').value = mode;
    for (const b of S.boards) $('slider-' + b.label).hidden = mode !== 'alone';
    LABELS.forEach((l, j) => $('side-' + l).classList.toggle('focus', j === S.focus && mode === 'alone'));
    if (!ready()) return;
    const M = maxApplied();
    if (mode === 'alone') setPos(keep.t);
    else if (mode === 'fraction') setPos(keep.game.applied > 0 ? Math.round((keep.t * M) / keep.game.applied) : 0);
    else setPos(keep.t);
  }

  let raf = 0, lastTs = 0, acc = 0;
  function play() {
    if (!ready() || Number($('slider').max) === 0) return;
    if (S.pos >= Number($('slider').max)) setPos(0);
    S.playing = true; lastTs = 0; acc = 0;
    $('play-icon').textContent = '❚❚';
    raf = requestAnimationFrame(tick);
  }
  function stop() {
    if (!S.playing) return;
    S.playing = false;
    cancelAnimationFrame(raf);
    $('play-icon').textContent = '▶';
    writeHash();
  }
  function tick(ts) {
    if (!S.playing) return;
    if (lastTs) acc += ((ts - lastTs) / 1000) * Number($('speed').value);
    lastTs = ts;
    const steps = Math.floor(acc);
    if (steps > 0) {
      acc -= steps;
      setPos(S.pos + steps);
      if (S.pos >= Number($('slider').max)) { stop(); return; }
    }
    raf = requestAnimationFrame(tick);
  }
  const jump = (s) => { stop(); setPos(s); };

  // ---------------------------------------------------------------- loading

  function showError(message) {
    stop();
    const box = $('fatal');
    box.hidden = false;
    box.textContent = message;
    for (const b of S.boards) b.canvas.style.display = 'none';
    S.boards.forEach((b) => { b.game = null; });
  }

  /** Loads the page's data: {input, seed, p, title, answers: [{name, output, output_cut, verdict}] x2}. */
  function load(d) {
    const t0 = performance.now();
    S.boards = LABELS.map((label) => ({ label, canvas: $('board-' + label), hover: -1, t: 0, game: null }));
    $('title').textContent = d.title || '';
    let input;
    try { input = J.parseInput(d.input); } catch (e) { showError('The input does not parse: ' + e.message); return; }
    S.input = input;
    $('v-seed').textContent = d.seed === undefined || d.seed === null ? '—' : d.seed;
    $('v-n').textContent = input.N; $('v-c').textContent = input.C;
    $('v-p').textContent = typeof d.p === 'number' ? String(Number(d.p.toPrecision(4))) : '—';
    const answers = d.answers || [];
    if (answers.length !== 2) { showError(`This page needs two answers; it carries ${answers.length}.`); return; }
    for (const [i, b] of S.boards.entries()) {
      const a = answers[i];
      b.name = a.name || b.label;
      b.verdict = a.verdict || null;
      $('name-' + b.label).textContent = b.name;
      if (typeof a.output !== 'string') {
        const v = a.verdict ? ` The judge says: ${a.verdict.report}.` : '';
        showError(`${b.label} (${b.name}): the output, ${a.output_cut ? a.output_cut.bytes + ' bytes' : 'missing'}, is too large to replay on this page.${v}`);
        return;
      }
      b.game = J.replay(input, J.parseOutput(a.output, input.N));
      $('slider-' + b.label).max = b.game.applied;
    }
    const diff = differences(S.boards[0], S.boards[1]);
    S.diffCells = diff.cells; S.lone = diff.lone; S.diffCount = diff.count;
    $('diff-info').innerHTML = `<span id="diff-count">${diff.count}</span> final cell${diff.count === 1 ? '' : 's'} differ; ` +
      `${diff.onlyA} queen${diff.onlyA === 1 ? '' : 's'} move in A only, ${diff.onlyB} in B only.`;
    renderTable();
    const m = /move=(end|\d+)/.exec(location.hash);
    for (const b of S.boards) { b.frame = b.game.stateAt(0); }
    layout();
    setPos(m ? (m[1] === 'end' ? maxApplied() : Number(m[1])) : 0);
    S.loadMs = performance.now() - t0;
  }

  // ---------------------------------------------------------------- export

  const seedPart = () => { const s = $('v-seed').textContent; return s === '—' ? '' : '-seed' + s; };
  function frameSvg(b) {
    const pen = new SvgPen(b.geo.w, b.geo.h);
    paint(pen, b.geo, view(b));
    paintMarks(pen, b.geo, b);
    return pen.toString();
  }
  function exportSvg(b) {
    if (b.game) download(new Blob([frameSvg(b)], { type: 'image/svg+xml' }), `queenattack${seedPart()}-${b.label}-move${b.t}.svg`);
  }
  function exportPng(b) {
    if (!b.game) return;
    const scale = 2, c = document.createElement('canvas');
    c.width = b.geo.w * scale; c.height = b.geo.h * scale;
    const ctx = c.getContext('2d');
    ctx.scale(scale, scale);
    const pen = new CanvasPen(ctx);
    paint(pen, b.geo, view(b));
    paintMarks(pen, b.geo, b);
    c.toBlob((blob) => download(blob, `queenattack${seedPart()}-${b.label}-move${b.t}.png`), 'image/png');
  }

  // ---------------------------------------------------------------- wiring

  $('btn-start').onclick = () => jump(0);
  $('btn-end').onclick = () => jump(Number($('slider').max));
  $('btn-back').onclick = () => jump(S.pos - 1);
  $('btn-fwd').onclick = () => jump(S.pos + 1);
  $('btn-play').onclick = () => (S.playing ? stop() : play());
  $('slider').oninput = (e) => jump(Number(e.target.value));
  $('step-mode').onchange = (e) => { stop(); setMode(e.target.value); e.target.blur(); };
  $('speed').addEventListener('change', (e) => e.target.blur());
  for (const id of ['opt-diff', 'opt-counts', 'opt-lines', 'opt-paths']) $(id).onchange = () => S.boards.forEach(draw);
  $('opt-coords').onchange = () => layout();
  window.addEventListener('resize', () => layout());

  LABELS.forEach((label, i) => {
    const canvas = $('board-' + label);
    const board = () => S.boards[i];
    $('slider-' + label).oninput = (e) => { stop(); focus(i); setPos(Number(e.target.value)); };
    $('svg-' + label).onclick = () => exportSvg(board());
    $('png-' + label).onclick = () => exportPng(board());
    canvas.addEventListener('click', () => focus(i));
    canvas.addEventListener('mousemove', (e) => {
      const b = board();
      if (!b || !b.game || !b.geo) return;
      const rect = canvas.getBoundingClientRect(), N = b.game.N;
      const c = Math.floor((e.clientX - rect.left - b.geo.ox) / b.geo.cell), r = Math.floor((e.clientY - rect.top - b.geo.oy) / b.geo.cell);
      const q = r >= 0 && r < N && c >= 0 && c < N ? b.frame.ids[r * N + c] : -1;
      if (q !== b.hover) { b.hover = q; updateHover(b); draw(b); }
    });
    canvas.addEventListener('mouseleave', () => { const b = board(); if (b && b.hover >= 0) { b.hover = -1; updateHover(b); draw(b); } });
  });

  /** Makes board i the one the controls step in 'alone' mode. */
  function focus(i) {
    S.focus = i;
    LABELS.forEach((l, j) => $('side-' + l).classList.toggle('focus', j === i && S.mode === 'alone'));
    if (S.mode === 'alone' && ready()) setPos(S.boards[i].t);
  }

  window.addEventListener('keydown', (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === 'SELECT' || (tag === 'INPUT' && e.target.type !== 'range' && e.target.type !== 'checkbox')) return;
    if (!ready() || e.ctrlKey || e.metaKey || e.altKey) return;
    const step = e.shiftKey ? 10 : 1;
    switch (e.key) {
      case ' ': S.playing ? stop() : play(); break;
      case 'ArrowLeft': jump(S.pos - step); break;
      case 'ArrowRight': jump(S.pos + step); break;
      case 'Home': jump(0); break;
      case 'End': jump(Number($('slider').max)); break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
  }, true);

  // Hooks for tests and the console.
  window.qaPair = {
    load, setPos: jump, setMode, focus, pos: () => S.pos, play, stop,
    board: (i) => { const b = S.boards[i]; return b && b.game ? { t: b.t, applied: b.game.applied, score: b.game.score(b.t) } : null; },
    game: (i) => (S.boards[i] ? S.boards[i].game : null),
    diffCount: () => S.diffCount, frameSvg: (i) => frameSvg(S.boards[i]),
    loadMs: () => S.loadMs, lastStepMs: () => S.lastStepMs, cell: () => (S.boards[0] && S.boards[0].geo ? S.boards[0].geo.cell : 0),
    playing: () => S.playing,
  };

  const embedded = document.getElementById('qa-data');
  if (embedded) {
    try { load(JSON.parse(embedded.textContent)); } catch (e) { showError('This page cannot show its data: ' + e.message); }
  } else {
    S.boards = LABELS.map((label) => ({ label, canvas: $('board-' + label), hover: -1, t: 0, game: null }));
    showError('This page shows two answers written into it by tester vis --seed S A.out B.out -o PAGE.html; it carries none.');
  }
})();
