/**
 * Intake's front door (docs/architecture.md, "Group commit of event intake"): what the rest of the
 * daemon may use of `services/events/`. Everything else in the folder is its own, and a lint wall
 * (eslint.config.js) keeps other folders out of it.
 */
export { eventService, type EventService, intakeWriterForTests, type IntakeWriterHandle } from './service.js';
export type { MonthlyLimit } from './records.js';
export { type RecordSale, type SaleRecorded, saleRecorder, type SaleToRecord } from './sale.js';
export { type MonthlyUsage, monthlyUsage } from './usage.js';
export { secondTierCents } from './commission.js';
export { createGroupCommitter, type Outcome } from './groupCommit.js';
