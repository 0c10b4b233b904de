/**
 * Static SVG charts for the report pages: a line chart (series of points over a linear or
 * logarithmic x axis) and a bar chart, with axes, ticks, labels with units, and a legend.
 * Strings in, a string out: no DOM, no browser, no script in the result.
 *
 * Every series is one <g data-series="name"> holding one <path> (when it has two points or more)
 * and one marker per point carrying data-x and data-y, so a test can count what was drawn.
 */
import { escapeHtml, formatSi } from './html.ts';

export type Scale = 'linear' | 'log';
export type Marker = 'circle' | 'square' | 'diamond' | 'triangle';

export interface Series {
  name: string;
  points: ReadonlyArray<{ x: number; y: number }>;
  /** A line style for series that are a different kind of figure (a reference, a floor). */
  dashed?: boolean;
  marker?: Marker;
  color?: string;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  xScale?: Scale;
  series: readonly Series[];
  width?: number;
  height?: number;
  /** Draw only the x values of the points as ticks (for few, chosen sizes). */
  xTicksAtPoints?: boolean;
}

export interface BarChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  bars: ReadonlyArray<{ label: string; value: number }>;
  width?: number;
  height?: number;
  color?: string;
}

/** Colour-blind-safe (Okabe-Ito), in the order series get them. */
export const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000', '#f0e442'];
const MARKERS: Marker[] = ['circle', 'square', 'diamond', 'triangle'];

const MARGIN = { top: 30, right: 16, bottom: 46, left: 64 };
const LEGEND_WIDTH = 205;

/** Round tick values covering [min, max]: steps of 1, 2 or 5 times a power of 10. */
export function linearTicks(min: number, max: number, wanted = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / wanted;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** Powers of 10 inside [min, max]; with fewer than three, also 2x and 5x. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  const low = Math.floor(Math.log10(min));
  const high = Math.ceil(Math.log10(max));
  for (let e = low; e <= high; e++) ticks.push(10 ** e);
  let inside = ticks.filter((t) => t >= min * 0.999 && t <= max * 1.001);
  if (inside.length < 3) {
    const finer: number[] = [];
    for (let e = low; e <= high; e++) for (const m of [1, 2, 5]) finer.push(m * 10 ** e);
    inside = finer.filter((t) => t >= min * 0.999 && t <= max * 1.001);
  }
  return inside;
}

interface Axis {
  min: number;
  max: number;
  scale: Scale;
  /** Value to pixel. */
  at(value: number): number;
}

function axis(min: number, max: number, scale: Scale, from: number, to: number): Axis {
  if (scale === 'log') {
    const lo = Math.log10(min);
    const hi = Math.log10(max);
    const span = hi - lo || 1;
    return { min, max, scale, at: (v) => from + ((Math.log10(v) - lo) / span) * (to - from) };
  }
  const span = max - min || 1;
  return { min, max, scale, at: (v) => from + ((v - min) / span) * (to - from) };
}

const fmt = (n: number): string => String(Math.round(n * 10) / 10);

/** A point's marker; `inner` goes inside it (a <title> tooltip). */
function markerSvg(kind: Marker, x: number, y: number, color: string, attributes: string, inner = ''): string {
  const common = `${attributes} fill="${color}" stroke="#fff" stroke-width="1"`;
  switch (kind) {
    case 'square':
      return `<rect ${common} x="${fmt(x - 4)}" y="${fmt(y - 4)}" width="8" height="8">${inner}</rect>`;
    case 'diamond':
      return `<path ${common} d="M${fmt(x)} ${fmt(y - 5.5)}L${fmt(x + 5.5)} ${fmt(y)}L${fmt(x)} ${fmt(y + 5.5)}L${fmt(x - 5.5)} ${fmt(y)}Z">${inner}</path>`;
    case 'triangle':
      return `<path ${common} d="M${fmt(x)} ${fmt(y - 5.5)}L${fmt(x + 5.5)} ${fmt(y + 4.5)}L${fmt(x - 5.5)} ${fmt(y + 4.5)}Z">${inner}</path>`;
    default:
      return `<circle ${common} cx="${fmt(x)}" cy="${fmt(y)}" r="4.5">${inner}</circle>`;
  }
}

