/*
 * QueenAttack visualizer, loading: the file pickers, drag and drop (files and folders), run
 * folders written by `tester run --out DIR` (a seed menu), and the paste box. app.js calls
 * window.QAFiles.wire(app) once with the page's load, showError and fmt3.
 */
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  /** What app.js passed to wire(): {load, showError, fmt3}. */
  let app = null;
  /** The loaded run folder: {byName: Map file name -> File, results: Map seed -> row}. */
  let folder = null;

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

  /** What the pickers and drops have brought so far: an input and an output may come one at a time. */
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
      app.load(pending.input, pending.output, meta);
    } else {
      app.showError('Output loaded; now load the input it belongs to.');
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
    folder = { byName, results };
    const sel = $('seed-select');
    sel.innerHTML = '';
    for (const s of seeds) {
      const o = document.createElement('option');
      const row = results.get(s);
      o.value = s;
      o.textContent = 'seed ' + s + (row && typeof row.score === 'number' ? ' — ' + (row.score < 0 ? row.status || '-1' : app.fmt3(row.score)) : '');
      sel.append(o);
    }
    sel.hidden = false;
    await openSeed(seeds[0]);
  }

  async function openSeed(seed) {
    const f = folder;
    $('seed-select').value = String(seed);
    const row = f.results.get(seed) || {};
    const input = await readText(f.byName.get(seed + '.in'));
    const output = await readText(f.byName.get(seed + '.out'));
    const err = f.byName.has(seed + '.err') ? await readText(f.byName.get(seed + '.err')) : '';
    app.load(input, output, { seed, p: typeof row.P === 'number' ? row.P : row.p, status: row.status, title: 'run folder, seed ' + seed, stderr: err });
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

  /** Wires the pickers, the seed menu, the paste box and drag and drop to the page's app. */
  function wire(page) {
    app = page;
    const pick = (id, f) => $(id).addEventListener('change', (e) => { if (e.target.files.length) f([...e.target.files]); e.target.value = ''; });
    pick('pick-input', async (files) => {
      pending.input = await readText(files[0]);
      pending.meta = { seed: seedOf(files[0].name), title: files[0].name };
      $('seed-select').hidden = true;
      app.load(pending.input, pending.output, pending.meta);
    });
    pick('pick-output', async (files) => {
      pending.output = await readText(files[0]);
      pending.outName = files[0].name;
      if (pending.input !== null) app.load(pending.input, pending.output, Object.assign({}, pending.meta, { title: (pending.meta.title || '') + ' + ' + files[0].name }));
    });
    pick('pick-folder', (files) => takeFiles(files));
    $('seed-select').onchange = (e) => openSeed(Number(e.target.value));
    $('toggle-paste').onclick = () => { $('paste').hidden = !$('paste').hidden; };
    $('paste-load').onclick = () => {
      const inp = $('paste-input').value, out = $('paste-output').value;
      pending.input = inp; pending.output = out.trim() === '' ? null : out; pending.meta = { title: 'pasted' };
      $('seed-select').hidden = true;
      app.load(inp, pending.output, pending.meta);
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
  }

  window.QAFiles = { wire };
})();
