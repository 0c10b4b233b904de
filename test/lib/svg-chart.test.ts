import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, formatSi } from '../../lib/html.ts';
import { linearTicks, logTicks, renderBarChart, renderLineChart } from '../../lib/svg-chart.ts';

test('linear ticks are round steps that cover the range', () => {
  for (const [min, max] of [
    [0, 1],
    [0, 23.4],
    [0, 3166],
    [0, 0.07],
    [12, 980],
  ] as const) {
    const ticks = linearTicks(min, max);
    assert.ok(ticks.length >= 3 && ticks.length <= 11, `${min}..${max}: ${ticks}`);
    assert.ok(ticks[0]! >= min && ticks.at(-1)! <= max * (1 + 1e-9), `${min}..${max}: ${ticks}`);
    const step = ticks[1]! - ticks[0]!;
    const mantissa = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(6));
    assert.ok([1, 2, 5].includes(mantissa), `step ${step}`);
    ticks.forEach((t, i) => i > 0 && assert.ok(Math.abs(t - ticks[i - 1]! - step) < step * 1e-9));
  }
});

test('log ticks are powers of ten, with 2x and 5x when the range is short', () => {
  assert.deepEqual(logTicks(1, 1e6), [1, 10, 100, 1000, 1e4, 1e5, 1e6]);
  assert.deepEqual(logTicks(300, 1000), [500, 1000]);
  assert.deepEqual(logTicks(150, 2500), [200, 500, 1000, 2000]);
});

test('SI tick labels', () => {
  assert.deepEqual([0, 0.25, 999, 1000, 1500, 2e6, 3.3e9].map(formatSi), ['0', '0.25', '999', '1k', '1.5k', '2M', '3.3G']);
});

test('a line chart draws one group per series: a path through its points, a marker per point, a legend entry', () => {
  const svg = renderLineChart({
    title: 'MB/s <by> size',
    xLabel: 'messages',
    yLabel: 'MB/s',
    xScale: 'log',
    series: [
      { name: 'floor', points: [{ x: 1e4, y: 80 }, { x: 1e5, y: 90 }, { x: 1e6, y: 85 }], dashed: true },
      { name: 'a "route" & more', points: [{ x: 1e5, y: 120 }, { x: 1e4, y: 100 }] },
      { name: 'single', points: [{ x: 1e5, y: 60 }] },
    ],
  });
  const groups = svg.split('<g class="series"').slice(1).map((g) => g.slice(0, g.indexOf('</g>')));
  assert.equal(groups.length, 3);
  assert.deepEqual(groups.map((g) => (g.match(/<path class="line"/g) ?? []).length), [1, 1, 0]);
  assert.deepEqual(groups.map((g) => (g.match(/class="point"/g) ?? []).length), [3, 2, 1]);
  assert.match(groups[1]!, /^ data-series="a &quot;route&quot; &amp; more"/);
  // Points are drawn in x order whatever order they came in.
  assert.deepEqual([...groups[1]!.matchAll(/data-x="(\d+)"/g)].map((m) => Number(m[1])), [1e4, 1e5]);
  assert.equal((svg.match(/class="legend-item"/g) ?? []).length, 3);
  assert.ok(svg.includes('<title>MB/s &lt;by&gt; size</title>'));
  assert.ok(svg.includes('stroke-dasharray'));
  assert.ok(!svg.includes('<by>'));
  // Higher values sit higher (smaller y) on the page.
  const cy = (x: number, y: number): number => Number(new RegExp(`data-x="${x}" data-y="${y}"[^>]*cy="([\\d.]+)"|cy="([\\d.]+)"[^>]*data-x="${x}" data-y="${y}"`).exec(groups[0]!.replace(/<path[^>]*>/g, ''))?.slice(1).find(Boolean));
  assert.ok(cy(1e5, 90) < cy(1e4, 80));
});

test('a chart without points says so instead of drawing nothing', () => {
  const svg = renderLineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', points: [] }] });
  assert.match(svg, />no data</);
});

test('a bar chart draws one bar per value, heights in proportion', () => {
  const svg = renderBarChart({ title: 'sizes', xLabel: 'size', yLabel: 'sessions', bars: [{ label: '< 1 kB', value: 2 }, { label: '< 10 kB', value: 4 }] });
  const heights = [...svg.matchAll(/class="bar"[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.equal(heights.length, 2);
  assert.ok(Math.abs(heights[1]! - 2 * heights[0]!) < 0.5, `${heights}`);
  assert.ok(svg.includes('&lt; 1 kB'));
});

test('escapeHtml leaves no markup', () => {
  assert.equal(escapeHtml(`<img src=x onerror="a('&')">`), '&lt;img src=x onerror=&quot;a(&#39;&amp;&#39;)&quot;&gt;');
});
