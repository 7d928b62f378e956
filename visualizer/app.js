/*
 * QueenAttack visualizer: loading (pickers, drag and drop, run folders, paste, embedded data),
 * drawing (one painter, two back ends: canvas on screen and SVG for export) and controls.
 * The rules and numbers come from judge.js.
 */
(function () {
  'use strict';
  const J = window.QAJudge;
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- colours

  /** Colours 1..6 of the official tester (Java's Color constants and its brown). */
  const OFFICIAL = [[0, 255, 255], [255, 0, 0], [0, 255, 0], [255, 0, 255], [255, 200, 0], [153, 102, 0]];
  const OFFICIAL_NAMES = ['cyan', 'red', 'green', 'magenta', 'orange', 'brown'];

  function hslToRgb(h, s, l) {
    const f = (n) => {
      const k = (n + h / 30) % 12;
      const a = s * Math.min(l, 1 - l);
      return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
    };
    return [f(0), f(8), f(4)];
  }
  /** Colours 7..16: picked to stay apart from the official six and from the gray walls. */
  const EXTRA = [[30, 80, 200], [128, 128, 0], [255, 150, 190], [110, 50, 170], [0, 128, 128],
    [128, 0, 0], [255, 120, 80], [20, 20, 20], [90, 200, 150], [180, 140, 255]];
  /** RGB of colour k (1-based); past the fixed ones, hues spread by the golden angle. */
  function rgbOf(k) {
    if (k >= 1 && k <= 6) return OFFICIAL[k - 1];
    if (k <= 6 + EXTRA.length) return EXTRA[k - 7];
    const i = k - 7 - EXTRA.length;
    return hslToRgb((i * 137.508 + 200) % 360, 0.55 + 0.2 * (i % 2), 0.45 + 0.1 * ((i >> 1) % 2));
  }
  const css = (rgb, a) => (a === undefined ? `rgb(${rgb[0]},${rgb[1]},${rgb[2]})` : `rgba(${rgb[0]},${rgb[1]},${rgb[2]},${a})`);
  const colourName = (k) => (k <= 6 ? OFFICIAL_NAMES[k - 1] : 'colour ' + k);
  /** Dark or light ink, whichever reads better on rgb. */
  function inkOn(rgb) {
    const lum = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;
    return lum > 0.5 ? '#111' : '#fff';
  }
  /** A darker shade for strokes of light colours (cyan, green) on the light board. */
  const darker = (rgb, f) => rgb.map((v) => Math.round(v * f));

  const WALL = '#8c8c8c', CELL_A = '#f4f0e6', CELL_B = '#e7e1d3', BG = '#f5f3ee', INK = '#1f2328', BAD = '#c62828', ACCENT = '#2f6fde';

  // ---------------------------------------------------------------- drawing back ends

  /**
   * Draws on a 2D canvas context. With a cache (a Map), parts that repeat (the board, each kind
   * of queen) are drawn once into off-screen canvases and then copied: a frame is then a few
   * hundred image copies, which keeps jumps fast even with software rendering.
   */
  class CanvasPen {
    constructor(ctx, cache, scale) { this.c = ctx; this.cache = cache || null; this.scale = scale || 1; }
    /** Draws draw(pen, x0, y0) (a picture in the box at x0,y0 of size w,h), cached under key. */
    cached(key, x, y, w, h, draw) {
      if (!this.cache) { draw(this, x, y); return; }
      let img = this.cache.get(key);
      if (!img) {
        img = document.createElement('canvas');
        img.width = Math.ceil(w * this.scale); img.height = Math.ceil(h * this.scale);
        const ctx = img.getContext('2d');
        ctx.scale(this.scale, this.scale);
        draw(new CanvasPen(ctx), 0, 0);
        this.cache.set(key, img);
      }
      this.c.drawImage(img, x, y, img.width / this.scale, img.height / this.scale);
    }
    rect(x, y, w, h, fill, stroke, lw, dash) {
      const c = this.c;
      if (fill) { c.fillStyle = fill; c.fillRect(x, y, w, h); }
      if (stroke) { c.setLineDash(dash || []); c.strokeStyle = stroke; c.lineWidth = lw || 1; c.strokeRect(x, y, w, h); c.setLineDash([]); }
    }
    circle(x, y, r, fill, stroke, lw) {
      const c = this.c;
      c.beginPath(); c.arc(x, y, r, 0, 2 * Math.PI);
      if (fill) { c.fillStyle = fill; c.fill(); }
      if (stroke) { c.strokeStyle = stroke; c.lineWidth = lw || 1; c.stroke(); }
    }
    poly(pts, stroke, lw, alpha, dash) {
      const c = this.c;
      c.globalAlpha = alpha === undefined ? 1 : alpha;
      c.setLineDash(dash || []);
      c.beginPath(); c.moveTo(pts[0], pts[1]);
      for (let i = 2; i < pts.length; i += 2) c.lineTo(pts[i], pts[i + 1]);
      c.strokeStyle = stroke; c.lineWidth = lw; c.lineCap = 'round'; c.lineJoin = 'round'; c.stroke();
      c.setLineDash([]); c.globalAlpha = 1;
    }
    polygon(pts, fill) {
      const c = this.c;
      c.beginPath(); c.moveTo(pts[0], pts[1]);
      for (let i = 2; i < pts.length; i += 2) c.lineTo(pts[i], pts[i + 1]);
      c.closePath(); c.fillStyle = fill; c.fill();
    }
    text(x, y, s, size, fill, weight, anchor) {
      const c = this.c;
      c.font = `${weight || 400} ${size}px system-ui, "DejaVu Sans", sans-serif`;
      c.fillStyle = fill; c.textAlign = anchor || 'center'; c.textBaseline = 'middle';
      c.fillText(s, x, y);
    }
  }

  /** Writes the same drawing as an SVG document. */
  class SvgPen {
    constructor(w, h) { this.w = w; this.h = h; this.out = []; }
    static n(v) { return Math.round(v * 100) / 100; }
    cached(key, x, y, w, h, draw) { draw(this, x, y); }
    rect(x, y, w, h, fill, stroke, lw, dash) {
      const n = SvgPen.n;
      this.out.push(`<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" fill="${fill || 'none'}"` +
        (stroke ? ` stroke="${stroke}" stroke-width="${lw || 1}"` + (dash ? ` stroke-dasharray="${dash.join(' ')}"` : '') : '') + '/>');
    }
    circle(x, y, r, fill, stroke, lw) {
      const n = SvgPen.n;
      this.out.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${fill || 'none'}"` +
        (stroke ? ` stroke="${stroke}" stroke-width="${lw || 1}"` : '') + '/>');
    }
    poly(pts, stroke, lw, alpha, dash) {
      const p = [];
      for (let i = 0; i < pts.length; i += 2) p.push(SvgPen.n(pts[i]) + ',' + SvgPen.n(pts[i + 1]));
      this.out.push(`<polyline points="${p.join(' ')}" fill="none" stroke="${stroke}" stroke-width="${lw}" stroke-linecap="round" stroke-linejoin="round"` +
        (alpha !== undefined && alpha < 1 ? ` stroke-opacity="${alpha}"` : '') + (dash ? ` stroke-dasharray="${dash.join(' ')}"` : '') + '/>');
    }
    polygon(pts, fill) {
      const p = [];
      for (let i = 0; i < pts.length; i += 2) p.push(SvgPen.n(pts[i]) + ',' + SvgPen.n(pts[i + 1]));
      this.out.push(`<polygon points="${p.join(' ')}" fill="${fill}"/>`);
    }
    text(x, y, s, size, fill, weight, anchor) {
      const a = { left: 'start', right: 'end', center: 'middle' }[anchor || 'center'];
      const esc = String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
      this.out.push(`<text x="${SvgPen.n(x)}" y="${SvgPen.n(y)}" font-size="${size}" font-weight="${weight || 400}" fill="${fill}" text-anchor="${a}" dominant-baseline="central">${esc}</text>`);
    }
    toString() {
      return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.w}" height="${this.h}" viewBox="0 0 ${this.w} ${this.h}" font-family="system-ui, DejaVu Sans, sans-serif">\n` +
        this.out.join('\n') + '\n</svg>\n';
    }
  }

  // ---------------------------------------------------------------- state

  const S = {
    game: null,       // replay result from judge.js
    meta: {},         // seed, p, title, status, stderr
    t: 0,             // frame: board after t moves
    frame: null,      // {grid, ids, lines} at S.t
    playing: false,
    hover: -1,        // hovered queen id
    geo: null,
    folder: null,     // {files: Map name -> File, results: Map seed -> row}
    lastDrawMs: 0,
  };
  const opt = () => ({
    counts: $('opt-counts').checked,
    lines: $('opt-lines').checked,
    paths: $('opt-paths').checked,
    coords: $('opt-coords').checked,
  });

  // ---------------------------------------------------------------- painter

  /** Font of the coordinate labels at size px (the painters' text font). */
  const labelFont = (px) => `400 ${px}px system-ui, "DejaVu Sans", sans-serif`;
  /** Label steps: every label, then every 2nd, 5th, 10th, … when they would overlap. */
  const LABEL_STEPS = [1, 2, 5, 10, 20, 50, 100];
  /** Free space kept between two labels (px). */
  const LABEL_GAP = 3;

  /**
   * Board geometry for a pixel budget: cell size, offsets (room for coordinates) and which
   * coordinate labels fit. measure(text, px) gives the drawn {w, h} of a label: the column
   * labels (side by side) need the widest label's width per step, the row labels (stacked) its
   * height, so at N = 80 only every 5th or 10th label is drawn.
   */
  function geometry(N, maxW, maxH, coords, measure) {
    let margin = coords ? Math.max(14, Math.min(22, Math.floor(Math.min(maxW, maxH) / (N + 1) * 0.8))) : 6;
    const fs = Math.max(8, Math.min(12, Math.floor(margin * 0.55)));
    const widest = coords ? measure(String(N - 1), fs) : { w: 0, h: 0 };
    if (coords) margin = Math.max(margin, Math.ceil(widest.w) + 2 * LABEL_GAP);
    // 4 px still shows a queen's colour: N = 80 fits an 800×600 window.
    const cell = Math.max(4, Math.floor(Math.min((maxW - margin - 6) / N, (maxH - margin - 6) / N)));
    const step = (need) => LABEL_STEPS.find((k) => k * cell >= need + LABEL_GAP) || N;
    return {
      N, cell, ox: margin, oy: margin, w: margin + cell * N + 6, h: margin + cell * N + 6, coords,
      labelPx: fs, colStep: step(widest.w), rowStep: step(widest.h),
    };
  }

  /** The coordinate labels geometry g draws: {axis, text, x, y, font} (centres, CSS px). */
  function coordLabels(g) {
    const out = [];
    if (!g.coords) return out;
    const font = labelFont(g.labelPx);
    for (let i = 0; i < g.N; i++) {
      const at = g.ox + (i + 0.5) * g.cell;
      if (i % g.colStep === 0) out.push({ axis: 'col', text: String(i), x: at, y: g.oy / 2, font });
      if (i % g.rowStep === 0) out.push({ axis: 'row', text: String(i), x: g.ox / 2, y: at, font });
    }
    return out;
  }

  /** An arrow from (x1,y1) towards (x2,y2) that stops `gap` short (not to hide the queen's number). */
  function arrow(pen, x1, y1, x2, y2, colour, lw, halo, gap) {
    let dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy);
    if (len < 1) return;
    const ux = dx / len, uy = dy / len, head = Math.max(8, lw * 3.2);
    if (gap && len - gap > head * 1.5) { x2 -= ux * gap; y2 -= uy * gap; }
    const bx = x2 - ux * head, by = y2 - uy * head;
    if (halo) pen.poly([x1, y1, bx, by], halo, lw + 3, 0.9);
    pen.poly([x1, y1, bx, by], colour, lw);
    const px = -uy * head * 0.55, py = ux * head * 0.55;
    if (halo) pen.polygon([x2 + ux * 1.5, y2 + uy * 1.5, bx + px * 1.25 - ux, by + py * 1.25 - uy, bx - px * 1.25 - ux, by - py * 1.25 - uy], halo);
    pen.polygon([x2, y2, bx + px, by + py, bx - px, by - py], colour);
  }

  /** Paints frame S.t of the loaded game with geometry g on any pen. */
  function paint(pen, g) {
    const game = S.game, N = game.N, cell = g.cell, o = opt();
    const { grid, ids, lines } = S.frame;
    const cx = (c) => g.ox + (c + 0.5) * cell, cy = (r) => g.oy + (r + 0.5) * cell;
    // Board and walls (walls never move: one picture for the whole replay).
    pen.cached('board', 0, 0, g.w, g.h, (p) => {
      p.rect(0, 0, g.w, g.h, BG);
      for (let r = 0; r < N; r++) {
        for (let c = 0; c < N; c++) {
          const v = grid[r * N + c];
          p.rect(g.ox + c * cell, g.oy + r * cell, cell, cell, v < 0 ? WALL : ((r + c) & 1 ? CELL_B : CELL_A));
        }
      }
      p.rect(g.ox, g.oy, cell * N, cell * N, null, '#6f6a60', 1);
      for (const l of coordLabels(g)) p.text(l.x, l.y, l.text, g.labelPx, '#8a8478', 400);
    });

    // The current move's cells.
    const t = S.t;
    if (t > 0) {
      const m = game.moves, i = t - 1;
      pen.rect(g.ox + m[4 * i + 1] * cell + 1, g.oy + m[4 * i] * cell + 1, cell - 2, cell - 2, 'rgba(47,111,222,0.10)', ACCENT, 1.5, [3, 3]);
      pen.rect(g.ox + m[4 * i + 3] * cell + 1, g.oy + m[4 * i + 2] * cell + 1, cell - 2, cell - 2, 'rgba(47,111,222,0.18)', ACCENT, 2);
    }

    // Attack lines: every same-colour pair on a line, drawn as segments between neighbours.
    const dirs = [[0, 1], [1, 0], [1, 1], [1, -1]];
    if (o.lines) {
      for (let r = 0; r < N; r++) {
        for (let c = 0; c < N; c++) {
          const k = grid[r * N + c];
          if (k <= 0) continue;
          for (const [dr, dc] of dirs) {
            for (let rr = r + dr, cc = c + dc; rr >= 0 && rr < N && cc >= 0 && cc < N; rr += dr, cc += dc) {
              if (grid[rr * N + cc] === k) {
                pen.poly([cx(c), cy(r), cx(cc), cy(rr)], css(darker(rgbOf(k), 0.8)), Math.max(1.5, cell * 0.07), 0.6);
                break;
              }
            }
          }
        }
      }
    }

    // Travelled paths.
    const pathPts = (q) => {
      const list = game.pathOf(q, t);
      if (list.length === 0) return null;
      const m = game.moves, pts = [cx(m[4 * list[0] + 1]), cy(m[4 * list[0]])];
      for (const i of list) pts.push(cx(m[4 * i + 3]), cy(m[4 * i + 2]));
      return pts;
    };
    const drawPath = (q, strong) => {
      const pts = pathPts(q);
      if (!pts) return;
      const rgb = rgbOf(game.colourOf[q]);
      pen.poly(pts, INK, (strong ? 0.16 : 0.09) * cell + 2, strong ? 0.55 : 0.25);
      pen.poly(pts, css(rgb), (strong ? 0.16 : 0.09) * cell, strong ? 1 : 0.8);
      pen.circle(pts[0], pts[1], cell * (strong ? 0.16 : 0.1), css(rgb), INK, 1);
      if (strong) for (let i = 2; i < pts.length - 2; i += 2) pen.circle(pts[i], pts[i + 1], cell * 0.08, INK);
    };
    if (o.paths) for (let q = 0; q < game.queens; q++) drawPath(q, false);

    // The hovered queen: its path and the queens attacking it.
    let hoverCell = -1;
    if (S.hover >= 0) {
      for (let i = 0; i < N * N; i++) if (ids[i] === S.hover) hoverCell = i;
      if (hoverCell >= 0) {
        const r = Math.floor(hoverCell / N), c = hoverCell % N, k = grid[hoverCell];
        for (const [dr, dc] of [...dirs, [0, -1], [-1, 0], [-1, -1], [-1, 1]]) {
          for (let rr = r + dr, cc = c + dc; rr >= 0 && rr < N && cc >= 0 && cc < N; rr += dr, cc += dc) {
            if (grid[rr * N + cc] === k) pen.poly([cx(c), cy(r), cx(cc), cy(rr)], BAD, Math.max(1.5, cell * 0.08), 0.75, [6, 4]);
          }
        }
        drawPath(S.hover, true);
      }
    }

    // Queens with their attacker counts.
    const rad = cell * 0.38, fs = Math.max(7, Math.round(cell * 0.44)), half = Math.ceil(rad + 3);
    const thin = Math.min(1, cell / 12); // on small cells a full outline would hide the colour
    for (let r = 0; r < N; r++) {
      for (let c = 0; c < N; c++) {
        const k = grid[r * N + c];
        if (k <= 0) continue;
        const rgb = rgbOf(k), a = lines.attackers(k, r, c);
        const hot = r * N + c === hoverCell, label = o.counts && cell >= 9;
        // Every queen of one colour and count looks the same: one cached picture each.
        const x0 = Math.floor(cx(c) - half), y0 = Math.floor(cy(r) - half);
        pen.cached(`q${k}:${a}:${hot}:${label}`, x0, y0, 2 * half, 2 * half, (p, bx, by) => {
          const qx = bx + (cx(c) - x0), qy = by + (cy(r) - y0);
          p.circle(qx, qy, rad, css(rgb), a > 0 ? '#3a0d0d' : INK, (hot ? 3 : a > 0 ? 1.6 : 1) * thin);
          if (label) p.text(qx, qy + 0.5, String(a), fs, inkOn(rgb), a > 0 ? 700 : 400);
        });
      }
    }

    // The current move's arrow.
    if (t > 0) {
      const m = game.moves, i = t - 1;
      arrow(pen, cx(m[4 * i + 1]), cy(m[4 * i]), cx(m[4 * i + 3]), cy(m[4 * i + 2]), INK, Math.max(2, cell * 0.09), 'rgba(255,255,255,0.9)', cell * 0.3);
    }

    // The illegal move, on the last frame.
    const f = game.fatal;
    if (f && f.kind === 'move' && t === game.applied) {
      const [r1, c1, r2, c2] = f.move;
      const inG = (r, c) => r >= 0 && r < N && c >= 0 && c < N;
      if (inG(r1, c1)) pen.rect(g.ox + c1 * cell + 1, g.oy + r1 * cell + 1, cell - 2, cell - 2, 'rgba(198,40,40,0.15)', BAD, 2.5, [4, 3]);
      if (inG(r2, c2)) pen.rect(g.ox + c2 * cell + 1, g.oy + r2 * cell + 1, cell - 2, cell - 2, 'rgba(198,40,40,0.25)', BAD, 2.5);
      if (inG(r1, c1) && inG(r2, c2) && (r1 !== r2 || c1 !== c2)) {
        arrow(pen, cx(c1), cy(r1), cx(c2), cy(r2), BAD, Math.max(2, cell * 0.1), 'rgba(255,255,255,0.9)');
      }
      if (inG(r2, c2)) {
        const d = cell * 0.22;
        pen.poly([cx(c2) - d, cy(r2) - d, cx(c2) + d, cy(r2) + d], BAD, 3);
        pen.poly([cx(c2) - d, cy(r2) + d, cx(c2) + d, cy(r2) - d], BAD, 3);
      }
    }
  }

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
    paint(new CanvasPen(ctx, S.cache, dpr), S.geo);
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
    if (game.official) {
      fin.innerHTML = 'Judge: <b>invalid output</b>, official score <b id="official-score">-1.0</b>';
    } else {
      fin.innerHTML = `Judge: final score <b id="official-score">${fmt3(game.officialScore)}</b> after ${game.applied} moves`;
    }
    // A page written by `tester vis` carries the Rust judge's verdict: say whether it agrees.
    const v = S.meta.verdict;
    if (v) {
      const agree = game.official ? game.official.message === v.error : v.error === null && Math.abs(game.officialScore - v.score) < 1e-9;
      const note = document.createElement('div');
      note.id = 'judge-check';
      note.className = agree ? 'agree' : 'disagree';
      note.textContent = agree ? `✓ tester score: ${v.report.split('\n').pop()}` : `⚠ this page's replay differs from tester score: ${v.report.replace('\n', ' — ')}`;
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
    let pen = 0;
    for (const i of path) {
      const m = game.moves;
      pen += Math.sqrt(Math.max(Math.abs(m[4 * i + 2] - m[4 * i]), Math.abs(m[4 * i + 3] - m[4 * i + 1])));
    }
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
    $('title').textContent = (S.meta.title || '') + (outputText === null ? '  (no output loaded)' : '') +
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

  // Like the judge: invalid UTF-8 becomes U+FFFD and a byte order mark stays (Java keeps it,
  // so an output starting with one does not parse); File.text() would drop it.
  const readText = async (file) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(await file.arrayBuffer());
  const stemOf = (name) => name.replace(/^.*\//, '').replace(/\.[^.]*$/, '');
  const seedOf = (name) => { const m = /^(\d+)$/.exec(stemOf(name)); return m ? Number(m[1]) : null; };

  /** Looks like an input: N, C and exactly N*N cells. */
  function looksLikeInput(text) {
    const tok = text.trim().split(/\s+/);
    const N = Number(tok[0]);
    return Number.isInteger(N) && N >= 1 && tok.length === 2 + N * N;
  }

  const pending = { input: null, output: null, meta: {} };

  /** Handles a set of files from a picker or a drop: a run folder, a pair, or one file. */
  async function takeFiles(files) {
    files = files.filter((f) => !/^\./.test(f.name));
    const byName = new Map(files.map((f) => [(f.webkitRelativePath || f.relPath || f.name).replace(/^.*\//, ''), f]));
    const seeds = [...byName.keys()].map((n) => (/^(\d+)\.in$/.exec(n) || [])[1]).filter((s) => s !== undefined && byName.has(s + '.out'));
    if (seeds.length > 0 && (seeds.length > 1 || byName.has('results.json'))) {
      await openFolder(byName, seeds.map(Number).sort((a, b) => a - b));
      return;
    }
    for (const f of files) {
      if (/\.(json|err)$/.test(f.name)) continue;
      const text = await readText(f);
      if (/\.in$/.test(f.name) || (!/\.out$/.test(f.name) && looksLikeInput(text))) {
        pending.input = text;
        pending.meta = { seed: seedOf(f.name), title: f.name };
      } else {
        pending.output = text;
        pending.outName = f.name;
      }
    }
    if (pending.input !== null) {
      const meta = Object.assign({}, pending.meta);
      if (pending.outName) meta.title = (meta.title || '') + ' + ' + pending.outName;
      $('seed-select').hidden = true;
      load(pending.input, pending.output, meta);
    } else {
      showError('Output loaded; now load the input it belongs to.');
    }
  }

  async function openFolder(byName, seeds) {
    let results = new Map();
    if (byName.has('results.json')) {
      try {
        const j = JSON.parse(await readText(byName.get('results.json')));
        const rows = Array.isArray(j) ? j : (j.results || j.seeds || []);
        for (const row of rows) if (row && row.seed !== undefined) results.set(Number(row.seed), row);
      } catch (e) { /* a broken results.json only loses P and status */ }
    }
    S.folder = { byName, results };
    const sel = $('seed-select');
    sel.innerHTML = '';
    for (const s of seeds) {
      const o = document.createElement('option');
      const row = results.get(s);
      o.value = s;
      o.textContent = 'seed ' + s + (row && typeof row.score === 'number' ? ' — ' + (row.score < 0 ? row.status || '-1' : fmt3(row.score)) : '');
      sel.append(o);
    }
    sel.hidden = false;
    await openSeed(seeds[0]);
  }

  async function openSeed(seed) {
    const f = S.folder;
    $('seed-select').value = String(seed);
    const row = f.results.get(seed) || {};
    const input = await readText(f.byName.get(seed + '.in'));
    const output = await readText(f.byName.get(seed + '.out'));
    const err = f.byName.has(seed + '.err') ? await readText(f.byName.get(seed + '.err')) : '';
    load(input, output, { seed, p: typeof row.P === 'number' ? row.P : row.p, status: row.status, title: 'run folder, seed ' + seed, stderr: err });
  }

  /** Files of a drop, walking into folders. */
  async function droppedFiles(dt) {
    const out = [];
    const entries = [...dt.items].map((it) => (it.webkitGetAsEntry ? it.webkitGetAsEntry() : null));
    if (entries.some((e) => e)) {
      const walk = async (e) => {
        if (!e) return;
        if (e.isFile) out.push(await new Promise((res, rej) => e.file(res, rej)));
        else if (e.isDirectory) {
          const reader = e.createReader();
          for (;;) {
            const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
            if (batch.length === 0) break;
            for (const c of batch) await walk(c);
          }
        }
      };
      for (const e of entries) await walk(e);
      return out;
    }
    return [...dt.files];
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

  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  const exportName = (ext) => `queenattack${S.meta.seed !== undefined && S.meta.seed !== null ? '-seed' + S.meta.seed : ''}-move${S.t}.${ext}`;

  /** The current frame as an SVG document (same painter as the screen). */
  function frameSvg() {
    const pen = new SvgPen(S.geo.w, S.geo.h);
    paint(pen, S.geo);
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
    paint(new CanvasPen(ctx), S.geo);
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

  const pick = (id, f) => $(id).addEventListener('change', (e) => { if (e.target.files.length) f([...e.target.files]); e.target.value = ''; });
  pick('pick-input', async (files) => {
    pending.input = await readText(files[0]);
    pending.meta = { seed: seedOf(files[0].name), title: files[0].name };
    $('seed-select').hidden = true;
    load(pending.input, pending.output, pending.meta);
  });
  pick('pick-output', async (files) => {
    pending.output = await readText(files[0]);
    pending.outName = files[0].name;
    if (pending.input !== null) load(pending.input, pending.output, Object.assign({}, pending.meta, { title: (pending.meta.title || '') + ' + ' + files[0].name }));
  });
  pick('pick-folder', (files) => takeFiles(files));
  $('seed-select').onchange = (e) => openSeed(Number(e.target.value));
  $('toggle-paste').onclick = () => { $('paste').hidden = !$('paste').hidden; };
  $('paste-load').onclick = () => {
    const inp = $('paste-input').value, out = $('paste-output').value;
    pending.input = inp; pending.output = out.trim() === '' ? null : out; pending.meta = { title: 'pasted' };
    $('seed-select').hidden = true;
    load(inp, pending.output, pending.meta);
  };

  let dragDepth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('drop-veil').hidden = false; });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('drop-veil').hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', async (e) => {
    if (e.target && e.target.tagName === 'TEXTAREA' && e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    dragDepth = 0; $('drop-veil').hidden = true;
    const files = await droppedFiles(e.dataTransfer);
    if (files.length) takeFiles(files);
  });

  // Hooks for tests and the console.
  window.qaVis = {
    load, setFrame: (t) => jump(t), frame: () => S.t, game: () => S.game,
    lastDrawMs: () => S.lastDrawMs, frameSvg, play, stop,
    cell: () => S.geo.cell, margin: () => S.geo.ox, loadMs: () => S.loadMs,
    coordLabels: () => (S.geo ? coordLabels(S.geo) : []),
  };

  // A page written by `tester vis` carries its data.
  const embedded = document.getElementById('qa-data');
  if (embedded) {
    const d = JSON.parse(embedded.textContent);
    load(d.input, d.output === undefined ? null : d.output, { seed: d.seed, p: d.p, title: d.title, verdict: d.verdict });
  }
})();
