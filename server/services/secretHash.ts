import { createHash } from 'node:crypto';

/** The SHA-256 (hex) the database keeps of a secret only a browser or a mail holds: session ids, reset tokens. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
