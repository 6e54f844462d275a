/**
 * Bar charts' geometry, drawn server-side as SVG by the merchant dashboard's overview and the
 * portal's dashboard (no script, no inline style: both pages' CSP forbid them; colours are CSS
 * classes of the page's stylesheet).
 */
export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  label: string;
  /** Which series of the slot the bar draws (0 for a single series): the stylesheet colours it. */
  series: number;
}

export const CHART = { width: 620, height: 160, gap: 2 } as const;

/**
 * One slot per entry, its values side by side, all scaled to the largest value of the chart (a
 * period with nothing is a row of zero-height bars). `labels[i]` names the i-th bar of a slot.
 */
export function groupedBars(slots: readonly { values: readonly number[]; labels: readonly string[] }[]): Bar[] {
  const max = Math.max(1, ...slots.flatMap((slot) => slot.values));
  const slotWidth = CHART.width / Math.max(1, slots.length);
  return slots.flatMap((slot, i) => {
    const barWidth = (slotWidth - CHART.gap) / Math.max(1, slot.values.length);
    return slot.values.map((value, series) => {
      const height = Math.round((value / max) * (CHART.height - 10));
      return {
        x: Math.round(i * slotWidth + series * barWidth),
        y: CHART.height - height,
        width: Math.max(1, Math.round(barWidth)),
        height,
        label: slot.labels[series] ?? '',
        series,
      };
    });
  });
}

/** One bar per value, scaled to the largest. */
export function bars(values: readonly { value: number; label: string }[]): Bar[] {
  return groupedBars(values.map((v) => ({ values: [v.value], labels: [v.label] })));
}
