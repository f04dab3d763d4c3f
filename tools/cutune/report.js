// Draws the tune report's plots with Chart.js from the page's report-data. The facts are already in
// the page as text; a script error is shown on the page, and body[data-plots] counts the plots
// drawn, for the headless-browser check.
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
  const draw = (canvas, config) => { new Chart(canvas, config); plots += 1; };
  const axis = (title, extra) => Object.assign({ title: { display: true, text: title } }, extra);
  const timeAxis = axis('time (ms)', { type: 'logarithmic' });

  // A horizontal dashed line across [x0, x1] at y, when y is known.
  const level = (label, y, x0, x1, colour) => (y === null ? [] : [{
    label, data: [{ x: x0, y }, { x: x1, y }], showLine: true, borderDash: [6, 4],
    borderColor: colour, pointRadius: 0, borderWidth: 1.5,
  }]);
  const samples = data.samples;
  const best = samples.filter((s) => s.best_ms !== null);

  const convergence = (canvas, key, title) => {
    const last = samples.length ? samples[samples.length - 1][key] : 1;
    draw(document.getElementById(canvas), {
      type: 'scatter',
      data: { datasets: [
        { label: 'best so far', data: best.map((s) => ({ x: s[key], y: s.best_ms })),
          showLine: true, stepped: 'before', borderColor: colours.ok, pointRadius: 2 },
        ...level('default', data.default_ms, 0, last, '#2ca02c'),
        ...level('reference', data.reference_ms, 0, last, '#d62728'),
      ] },
      options: { scales: { x: axis(title), y: timeAxis } },
    });
  };
  convergence('plot-evaluations', 'evaluation', 'evaluations');
  convergence('plot-seconds', 'seconds', 'seconds since the first result');

  // Failures have no time: they sit on a band above the slowest correct time.
  const times = samples.filter((s) => s.time_ms !== null).map((s) => s.time_ms);
  const band = times.length ? Math.max(...times) * 1.5 : 1;
  const outcomes = [...new Set(samples.map((s) => s.outcome))];
  draw(document.getElementById('plot-scatter'), {
    type: 'scatter',
    data: { datasets: outcomes.map((outcome) => ({
      label: outcome === 'ok' ? 'ok' : outcome + ' (drawn above the slowest)',
      data: samples.filter((s) => s.outcome === outcome)
        .map((s) => ({ x: s.evaluation, y: s.time_ms === null ? band : s.time_ms, config: s.config })),
      backgroundColor: colours[outcome], borderColor: colours[outcome],
      pointStyle: outcome === 'ok' ? 'circle' : 'crossRot', pointRadius: 4,
    })) },
    options: {
      scales: { x: axis('evaluation'), y: timeAxis },
      plugins: { tooltip: { callbacks: { label: (c) => c.raw.config } } },
    },
  });

  // Per knob (the six that mattered most): every correct time per value, and the value's median.
  const grid = document.getElementById('knob-plots');
  for (const effect of data.effects.slice(0, 6)) {
    const box = document.createElement('div');
    box.className = 'plot';
    const canvas = document.createElement('canvas');
    box.appendChild(canvas);
    grid.appendChild(box);
    const labels = effect.values.map((v) => v.value);
    draw(canvas, {
      type: 'scatter',
      data: { labels, datasets: [
        { label: 'samples', data: effect.values.flatMap((v) => v.times.map((t) => ({ x: v.value, y: t }))),
          backgroundColor: 'rgba(31,119,180,0.35)', pointRadius: 3 },
        { label: 'median', data: effect.values.map((v) => ({ x: v.value, y: v.median_ms })),
          pointStyle: 'line', pointRadius: 14, borderWidth: 3, borderColor: '#d62728' },
      ] },
      options: {
        scales: { x: axis(effect.knob + ' (' + effect.ratio.toFixed(2) + 'x)', { type: 'category', labels, offset: true }),
          y: timeAxis },
        plugins: { legend: { display: false } },
      },
    });
  }

  // The finalists' paired ratios default / finalist: the 95% interval as a bar, the median as a mark.
  const finalists = data.finalists.filter((f) => f.ratio !== null);
  if (finalists.length) {
    const labels = finalists.map((f) => f.label);
    const tick = (f) => f.ratio * 0.0015;
    draw(document.getElementById('plot-tournament'), {
      type: 'bar',
      data: { labels, datasets: [
        { label: '95% interval', data: finalists.map((f) => [f.ratio_low, f.ratio_high]),
          backgroundColor: 'rgba(31,119,180,0.35)', grouped: false },
        { label: 'median', data: finalists.map((f) => [f.ratio - tick(f), f.ratio + tick(f)]),
          backgroundColor: '#d62728', grouped: false },
      ] },
      options: {
        indexAxis: 'y',
        scales: { x: axis('default time / finalist time (above 1: faster than the default)'),
          y: { ticks: { callback: (i) => labels[i].slice(0, 48) } } },
      },
    });
  }
  document.body.dataset.plots = String(plots);
}());
