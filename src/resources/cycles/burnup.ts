// GET /cycles/{id}/burnup.svg: the cycle's history as a burn-up picture any page, chat or README can embed. A string
// rendered on the server (no script): scope and completed tasks by day, its `<title>` naming the cycle and its `<desc>`
// carrying every figure, so a screen reader (or a test) reads what the lines show.
import type { CycleHistoryDto } from "./history";

const WIDTH = 640;
const HEIGHT = 320;
const PAD = { left: 48, right: 16, top: 40, bottom: 40 };

/** Text as XML content or an attribute value. */
const xmlText = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string);

export function burnupSvg({ cycle, days }: CycleHistoryDto): string {
  const title = `Burn-up of ${cycle.reference} ${cycle.name}`;
  const top = Math.max(1, ...days.map((d) => d.scope.tasks));
  const [w, h] = [WIDTH - PAD.left - PAD.right, HEIGHT - PAD.top - PAD.bottom];
  const x = (i: number) => PAD.left + (days.length > 1 ? (i * w) / (days.length - 1) : w / 2);
  const y = (n: number) => PAD.top + h - (n * h) / top;
  const line = (pick: (d: CycleHistoryDto["days"][number]) => number) =>
    days.map((d, i) => `${x(i).toFixed(1)},${y(pick(d)).toFixed(1)}`).join(" ");
  const figures = days.length
    ? days.map((d) => `${d.date}: scope ${d.scope.tasks}, completed ${d.completed.tasks}`).join("; ")
    : "No days yet: the cycle has not started.";
  const last = days.at(-1);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="title desc">`,
    `<title id="title">${xmlText(title)}</title>`,
    `<desc id="desc">Tasks in scope and completed, by UTC day. ${xmlText(figures)}</desc>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PAD.left}" y="24" font-family="sans-serif" font-size="14" fill="#111827">${xmlText(title)}</text>`,
    `<line x1="${PAD.left}" y1="${PAD.top + h}" x2="${PAD.left + w}" y2="${PAD.top + h}" stroke="#9ca3af"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + h}" stroke="#9ca3af"/>`,
    `<text x="${PAD.left - 8}" y="${PAD.top + 4}" font-family="sans-serif" font-size="11" text-anchor="end" fill="#4b5563">${top}</text>`,
    `<text x="${PAD.left - 8}" y="${PAD.top + h + 4}" font-family="sans-serif" font-size="11" text-anchor="end" fill="#4b5563">0</text>`,
    ...(days.length
      ? [
          `<text x="${PAD.left}" y="${HEIGHT - 16}" font-family="sans-serif" font-size="11" fill="#4b5563">${days[0].date}</text>`,
          `<text x="${PAD.left + w}" y="${HEIGHT - 16}" font-family="sans-serif" font-size="11" text-anchor="end" fill="#4b5563">${last?.date}</text>`,
          `<polyline fill="none" stroke="#6b7280" stroke-width="2" stroke-dasharray="6 4" points="${line((d) => d.scope.tasks)}"><title>Scope</title></polyline>`,
          `<polyline fill="none" stroke="#2563eb" stroke-width="3" points="${line((d) => d.completed.tasks)}"><title>Completed</title></polyline>`,
          `<text x="${PAD.left + w}" y="${PAD.top - 8}" font-family="sans-serif" font-size="11" text-anchor="end" fill="#111827">scope ${last?.scope.tasks}, completed ${last?.completed.tasks}</text>`,
        ]
      : []),
    "</svg>",
  ].join("\n");
}