function svgOpen(width: number, height: number, title: string, kind: string): string {
  return (
    `<svg class="chart" data-chart="${escapeHtml(kind)}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}">` +
    `<title>${escapeHtml(title)}</title>` +
    `<text class="title" x="${MARGIN.left}" y="18">${escapeHtml(title)}</text>`
  );
}

function axesSvg(x0: number, x1: number, y0: number, y1: number, xLabel: string, yLabel: string): string {
  return (
    `<line class="axis" x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}"/>` +
    `<line class="axis" x1="${x0}" y1="${y0}" x2="${x0}" y2="${y1}"/>` +
    `<text class="axis-label" x="${fmt((x0 + x1) / 2)}" y="${y0 + 38}" text-anchor="middle">${escapeHtml(xLabel)}</text>` +
    `<text class="axis-label" transform="translate(16 ${fmt((y0 + y1) / 2)}) rotate(-90)" text-anchor="middle">${escapeHtml(yLabel)}</text>`
  );
}

function yTicksSvg(y: Axis, x0: number, x1: number): string {
  let out = '';
  for (const tick of linearTicks(y.min, y.max)) {
    const py = fmt(y.at(tick));
    out += `<line class="grid" x1="${x0}" y1="${py}" x2="${x1}" y2="${py}"/>`;
    out += `<text class="tick" x="${x0 - 6}" y="${py}" dy="0.32em" text-anchor="end">${escapeHtml(formatSi(tick))}</text>`;
  }
  return out;
}

export function renderLineChart(spec: LineChartSpec): string {
  const width = spec.width ?? 660;
  const height = spec.height ?? 300;
  const scale = spec.xScale ?? 'linear';
  const plotRight = width - MARGIN.right - LEGEND_WIDTH;
  const x0 = MARGIN.left;
  const y0 = height - MARGIN.bottom;
  const y1 = MARGIN.top;
  const points = spec.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (scale !== 'log' || p.x > 0));
  let out = svgOpen(width, height, spec.title, 'line');
  if (points.length === 0) {
    out += axesSvg(x0, plotRight, y0, y1, spec.xLabel, spec.yLabel);
    return out + `<text x="${fmt((x0 + plotRight) / 2)}" y="${fmt((y0 + y1) / 2)}" text-anchor="middle">no data</text></svg>`;
  }
  const xs = points.map((p) => p.x);
  let xMin = Math.min(...xs);
  let xMax = Math.max(...xs);
  if (xMin === xMax) {
    xMin = scale === 'log' ? xMin / 2 : xMin - 1;
    xMax = scale === 'log' ? xMax * 2 : xMax + 1;
  }
  // Some room either side so end points are not drawn on the axis.
  const pad = scale === 'log' ? (Math.log10(xMax) - Math.log10(xMin)) * 0.06 : (xMax - xMin) * 0.06;
  const x = scale === 'log' ? axis(xMin / 10 ** pad, xMax * 10 ** pad, 'log', x0, plotRight) : axis(xMin - pad, xMax + pad, 'linear', x0, plotRight);
  const yTop = linearTicks(0, Math.max(...points.map((p) => p.y)) * 1.05 || 1).at(-1)!;
  const y = axis(0, Math.max(yTop, Math.max(...points.map((p) => p.y))), 'linear', y0, y1);

  out += yTicksSvg(y, x0, plotRight);
  const xTicks = spec.xTicksAtPoints ? [...new Set(xs)].sort((a, b) => a - b) : scale === 'log' ? logTicks(x.min, x.max) : linearTicks(x.min, x.max);
  let lastTick = -Infinity;
  for (const tick of xTicks) {
    // Ticks closer than a label's width would overlap: keep the first.
    if (x.at(tick) - lastTick < 30) continue;
    lastTick = x.at(tick);
    const px = fmt(x.at(tick));
    out += `<line class="axis" x1="${px}" y1="${y0}" x2="${px}" y2="${y0 + 5}"/>`;
    out += `<text class="tick" x="${px}" y="${y0 + 17}" text-anchor="middle">${escapeHtml(formatSi(tick))}</text>`;
  }
  out += axesSvg(x0, plotRight, y0, y1, spec.xLabel, spec.yLabel);

  spec.series.forEach((series, i) => {
    const color = series.color ?? PALETTE[i % PALETTE.length]!;
    const marker = series.marker ?? MARKERS[i % MARKERS.length]!;
    const drawn = series.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (scale !== 'log' || p.x > 0)).sort((a, b) => a.x - b.x);
    out += `<g class="series" data-series="${escapeHtml(series.name)}">`;
    if (drawn.length > 1) {
      const d = drawn.map((p, k) => `${k === 0 ? 'M' : 'L'}${fmt(x.at(p.x))} ${fmt(y.at(p.y))}`).join('');
      // Slightly see-through, so a series drawn over another with the same values still shows.
      out += `<path class="line" d="${d}" fill="none" stroke="${color}" stroke-width="2" stroke-opacity="0.8"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`;
    }
    for (const p of drawn) {
      out += markerSvg(marker, x.at(p.x), y.at(p.y), color, `class="point" data-x="${p.x}" data-y="${p.y}"`, `<title>${escapeHtml(`${series.name}: ${formatSi(p.x)}, ${p.y}`)}</title>`);
    }
    out += '</g>';
    // Legend: one line per series, right of the plot.
    const ly = y1 + 4 + i * 18;
    const lx = plotRight + 14;
    out += `<g class="legend-item" data-legend="${escapeHtml(series.name)}">`;
    out += `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`;
    out += markerSvg(marker, lx + 11, ly, color, 'class="legend-marker"');
    out += `<text x="${lx + 28}" y="${ly}" dy="0.32em">${escapeHtml(series.name)}</text></g>`;
  });
  return out + '</svg>';
}

