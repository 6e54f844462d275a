/** The settings a profile holds (docs/cli.md). */
export const SETTINGS = ['base-url', 'api-key'] as const;
export type Setting = (typeof SETTINGS)[number];
