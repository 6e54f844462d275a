/** The CLI's version (package.json's; a test keeps them equal). A constant, so help loads no JSON. */
export const VERSION = '0.1.0';