export function renderBarChart(spec: BarChartSpec): string {
  const width = spec.width ?? 560;
  const height = spec.height ?? 260;
  const x0 = MARGIN.left;
  const x1 = width - MARGIN.right;
  const y0 = height - MARGIN.bottom;
  const y1 = MARGIN.top;
  let out = svgOpen(width, height, spec.title, 'bar');
  const max = Math.max(0, ...spec.bars.map((b) => b.value));
  // Room above the tallest bar for its value.
  const y = axis(0, Math.max(linearTicks(0, max || 1).at(-1)!, (max || 1) * 1.15), 'linear', y0, y1);
  out += yTicksSvg(y, x0, x1);
  const slot = (x1 - x0) / Math.max(spec.bars.length, 1);
  const color = spec.color ?? PALETTE[0]!;
  out += `<g class="series" data-series="${escapeHtml(spec.yLabel)}">`;
  spec.bars.forEach((bar, i) => {
    const left = x0 + i * slot + slot * 0.15;
    const top = y.at(bar.value);
    out += `<rect class="bar" data-label="${escapeHtml(bar.label)}" data-y="${bar.value}" x="${fmt(left)}" y="${fmt(top)}" width="${fmt(slot * 0.7)}" height="${fmt(y0 - top)}" fill="${color}"><title>${escapeHtml(`${bar.label}: ${bar.value}`)}</title></rect>`;
    out += `<text class="tick" x="${fmt(left + slot * 0.35)}" y="${y0 + 17}" text-anchor="middle">${escapeHtml(bar.label)}</text>`;
    out += `<text class="value" x="${fmt(left + slot * 0.35)}" y="${fmt(top - 4)}" text-anchor="middle">${escapeHtml(formatSi(bar.value))}</text>`;
  });
  out += '</g>';
  return out + axesSvg(x0, x1, y0, y1, spec.xLabel, spec.yLabel) + '</svg>';
}
