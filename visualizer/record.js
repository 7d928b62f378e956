/*
 * QueenAttack visualizer, video export: "Record video" plays the replay from the start to the
 * end at the chosen speed and records it with the browser's MediaRecorder, then offers the
 * .webm file. What is recorded is the board as drawn on screen (canvas.captureStream of a copy)
 * with a strip below it holding the panel's numbers (move, errors, penalty, score) and, for an
 * invalid output, the judge's message. Clicking the button again stops early and keeps what was
 * recorded. Uses window.qaVis (app.js); after the recording the button carries
 * data-video-bytes and data-video-type (read by the browser test).
 */
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const button = $('btn-record');
  const board = $('board');
  /** Frames per second of the video (the board changes at most once per animation frame). */
  const FPS = 30;
  /** The first and the last board stay this long in the video (ms), to be seen. */
  const HOLD_MS = 600;
  /** Height of the text strip under the board (CSS px). */
  const STRIP = 40;

  /** The first webm type this browser records, or null. */
  function videoType() {
    if (typeof MediaRecorder === 'undefined' || !HTMLCanvasElement.prototype.captureStream) return null;
    return ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t)) || null;
  }

  const type = videoType();
  if (!type) {
    button.disabled = true;
    button.title = 'This browser cannot record a canvas (no MediaRecorder with webm)';
    return;
  }

  let rec = null; // {recorder, chunks, canvas, raf, endAt, stopping}

  const text = (id) => ($(id) ? $(id).textContent : '');

  /** Copies the board and writes the panel's numbers under it. */
  function compose(r) {
    const c = r.canvas, ctx = c.getContext('2d'), dpr = board.width / Math.max(1, board.clientWidth || board.width);
    if (c.width !== board.width || c.height !== board.height + Math.round(STRIP * dpr)) {
      c.width = board.width; c.height = board.height + Math.round(STRIP * dpr);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#f5f3ee';
    ctx.fillRect(0, 0, c.width, c.height);
    ctx.drawImage(board, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const y = board.height / dpr;
    ctx.font = '13px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
    ctx.fillStyle = '#1f2328';
    ctx.fillText(`move ${text('v-move')}/${text('v-total')}   errors ${text('v-errors')}   penalty ${text('v-penalty')}   score ${text('score')}`, 8, y + 11);
    const fatal = $('fatal');
    const atEnd = window.qaVis.game() && window.qaVis.frame() === window.qaVis.game().applied;
    const message = fatal && !fatal.hidden && atEnd ? text('fatal-message') : '';
    ctx.fillStyle = message ? '#c62828' : '#6b7280';
    ctx.fillText(message ? 'invalid output: ' + message : document.getElementById('title').textContent, 8, y + 29);
  }

  function loop() {
    if (!rec) return;
    compose(rec);
    const game = window.qaVis.game();
    const atEnd = !game || window.qaVis.frame() >= game.applied;
    if (atEnd && !window.qaVis.playing()) {
      if (rec.endAt === 0) rec.endAt = performance.now() + HOLD_MS;
      if (performance.now() >= rec.endAt) { finish(); return; }
    }
    button.textContent = `Stop recording (${Math.round((performance.now() - rec.started) / 1000)} s)`;
    rec.raf = requestAnimationFrame(loop);
  }

  function start() {
    const game = window.qaVis.game();
    if (!game || rec) return;
    const canvas = document.createElement('canvas');
    rec = { chunks: [], canvas, raf: 0, endAt: 0, started: performance.now() };
    window.qaVis.setFrame(0);
    compose(rec);
    const recorder = new MediaRecorder(canvas.captureStream(FPS), { mimeType: type });
    rec.recorder = recorder;
    recorder.ondataavailable = (e) => { if (e.data && e.data.size > 0) rec.chunks.push(e.data); };
    recorder.onstop = () => saved(rec);
    delete button.dataset.videoBytes;
    delete button.dataset.videoType;
    recorder.start(1000);
    button.classList.add('recording');
    rec.raf = requestAnimationFrame(loop);
    // The start position stays a moment before the moves play.
    setTimeout(() => { if (rec && rec.recorder === recorder && game.applied > 0) window.qaVis.play(); }, HOLD_MS);
  }

  function finish() {
    if (!rec || rec.stopping) return;
    rec.stopping = true;
    cancelAnimationFrame(rec.raf);
    window.qaVis.stop();
    compose(rec);
    rec.recorder.stop();
  }

  function saved(r) {
    const blob = new Blob(r.chunks, { type: 'video/webm' });
    rec = null;
    button.classList.remove('recording');
    button.textContent = 'Record video';
    button.dataset.videoBytes = String(blob.size);
    button.dataset.videoType = blob.type;
    const seed = window.qaVis.seed ? window.qaVis.seed() : null;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `queenattack${seed !== null && seed !== undefined ? '-seed' + seed : ''}.webm`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  button.onclick = () => (rec ? finish() : start());
})();
