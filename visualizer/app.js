/*
 * QueenAttack visualizer, the page: state, the board on screen, the timeline chart, the panel,
 * playback, export, keys and mouse, and the data a `tester vis` page carries. The rules and
 * numbers come from judge.js, the drawing from draw.js, the loading of files from files.js.
 */
(function () {
  'use strict';
  const J = window.QAJudge;
  const { rgbOf, css, colourName, darker, INK, BAD, ACCENT, CanvasPen, SvgPen, labelFont, geometry, coordLabels, paint, download } = window.QADraw;
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- state

  const S = {
    game: null,       // replay result from judge.js
    meta: {},         // seed, p, title, status, stderr
    t: 0,             // frame: board after t moves
    frame: null,      // {grid, ids, lines} at S.t
    playing: false,
    hover: -1,        // hovered queen id
    geo: null,
    lastDrawMs: 0,
  };
  const opt = () => ({
    counts: $('opt-counts').checked,
    lines: $('opt-lines').checked,
    paths: $('opt-paths').checked,
    coords: $('opt-coords').checked,
  });

  /** What paint() (draw.js) draws: frame S.t of the loaded game. */
  const view = () => ({ game: S.game, frame: S.frame, t: S.t, hover: S.hover, opts: opt() });

  // ---------------------------------------------------------------- screen

  const canvas = $('board');

  /** Size of a label as the canvas draws it (digits: the ink's height, not the font's). */
  function measureLabel(text, px) {
    const ctx = canvas.getContext('2d');
    ctx.font = labelFont(px);
    const m = ctx.measureText(text);
    return { w: m.width, h: m.actualBoundingBoxAscent + m.actualBoundingBoxDescent };
  }

  function layout() {
    if (!S.game) return;
    const wrap = $('board-wrap');
    const maxW = wrap.clientWidth;
    const maxH = Math.max(320, window.innerHeight - wrap.getBoundingClientRect().top - document.querySelector('footer').offsetHeight - 24);
    S.geo = geometry(S.game.N, maxW, maxH, opt().coords, measureLabel);
    S.laidOutFor = `${window.innerWidth}x${window.innerHeight}`; // tests wait on it after a resize
    S.cache = new Map(); // pictures depend on the geometry and the board
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(S.geo.w * dpr);
    canvas.height = Math.round(S.geo.h * dpr);
    canvas.style.width = S.geo.w + 'px';
    canvas.style.height = S.geo.h + 'px';
    draw();
  }

  function draw() {
    if (!S.game || !S.geo) return;
    const t0 = performance.now();
    const ctx = canvas.getContext('2d');
    const dpr = canvas.width / S.geo.w;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(new CanvasPen(ctx, S.cache, dpr), S.geo, view());
    S.lastDrawMs = performance.now() - t0;
  }

  // ---------------------------------------------------------------- timeline

  /** Score (line) and errors × N (shaded) over all frames, with the current frame marked. */
  function drawChart() {
    const c = $('chart'), game = S.game;
    const w = c.clientWidth, h = c.clientHeight, dpr = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (!game || w < 10) return;
    const n = game.applied;
    if (!S.chart || S.chart.w !== w || S.chart.game !== game) {
      // One sample per pixel column: the max over the frames it covers.
      const score = new Float64Array(w), err = new Float64Array(w);
      let top = 1e-9;
      for (let x = 0; x < w; x++) {
        const a = Math.floor((x * (n + 1)) / w), b = Math.max(a + 1, Math.floor(((x + 1) * (n + 1)) / w));
        for (let t = a; t < b && t <= n; t++) {
          score[x] = Math.max(score[x], game.score(t));
          err[x] = Math.max(err[x], game.errors[t] * game.N);
        }
        top = Math.max(top, score[x]);
      }
      S.chart = { w, game, score, err, top };
    }
    const { score, err, top } = S.chart;
    const y = (v) => h - 2 - (v / top) * (h - 16);
    ctx.fillStyle = 'rgba(198,40,40,0.16)';
    ctx.beginPath(); ctx.moveTo(0, h);
    for (let x = 0; x < w; x++) ctx.lineTo(x + 0.5, y(err[x]));
    ctx.lineTo(w, h); ctx.closePath(); ctx.fill();
    ctx.strokeStyle = ACCENT; ctx.lineWidth = 1.5; ctx.beginPath();
    for (let x = 0; x < w; x++) (x ? ctx.lineTo : ctx.moveTo).call(ctx, x + 0.5, y(score[x]));
    ctx.stroke();
    const cx = n > 0 ? (S.t / n) * (w - 1) : 0;
    ctx.fillStyle = INK; ctx.fillRect(Math.round(cx) - 1, 0, 2, h);
    ctx.font = '11px system-ui, "DejaVu Sans", sans-serif'; ctx.fillStyle = '#6b7280'; ctx.textBaseline = 'top';
    ctx.textAlign = 'right'; ctx.fillText(`score (line) and errors × N (shaded) over the moves; max ${fmt3(top)}`, w - 4, 1);
    if (game.fatal && game.fatal.kind === 'move') { ctx.fillStyle = BAD; ctx.fillRect(w - 3, 0, 3, h); }
  }

  const fmt3 = (x) => x.toFixed(3);
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const icon = (d) => `<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="${d}" fill="currentColor"/></svg>`;
  const ICON_PLAY = icon('M4 2v12l10-6z'), ICON_PAUSE = icon('M3 2h4v12H3zM9 2h4v12H9z');
  $('play-icon').innerHTML = ICON_PLAY;

  function updatePanel() {
    const game = S.game, t = S.t;
    $('v-move').textContent = t;
    $('v-total').textContent = game.total === null ? '?' : game.total;
    $('v-errors').textContent = game.errors[t];
    $('v-penalty').textContent = fmt3(game.penalty[t]);
    $('v-run').textContent = fmt3(game.run[t]);
    $('score').textContent = fmt3(game.score(t));
    $('score').classList.toggle('invalid', !!game.official);
    $('score').title = game.official ? 'errors × N + penalty of the moves replayed so far; the official score is -1' : 'errors × N + total move penalty';
    const fin = $('v-final');
    const v = S.meta.verdict, cut = S.meta.cut;
    if (cut && !cut.kept && v) {
      // The moves were too many to inline: the Rust judge's verdict is the only one there is.
      fin.innerHTML = v.error === null
        ? `Judge (tester): final score <b id="official-score">${fmt3(v.score)}</b> after ${v.moves} moves`
        : 'Judge (tester): <b>invalid output</b>, official score <b id="official-score">-1.0</b>';
      const note = document.createElement('div');
      note.id = 'judge-check';
      note.className = 'agree';
      note.textContent = `${v.report.replace('\n', ' — ')} (the output, ${cut.bytes} bytes, is too large to replay on this page)`;
      fin.append(note);
    } else if (game.official) {
      fin.innerHTML = 'Judge: <b>invalid output</b>, official score <b id="official-score">-1.0</b>';
    } else {
      fin.innerHTML = `Judge: final score <b id="official-score">${fmt3(game.officialScore)}</b> after ${game.applied} moves`;
    }
    // A page written by `tester vis` carries the Rust judge's verdict: say whether it agrees.
    if (v && !(cut && !cut.kept)) {
      const agree = game.official ? game.official.message === v.error : v.error === null && Math.abs(game.officialScore - v.score) < 1e-9;
      const note = document.createElement('div');
      note.id = 'judge-check';
      note.className = agree ? 'agree' : 'disagree';
      note.textContent = agree ? `✓ tester score: ${v.report.split('\n').pop()}` : `⚠ this page's replay differs from tester score: ${v.report.replace('\n', ' — ')}`;
      if (cut) note.textContent += ` (${cut.bytes - cut.kept} bytes after the last counted move, which the judge ignores, are left out)`;
      fin.append(note);
    }
    const cur = $('v-current');
    if (t > 0) {
      const m = game.moves, i = t - 1, d = Math.max(Math.abs(m[4 * i + 2] - m[4 * i]), Math.abs(m[4 * i + 3] - m[4 * i + 1]));
      const k = game.colourOf[game.queenOf[i]];
      cur.innerHTML = `Move ${t}: <code>${m[4 * i]} ${m[4 * i + 1]} → ${m[4 * i + 2]} ${m[4 * i + 3]}</code> ` +
        `<span style="color:${css(darker(rgbOf(k), 0.75))}">●</span> ${colourName(k)}, penalty √${d} = ${fmt3(Math.sqrt(d))}`;
    } else {
      cur.textContent = 'Start position';
    }
    $('slider').value = t;
    drawChart();
    $('play-icon').innerHTML = S.playing ? ICON_PAUSE : ICON_PLAY;
  }

  function updateHover() {
    const box = $('v-hover');
    if (S.hover < 0 || !S.game) { box.textContent = ''; return; }
    const game = S.game, q = S.hover, path = game.pathOf(q, S.t);
    let cellIdx = -1;
    for (let i = 0; i < game.N * game.N; i++) if (S.frame.ids[i] === q) cellIdx = i;
    if (cellIdx < 0) { box.textContent = ''; return; }
    const r = Math.floor(cellIdx / game.N), c = cellIdx % game.N, k = game.colourOf[q];
    const pen = game.pathPenalty(q, S.t);
    box.innerHTML = `Queen at <code>${r} ${c}</code>, ${colourName(k)}: ${plural(S.frame.lines.attackers(k, r, c), 'attacker')}, ` +
      `${plural(path.length, 'move')} so far (penalty ${fmt3(pen)})`;
  }

  /** Shows frame t (clamped). */
  function setFrame(t, keepHash) {
    if (!S.game) return;
    S.t = Math.max(0, Math.min(S.game.applied, t | 0));
    S.frame = S.game.stateAt(S.t);
    updatePanel();
    updateHover();
    draw();
    if (!keepHash && !S.playing) writeHash();
  }

  function writeHash() {
    const h = '#move=' + (S.t === S.game.applied && S.t > 0 ? 'end' : S.t);
    if (location.hash === h) return;
    try { history.replaceState(null, '', h); } catch (e) { S.ignoreHash = true; location.hash = h; }
  }

  function readHash() {
    const m = /move=(end|\d+)/.exec(location.hash);
    if (!m || !S.game) return null;
    return m[1] === 'end' ? S.game.applied : Number(m[1]);
  }

  // ---------------------------------------------------------------- loading

  function showFatal() {
    const box = $('fatal'), f = S.game && S.game.official;
    if (!f) { box.hidden = true; box.textContent = ''; return; }
    box.hidden = false;
    const where = f.index < 0 ? 'first line (move count)' : 'move ' + (f.index + 1);
    const shown = S.game.fatal && S.game.fatal !== f ? `; the replay stops earlier: ${S.game.fatal.message}` : '';
    box.innerHTML = '';
    const msg = document.createElement('span');
    msg.id = 'fatal-message';
    msg.textContent = f.message;
    const w = document.createElement('span');
    w.className = 'where';
    w.textContent = `Invalid output at ${where}. Moves before it are replayed; the official score is -1.${shown}`;
    box.append(msg, w);
  }

  /** The panel with no case: dashes, never a number that could be read as a score. */
  function clearPanel() {
    for (const id of ['v-seed', 'v-n', 'v-c', 'v-p', 'v-move', 'v-total', 'v-errors', 'v-penalty', 'v-run', 'score']) $(id).textContent = '—';
    $('score').title = 'no case loaded';
    $('score').classList.remove('invalid');
    for (const id of ['v-final', 'v-current', 'v-hover']) $(id).textContent = '';
    $('slider').max = 0;
    $('slider').value = 0;
    drawChart();
  }

  function showError(message) {
    stop();
    S.game = null;
    clearPanel();
    const box = $('fatal');
    box.hidden = false;
    box.textContent = message;
    $('empty-hint').hidden = false;
    canvas.style.display = 'none';
  }

  /** Loads an input text and an output text (null: no moves yet). meta: seed, p, title, ... */
  function load(inputText, outputText, meta) {
    stop();
    const t0 = performance.now();
    let input;
    try { input = J.parseInput(inputText); } catch (e) { showError(e.message); return; }
    const parsed = J.parseOutput(outputText === null ? '0\n' : outputText, input.N);
    S.game = J.replay(input, parsed);
    S.meta = meta || {};
    S.hover = -1;
    S.inputText = inputText; S.outputText = outputText;
    $('v-seed').textContent = S.meta.seed !== undefined && S.meta.seed !== null ? S.meta.seed : '—';
    $('v-n').textContent = input.N;
    $('v-c').textContent = input.C;
    // P is long (Java prints all its digits): four significant digits here, all in the tooltip.
    const hasP = typeof S.meta.p === 'number';
    $('v-p').textContent = hasP ? String(Number(S.meta.p.toPrecision(4))) : '—';
    $('v-p').title = hasP ? String(S.meta.p) : 'not known: the input text does not contain P';
    const notLoaded = S.meta.cut ? `  (output of ${S.meta.cut.bytes} bytes: too large to replay here)` : '  (no output loaded)';
    $('title').textContent = (S.meta.title || '') + (outputText === null ? notLoaded : '') +
      (S.meta.status && S.meta.status !== 'ok' ? '  [' + S.meta.status + ']' : '');
    $('slider').max = S.game.applied;
    $('stderr-box').hidden = !S.meta.stderr;
    $('stderr-text').textContent = S.meta.stderr || '';
    $('empty-hint').hidden = true;
    canvas.style.display = '';
    showFatal();
    renderLegend(input);
    const fromHash = readHash();
    S.t = fromHash === null ? 0 : fromHash;
    S.frame = S.game.stateAt(S.t);
    layout();
    setFrame(S.t);
    S.loadMs = performance.now() - t0;
  }

  function renderLegend(input) {
    const counts = new Array(input.C + 1).fill(0);
    let walls = 0;
    for (const v of input.grid) { if (v > 0) counts[v]++; else if (v < 0) walls++; }
    const el = $('legend');
    el.innerHTML = '';
    for (let k = 1; k <= input.C; k++) {
      const s = document.createElement('span');
      s.innerHTML = `<i style="background:${css(rgbOf(k))}"></i>${colourName(k)} ×${counts[k]}`;
      el.append(s);
    }
    const w = document.createElement('span');
    w.innerHTML = `<i class="wall"></i>wall ×${walls}`;
    el.append(w);
  }

  // ---------------------------------------------------------------- playback

  let raf = 0, lastTs = 0, acc = 0;
  function play() {
    if (!S.game || S.game.applied === 0) return;
    if (S.t >= S.game.applied) setFrame(0, true);
    S.playing = true; lastTs = 0; acc = 0;
    raf = requestAnimationFrame(tick);
    updatePanel();
  }
  function stop() {
    if (!S.playing) return;
    S.playing = false;
    cancelAnimationFrame(raf);
    if (S.game) { updatePanel(); writeHash(); }
  }
  function tick(ts) {
    if (!S.playing) return;
    if (lastTs) acc += ((ts - lastTs) / 1000) * Number($('speed').value);
    lastTs = ts;
    const steps = Math.floor(acc);
    if (steps > 0) {
      acc -= steps;
      setFrame(S.t + steps, true);
      if (S.t >= S.game.applied) { stop(); return; }
    }
    raf = requestAnimationFrame(tick);
  }
  const toggle = () => (S.playing ? stop() : play());
  const jump = (t) => { stop(); setFrame(t); };

  // ---------------------------------------------------------------- export

  const exportName = (ext) => `queenattack${S.meta.seed !== undefined && S.meta.seed !== null ? '-seed' + S.meta.seed : ''}-move${S.t}.${ext}`;

  /** The current frame as an SVG document (same painter as the screen). */
  function frameSvg() {
    const pen = new SvgPen(S.geo.w, S.geo.h);
    paint(pen, S.geo, view());
    return pen.toString();
  }
  function exportSvg() {
    if (!S.game) return;
    download(new Blob([frameSvg()], { type: 'image/svg+xml' }), exportName('svg'));
  }
  function exportPng() {
    if (!S.game) return;
    const scale = 2, c = document.createElement('canvas');
    c.width = S.geo.w * scale; c.height = S.geo.h * scale;
    const ctx = c.getContext('2d');
    ctx.scale(scale, scale);
    paint(new CanvasPen(ctx), S.geo, view());
    c.toBlob((b) => download(b, exportName('png')), 'image/png');
  }

  // ---------------------------------------------------------------- wiring

  $('btn-start').onclick = () => jump(0);
  $('btn-end').onclick = () => jump(S.game ? S.game.applied : 0);
  $('btn-back').onclick = () => jump(S.t - 1);
  $('btn-fwd').onclick = () => jump(S.t + 1);
  $('btn-play').onclick = toggle;
  $('slider').oninput = (e) => { stop(); setFrame(Number(e.target.value)); };
  $('btn-svg').onclick = exportSvg;
  $('speed').addEventListener('change', (e) => e.target.blur()); // give the keys back to the player
  $('chart').addEventListener('click', (e) => {
    if (!S.game) return;
    const r = $('chart').getBoundingClientRect();
    jump(Math.round(((e.clientX - r.left) / Math.max(1, r.width - 1)) * S.game.applied));
  });
  $('btn-png').onclick = exportPng;
  for (const id of ['opt-counts', 'opt-lines', 'opt-paths']) $(id).onchange = () => draw();
  $('opt-coords').onchange = () => layout();
  window.addEventListener('resize', () => layout());
  window.addEventListener('hashchange', () => {
    if (S.ignoreHash) { S.ignoreHash = false; return; }
    const t = readHash();
    if (t !== null && t !== S.t) jump(t);
  });

  window.addEventListener('keydown', (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && e.target.type !== 'range' && e.target.type !== 'checkbox')) return;
    if (!S.game || e.ctrlKey || e.metaKey || e.altKey) return;
    const step = e.shiftKey ? 10 : 1;
    switch (e.key) {
      case ' ': toggle(); break;
      case 'ArrowLeft': jump(S.t - step); break;
      case 'ArrowRight': jump(S.t + step); break;
      case 'Home': jump(0); break;
      case 'End': jump(S.game.applied); break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
  }, true);

  canvas.addEventListener('mousemove', (e) => {
    if (!S.game || !S.geo) return;
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - rect.left - S.geo.ox) / S.geo.cell);
    const r = Math.floor((e.clientY - rect.top - S.geo.oy) / S.geo.cell);
    const N = S.game.N;
    const q = r >= 0 && r < N && c >= 0 && c < N ? S.frame.ids[r * N + c] : -1;
    if (q !== S.hover) { S.hover = q; updateHover(); draw(); }
  });
  canvas.addEventListener('mouseleave', () => { if (S.hover >= 0) { S.hover = -1; updateHover(); draw(); } });

  window.QAFiles.wire({ load, showError, fmt3 });

  // Hooks for tests and the console.
  window.qaVis = {
    load, setFrame: (t) => jump(t), frame: () => S.t, game: () => S.game,
    lastDrawMs: () => S.lastDrawMs, frameSvg, play, stop,
    cell: () => S.geo.cell, margin: () => S.geo.ox, loadMs: () => S.loadMs,
    coordLabels: () => (S.geo ? coordLabels(S.geo) : []),
    laidOutFor: () => S.laidOutFor || null,
    playing: () => S.playing, seed: () => S.meta.seed, // for record.js
  };

  // A page written by `tester vis` carries its data.
  const embedded = document.getElementById('qa-data');
  if (embedded) {
    const d = JSON.parse(embedded.textContent);
    load(d.input, d.output === undefined ? null : d.output, { seed: d.seed, p: d.p, title: d.title, verdict: d.verdict, cut: d.output_cut });
  }
})();
