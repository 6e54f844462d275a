/** The settings a profile holds (product §5). */
export const SETTINGS = ['base-url', 'api-key'] as const;
export type Setting = (typeof SETTINGS)[number];
