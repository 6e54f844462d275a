/** The version of the daemon, the CLI and the API document. */
export const VERSION = '0.1.0';
