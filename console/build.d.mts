// Types of console/build.mjs (a plain JavaScript build script, run without TypeScript too).
export function upToDate(): boolean;
export function buildConsole(opts?: { force?: boolean; quiet?: boolean }): Promise<{ skipped: boolean }>;
