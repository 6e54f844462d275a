/** The payouts file is shared with the dashboard's export (shared/payoutsCsv.ts). */
export { CSV_HEADER, payoutsCsv } from '../../../shared/payoutsCsv.js';
