/*
 * QueenAttack visualizer, drawing: colours, the two drawing back ends (canvas on screen, SVG for
 * export), board geometry with its coordinate labels, the painter of one frame, and the download
 * of an exported file. Nothing here reads the page: app.js and pair.js pass in what to draw.
 * Exports window.QADraw.
 */
(function () {
  'use strict';

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
    /** Separate straight pieces [x1, y1, x2, y2, ...] in one stroke (round caps). */
    pieces(seg, stroke, lw, alpha) {
      const c = this.c;
      c.globalAlpha = alpha === undefined ? 1 : alpha;
      c.beginPath();
      for (let i = 0; i < seg.length; i += 4) { c.moveTo(seg[i], seg[i + 1]); c.lineTo(seg[i + 2], seg[i + 3]); }
      c.strokeStyle = stroke; c.lineWidth = lw; c.lineCap = 'round'; c.stroke();
      c.globalAlpha = 1;
    }
    /** Filled dots of radius r at [x, y, ...], in one fill. */
    dots(pts, r, fill) {
      const c = this.c;
      c.beginPath();
      for (let i = 0; i < pts.length; i += 2) { c.moveTo(pts[i] + r, pts[i + 1]); c.arc(pts[i], pts[i + 1], r, 0, 2 * Math.PI); }
      c.fillStyle = fill; c.fill();
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
    pieces(seg, stroke, lw, alpha) {
      const n = SvgPen.n, d = [];
      for (let i = 0; i < seg.length; i += 4) d.push(`M${n(seg[i])} ${n(seg[i + 1])}L${n(seg[i + 2])} ${n(seg[i + 3])}`);
      this.out.push(`<path d="${d.join('')}" fill="none" stroke="${stroke}" stroke-width="${lw}" stroke-linecap="round"` +
        (alpha !== undefined && alpha < 1 ? ` stroke-opacity="${alpha}"` : '') + '/>');
    }
    dots(pts, r, fill) { for (let i = 0; i < pts.length; i += 2) this.circle(pts[i], pts[i + 1], r, fill); }
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

  /** The centre of column c and of row r in geometry g (CSS px): [cx, cy]. */
  const centres = (g) => [(c) => g.ox + (c + 0.5) * g.cell, (r) => g.oy + (r + 0.5) * g.cell];
  /** The four line directions; with their opposites, the eight a queen attacks along. */
  const DIRS = [[0, 1], [1, 0], [1, 1], [1, -1]];

  /**
   * Paints one frame with geometry g on any pen. view: game (the replay from judge.js), frame
   * ({grid, ids, lines}: the board after t moves), t, hover (hovered queen id or -1) and opts
   * ({counts, lines, paths, coords}: the Show check boxes).
   */
  function paint(pen, g, view) {
    const game = view.game, t = view.t, [cx, cy] = centres(g);
    paintBoard(pen, g, view.frame.grid);
    if (t > 0) paintMoveCells(pen, g, game.moves, t - 1);
    if (view.opts.lines) paintAttackLines(pen, g, view.frame.grid);
    if (view.opts.paths) for (let q = 0; q < game.queens; q++) paintPath(pen, g, view, q, false);
    const hoverCell = paintHover(pen, g, view);
    paintQueens(pen, g, view, hoverCell);
    // The current move's arrow.
    if (t > 0) {
      const m = game.moves, i = t - 1;
      arrow(pen, cx(m[4 * i + 1]), cy(m[4 * i]), cx(m[4 * i + 3]), cy(m[4 * i + 2]), INK, Math.max(2, g.cell * 0.09), 'rgba(255,255,255,0.9)', g.cell * 0.3);
    }
    if (game.fatal && game.fatal.kind === 'move' && t === game.applied) paintIllegalMove(pen, g, game.fatal.move);
  }

  /** Board and walls (walls never move: one picture for the whole replay). */
  function paintBoard(pen, g, grid) {
    const N = g.N, cell = g.cell;
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
  }

  /** The cells of move i (0-based): where it starts (dashed) and where it ends. */
  function paintMoveCells(pen, g, m, i) {
    const cell = g.cell;
    pen.rect(g.ox + m[4 * i + 1] * cell + 1, g.oy + m[4 * i] * cell + 1, cell - 2, cell - 2, 'rgba(47,111,222,0.10)', ACCENT, 1.5, [3, 3]);
    pen.rect(g.ox + m[4 * i + 3] * cell + 1, g.oy + m[4 * i + 2] * cell + 1, cell - 2, cell - 2, 'rgba(47,111,222,0.18)', ACCENT, 2);
  }

  /** Attack lines: every same-colour pair on a line, drawn as segments between neighbours. */
  function paintAttackLines(pen, g, grid) {
    const N = g.N, cell = g.cell, [cx, cy] = centres(g);
    for (let r = 0; r < N; r++) {
      for (let c = 0; c < N; c++) {
        const k = grid[r * N + c];
        if (k <= 0) continue;
        for (const [dr, dc] of DIRS) {
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

  /**
   * The moves `list` (indices into the flat moves m) as straight pieces [r1, c1, r2, c2, ...]:
   * every move lies on a row, column or diagonal, and pieces of one line that overlap or touch
   * are merged. A round-capped stroke of the pieces covers exactly what a stroke of the path
   * covers, with at most 6N lines × N/2 pieces however long the path: hovering a queen of
   * 200 000 moves (N = 60) drew 200 000 segments and dots, about 1.3 s, before.
   */
  function pathPieces(m, list, N) {
    const L = 6 * N, reach = new Int32Array(L * N).fill(-1), used = new Uint8Array(L);
    for (let j = 0; j < list.length; j++) {
      const i = list[j], r1 = m[4 * i], c1 = m[4 * i + 1], r2 = m[4 * i + 2], c2 = m[4 * i + 3];
      let key, a, b;
      if (r1 === r2) { key = r1; a = c1; b = c2; } else if (c1 === c2) { key = N + c1; a = r1; b = r2; } else if (r2 - r1 === c2 - c1) { key = 2 * N + (r1 - c1 + N - 1); a = r1; b = r2; } else { key = 4 * N - 1 + r1 + c1; a = r1; b = r2; }
      if (a > b) { const x = a; a = b; b = x; }
      if (b > reach[key * N + a]) reach[key * N + a] = b;
      used[key] = 1;
    }
    const out = [];
    const push = (key, a, b) => {
      if (key < N) out.push(key, a, key, b);
      else if (key < 2 * N) out.push(a, key - N, b, key - N);
      else if (key < 4 * N - 1) { const d = key - 2 * N - (N - 1); out.push(a, a - d, b, b - d); } else { const s = key - (4 * N - 1); out.push(a, s - a, b, s - b); }
    };
    for (let key = 0; key < L; key++) {
      if (!used[key]) continue;
      let s = -1, e = -1;
      for (let a = 0; a < N; a++) {
        const b = reach[key * N + a];
        if (b < 0) continue;
        if (s >= 0 && a <= e) { if (b > e) e = b; } else { if (s >= 0) push(key, s, e); s = a; e = b; }
      }
      if (s >= 0) push(key, s, e);
    }
    return out;
  }

  /** The path queen q travelled up to frame view.t; strong for the hovered queen. */
  function paintPath(pen, g, view, q, strong) {
    const game = view.game, list = game.pathOf(q, view.t);
    if (list.length === 0) return;
    const cell = g.cell, m = game.moves, N = g.N, [cx, cy] = centres(g);
    // Pieces of recent (queen, frame) pairs are kept: moving the mouse in and out of a queen, or
    // redrawing all paths, does not merge them again.
    const key = q + ':' + view.t;
    let cells = game.pieceCache && game.pieceCache.get(key);
    if (!cells) {
      if (!game.pieceCache || game.pieceCache.size > 512) game.pieceCache = new Map();
      cells = pathPieces(m, list, N);
      game.pieceCache.set(key, cells);
    }
    const seg = new Array(cells.length);
    for (let i = 0; i < cells.length; i += 2) { seg[i] = cx(cells[i + 1]); seg[i + 1] = cy(cells[i]); }
    const rgb = rgbOf(game.colourOf[q]);
    pen.pieces(seg, INK, (strong ? 0.16 : 0.09) * cell + 2, strong ? 0.55 : 0.25);
    pen.pieces(seg, css(rgb), (strong ? 0.16 : 0.09) * cell, strong ? 1 : 0.8);
    const first = list[0];
    pen.circle(cx(m[4 * first + 1]), cy(m[4 * first]), cell * (strong ? 0.16 : 0.1), css(rgb), INK, 1);
    if (!strong) return;
    // A dot on every cell the queen stopped on between its start and now (each cell once).
    const seen = new Uint8Array(N * N), dots = [];
    for (let j = 0; j < list.length - 1; j++) {
      const i = list[j];
      const at = m[4 * i + 2] * N + m[4 * i + 3];
      if (!seen[at]) { seen[at] = 1; dots.push(cx(m[4 * i + 3]), cy(m[4 * i + 2])); }
    }
    pen.dots(dots, cell * 0.08, INK);
  }

  /** The hovered queen: the queens attacking it and its path. Returns its cell, or -1. */
  function paintHover(pen, g, view) {
    if (view.hover < 0) return -1;
    const N = g.N, { grid, ids } = view.frame, [cx, cy] = centres(g);
    let hoverCell = -1;
    for (let i = 0; i < N * N; i++) if (ids[i] === view.hover) hoverCell = i;
    if (hoverCell < 0) return -1;
    const r = Math.floor(hoverCell / N), c = hoverCell % N, k = grid[hoverCell];
    for (const [dr, dc] of [...DIRS, [0, -1], [-1, 0], [-1, -1], [-1, 1]]) {
      for (let rr = r + dr, cc = c + dc; rr >= 0 && rr < N && cc >= 0 && cc < N; rr += dr, cc += dc) {
        if (grid[rr * N + cc] === k) pen.poly([cx(c), cy(r), cx(cc), cy(rr)], BAD, Math.max(1.5, g.cell * 0.08), 0.75, [6, 4]);
      }
    }
    paintPath(pen, g, view, view.hover, true);
    return hoverCell;
  }

  /** Queens with their attacker counts; the one on hoverCell gets a thick outline. */
  function paintQueens(pen, g, view, hoverCell) {
    const N = g.N, cell = g.cell, { grid, lines } = view.frame, [cx, cy] = centres(g);
    const rad = cell * 0.38, fs = Math.max(7, Math.round(cell * 0.44)), half = Math.ceil(rad + 3);
    const thin = Math.min(1, cell / 12); // on small cells a full outline would hide the colour
    for (let r = 0; r < N; r++) {
      for (let c = 0; c < N; c++) {
        const k = grid[r * N + c];
        if (k <= 0) continue;
        const rgb = rgbOf(k), a = lines.attackers(k, r, c);
        const hot = r * N + c === hoverCell, label = view.opts.counts && cell >= 9;
        // Every queen of one colour and count looks the same: one cached picture each.
        const x0 = Math.floor(cx(c) - half), y0 = Math.floor(cy(r) - half);
        pen.cached(`q${k}:${a}:${hot}:${label}`, x0, y0, 2 * half, 2 * half, (p, bx, by) => {
          const qx = bx + (cx(c) - x0), qy = by + (cy(r) - y0);
          p.circle(qx, qy, rad, css(rgb), a > 0 ? '#3a0d0d' : INK, (hot ? 3 : a > 0 ? 1.6 : 1) * thin);
          if (label) p.text(qx, qy + 0.5, String(a), fs, inkOn(rgb), a > 0 ? 700 : 400);
        });
      }
    }
  }

  /** The illegal move [r1, c1, r2, c2] (shown on the last frame): its cells, arrow and a cross. */
  function paintIllegalMove(pen, g, move) {
    const N = g.N, cell = g.cell, [cx, cy] = centres(g);
    const [r1, c1, r2, c2] = move;
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

  /** Offers blob as a downloaded file `name` (the exports of a frame). */
  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  window.QADraw = {
    rgbOf, css, colourName, darker, INK, BAD, ACCENT,
    CanvasPen, SvgPen, labelFont, geometry, coordLabels, paint, pathPieces, download,
  };
})();
