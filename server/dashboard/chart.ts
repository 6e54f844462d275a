/** A bar chart's geometry, drawn server-side as SVG by `templates/dashboard/overview.eta` (no script, no inline style). */
export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  label: string;
}

export const CHART = { width: 620, height: 160, gap: 2 } as const;

/** One bar per value, scaled to the largest (an empty month is a row of zero-height bars). */
export function bars(values: readonly { value: number; label: string }[]): Bar[] {
  const max = Math.max(1, ...values.map((v) => v.value));
  const slot = CHART.width / Math.max(1, values.length);
  return values.map((v, i) => {
    const height = Math.round((v.value / max) * (CHART.height - 10));
    return {
      x: Math.round(i * slot),
      y: CHART.height - height,
      width: Math.max(1, Math.round(slot - CHART.gap)),
      height,
      label: v.label,
    };
  });
}
