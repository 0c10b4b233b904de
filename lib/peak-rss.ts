/**
 * Peak resident memory of this process, in KiB.
 *
 * On Linux it is read from /proc/self/status (VmHWM), the high-water mark of this program's own
 * address space. getrusage's maxRSS can instead report the parent's size: it keeps the peak from
 * before exec, when a child forked from a large parent still shared its pages.
 */
import { readFileSync } from 'node:fs';

export function peakRssKb(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // Not Linux: fall back to getrusage below.
  }
  return process.resourceUsage().maxRSS;
}
