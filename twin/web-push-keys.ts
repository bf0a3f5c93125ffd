// The local instance's VAPID key pair for Web Push (docs/notifications.md): generated once
// with the `web-push` library and kept in the data folder, as the realtime secret is
// (twin/realtime/project-secret.ts), so `manette start` on the embedded database sends Web
// Push without settings and browsers' subscriptions survive restarts. A deployment sets
// MANETTE_VAPID_PUBLIC_KEY, MANETTE_VAPID_PRIVATE_KEY and MANETTE_VAPID_SUBJECT instead.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import webpush from 'web-push';

export const VAPID_KEYS_FILE = 'web-push-vapid.json';
export const LOCAL_VAPID_SUBJECT = 'mailto:manette@localhost';

export async function localVapidKeys(dataDir: string): Promise<{ publicKey: string; privateKey: string }> {
  const file = path.join(dataDir, VAPID_KEYS_FILE);
  await mkdir(dataDir, { recursive: true });
  // Written aside, then linked into place: two first starts agree on one pair.
  const candidate = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(candidate, JSON.stringify(webpush.generateVAPIDKeys()), { mode: 0o600 });
  try {
    await link(candidate, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(candidate, { force: true });
  }
  const keys = JSON.parse(await readFile(file, 'utf8')) as { publicKey?: unknown; privateKey?: unknown };
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') {
    throw new Error(`${file} does not hold a VAPID key pair (delete it to make a new one)`);
  }
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}
