// Types of bin/build.mjs (a plain JavaScript build script, run without TypeScript too).
export const ROOT: string;
export function upToDate(root?: string): boolean;
export function compiledUrl(source: string, root?: string): string | undefined;
export function build(opts?: { force?: boolean; quiet?: boolean; root?: string }): Promise<{ skipped: boolean; files?: number }>;
