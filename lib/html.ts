/**
 * The little HTML the report pages need: escaping (file names and reasons come from the
 * archive and may hold anything) and number formatting shared by the export report and the
 * benchmark charts.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** 12345678 -> "12,345,678" (fixed locale: the page must read the same on every machine). */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A figure with at most `digits` decimals, thousands grouped, trailing zeros kept off. */
export function formatNumber(value: number, digits = 1): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** Short SI form for axis ticks: 1500 -> "1.5k", 2000000 -> "2M", 0.25 -> "0.25". */
export function formatSi(value: number): string {
  const abs = Math.abs(value);
  for (const [bound, suffix] of [
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ] as const) {
    if (abs >= bound) return `${Number((value / bound).toPrecision(3))}${suffix}`;
  }
  return String(Number(value.toPrecision(3)));
}

/** The page around a body: one inline style sheet, no script, nothing fetched. */
export function htmlPage(title: string, css: string, body: string): string {
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    // A page opened from disk must not reach the network, even for a favicon.
    '<link rel="icon" href="data:,">\n' +
    `<title>${escapeHtml(title)}</title>\n<style>\n${css}\n</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`
  );
}

/** The style both report pages share. */
export const BASE_CSS = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #d9dee7; --bad: #b42318; --ok: #1f7a3a; --bg-soft: #f5f7fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0 auto; padding: 24px; max-width: 1180px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
p.meta, .muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; word-break: break-all; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 14px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card.bad .value { color: var(--bad); }
.card.ok .value { color: var(--ok); }
.more { color: var(--muted); font-style: italic; }
figure { margin: 12px 0; }
figcaption { color: var(--muted); font-size: 12.5px; }
svg.chart { max-width: 100%; height: auto; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #1d2330; }
svg.chart .axis-label { font-size: 12px; font-weight: 600; }
svg.chart .title { font-size: 13px; font-weight: 600; }
svg.chart .grid { stroke: #e6e9ef; }
svg.chart .axis { stroke: #5b6475; }
`;
