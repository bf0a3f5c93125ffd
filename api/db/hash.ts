import { createHash } from 'node:crypto';

export const sha256 = (content: Buffer | string) => createHash('sha256').update(content).digest('hex');
