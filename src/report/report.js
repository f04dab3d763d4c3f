// Draws the tune report's plots with Chart.js from the page's report-data. The facts are already in
// the page as text; a script error is shown on the page, body[data-plots] counts the plots drawn
// and body[data-axes] lists each plot's axis range beside its data's, for the headless-browser
// check. Axes span their data (Chart.js would round a log axis out to whole decades and start a
// bar's axis at 0, leaving most of a plot empty).
(function () {
  'use strict';
  const errors = document.getElementById('script-errors');
  window.addEventListener('error', (e) => { errors.textContent += e.message + '\n'; });
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const colours = {
    ok: '#1f77b4', invalid_config: '#7f7f7f', compile_error: '#d62728', compile_timeout: '#ff7f0e',
    crash: '#9467bd', hang: '#8c564b', wrong_result: '#e377c2', launch_error: '#bcbd22',
  };
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  let plots = 0;
  const axes = [];
  const draw = (canvas, config) => { plots += 1; return new Chart(canvas, config); };
  const axis = (title, extra) => Object.assign({ title: { display: true, text: title } }, extra);
  // A range just wider than the values: by a factor on a log axis, by a share of the span else;
  // values all above 0 keep the axis above 0 (its padding stops halfway to 0), whatever they span.
  const span = (values, log) => {
    const known = values.filter((v) => v !== null && Number.isFinite(v) && (!log || v > 0));
    if (!known.length) return {};
    const lo = Math.min(...known);
    const hi = Math.max(...known);
    if (log) return { min: lo / (lo === hi ? 1.5 : 1.08), max: hi * (lo === hi ? 1.5 : 1.08) };
    const pad = lo === hi ? Math.abs(lo) * 0.05 || 1 : (hi - lo) * 0.06;
    return { min: lo > 0 ? Math.max(lo - pad, lo / 2) : lo - pad, max: hi + pad };
  };
  const timeAxis = (values) => axis('time (ms)', Object.assign({ type: 'logarithmic' }, span(values, true)));
  // Records a drawn axis against the values it must show.
  const note = (chart, id, key, values, log) => {
    const known = values.filter((v) => v !== null && Number.isFinite(v));
    const scale = chart.scales[key];
    axes.push({ plot: id, axis: key, log, min: scale.min, max: scale.max,
      data_min: Math.min(...known), data_max: Math.max(...known) });
  };

  // A horizontal dashed line across [x0, x1] at y, when y is known.
  const level = (label, y, x0, x1, colour) => (y === null ? [] : [{
    label, data: [{ x: x0, y }, { x: x1, y }], showLine: true, borderDash: [6, 4],
    borderColor: colour, pointRadius: 0, borderWidth: 1.5,
  }]);
  const samples = data.samples;
  const best = samples.filter((s) => s.best_ms !== null);

  const convergence = (canvas, key, title) => {
    const last = samples.length ? samples[samples.length - 1][key] : 1;
    const shown = [...best.map((s) => s.best_ms), data.default_ms, data.reference_ms];
    const chart = draw(document.getElementById(canvas), {
      type: 'scatter',
      data: { datasets: [
        { label: 'best so far', data: best.map((s) => ({ x: s[key], y: s.best_ms })),
          showLine: true, stepped: 'before', borderColor: colours.ok, pointRadius: 2 },
        ...level('default', data.default_ms, 0, last, '#2ca02c'),
        ...level('reference', data.reference_ms, 0, last, '#d62728'),
      ] },
      options: { scales: { x: axis(title), y: timeAxis(shown) } },
    });
    if (best.length) note(chart, canvas, 'y', shown, true);
  };
  convergence('plot-evaluations', 'evaluation', 'evaluations');
  convergence('plot-seconds', 'seconds', 'seconds since the first result');

  // Failures have no time: they sit on a band above the slowest correct time.
  const times = samples.filter((s) => s.time_ms !== null).map((s) => s.time_ms);
  const band = times.length ? Math.max(...times) * 1.5 : 1;
  const outcomes = [...new Set(samples.map((s) => s.outcome))];
  const scattered = [...times, ...(times.length < samples.length ? [band] : [])];
  const scatter = draw(document.getElementById('plot-scatter'), {
    type: 'scatter',
    data: { datasets: outcomes.map((outcome) => ({
      label: outcome === 'ok' ? 'ok' : outcome + ' (drawn above the slowest)',
      data: samples.filter((s) => s.outcome === outcome)
        .map((s) => ({ x: s.evaluation, y: s.time_ms === null ? band : s.time_ms, config: s.config })),
      backgroundColor: colours[outcome], borderColor: colours[outcome],
      pointStyle: outcome === 'ok' ? 'circle' : 'crossRot', pointRadius: 4,
    })) },
    options: {
      scales: { x: axis('evaluation'), y: timeAxis(scattered) },
      plugins: { tooltip: { callbacks: { label: (c) => c.raw.config } } },
    },
  });
  if (scattered.length) note(scatter, 'plot-scatter', 'y', scattered, true);

  // Per knob (the six that mattered most): every correct time per value, and the value's median.
  const grid = document.getElementById('knob-plots');
  for (const effect of data.effects.slice(0, 6)) {
    const box = document.createElement('div');
    box.className = 'plot';
    const canvas = document.createElement('canvas');
    box.appendChild(canvas);
    grid.appendChild(box);
    const labels = effect.values.map((v) => v.value);
    const knobTimes = effect.values.flatMap((v) => v.times);
    const chart = draw(canvas, {
      type: 'scatter',
      data: { labels, datasets: [
        { label: 'samples', data: effect.values.flatMap((v) => v.times.map((t) => ({ x: v.value, y: t }))),
          backgroundColor: 'rgba(31,119,180,0.35)', pointRadius: 3 },
        { label: 'median', data: effect.values.map((v) => ({ x: v.value, y: v.median_ms })),
          pointStyle: 'line', pointRadius: 14, borderWidth: 3, borderColor: '#d62728' },
      ] },
      options: {
        scales: { x: axis(effect.knob + ' (' + effect.ratio.toFixed(2) + 'x)', { type: 'category', labels, offset: true }),
          y: timeAxis(knobTimes) },
        plugins: { legend: { display: false } },
      },
    });
    canvas.id = 'plot-knob-' + effect.knob;
    note(chart, canvas.id, 'y', knobTimes, true);
  }

  // The finalists' paired ratios default / finalist: the 95% interval as a bar, the median as a
  // mark. The axis spans the intervals (not from 0), so that finalists whose intervals do not
  // overlap stand apart; each label is whole, over as many lines as it needs.
  const finalists = data.finalists.filter((f) => f.ratio !== null);
  if (finalists.length) {
    const labels = finalists.map((f) => f.label);
    const lines = (text) => text.match(/.{1,44}(,|$)|.{1,44}/g) || [text];
    const ends = finalists.flatMap((f) => [f.ratio_low, f.ratio_high, f.ratio]);
    const range = span(ends, false);
    const tick = (range.max - range.min) * 0.004;
    const canvas = document.getElementById('plot-tournament');
    const rows = labels.reduce((n, label) => n + Math.max(2, lines(label).length), 0);
    canvas.parentNode.style.height = String(Math.max(320, 90 + 16 * rows)) + 'px';
    const chart = draw(canvas, {
      type: 'bar',
      data: { labels, datasets: [
        { label: '95% interval', data: finalists.map((f) => [f.ratio_low, f.ratio_high]),
          backgroundColor: 'rgba(31,119,180,0.35)', grouped: false },
        { label: 'median', data: finalists.map((f) => [f.ratio - tick, f.ratio + tick]),
          backgroundColor: '#d62728', grouped: false },
      ] },
      options: {
        indexAxis: 'y',
        scales: { x: axis('default time / finalist time (above 1: faster than the default)',
          Object.assign({ beginAtZero: false }, range)),
          y: { ticks: { autoSkip: false, callback: (i) => lines(labels[i]) } } },
      },
    });
    note(chart, 'plot-tournament', 'x', ends, false);
    // The smallest gap on screen between two finalists' intervals that do not overlap.
    const x = chart.scales.x;
    let gap = null;
    for (const a of finalists) {
      for (const b of finalists) {
        if (a.ratio_high < b.ratio_low) {
          const px = x.getPixelForValue(b.ratio_low) - x.getPixelForValue(a.ratio_high);
          gap = gap === null ? px : Math.min(gap, px);
        }
      }
    }
    const shownLabels = chart.scales.y.ticks.map((t) => [].concat(t.label).join(''));
    Object.assign(axes[axes.length - 1], { min_gap_px: gap,
      labels_whole: shownLabels.every((text, i) => text === labels[i]) });
  }
  document.body.dataset.axes = JSON.stringify(axes);
  document.body.dataset.plots = String(plots);
}());
