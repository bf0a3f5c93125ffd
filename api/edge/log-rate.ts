// The Edge Function's log lines, within what Supabase keeps: "Log event threshold: 100
// events per 10 seconds" (supabase/supabase, apps/docs/content/guides/functions/limits.mdx).
// Request lines are already one summary per 10 s there (api/http/request-log.ts); this
// bounds everything else too (errors of a failing database, warnings): at most `max`
// lines in any `windowMs`; a line beyond is dropped and counted, and the next line
// written is preceded by one saying how many were dropped (within the bound).

/** A writer of log lines that writes at most `max` of them in any `windowMs` (sliding). */
export function rateLimitedLines(write: (line: string) => void, max: number, windowMs = 10_000): (line: string) => void {
  if (max <= 0) return write;
  max = Math.max(2, max); // room for a line and the count of those dropped before it
  const times: number[] = [];
  let dropped = 0;
  return (line: string) => {
    const now = Date.now();
    while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
    if (times.length + (dropped > 0 ? 2 : 1) > max) {
      dropped++;
      return;
    }
    if (dropped > 0) {
      write(JSON.stringify({ level: 40, time: now, dropped, msg: `log lines dropped: more than ${max} in ${windowMs / 1000} s` }));
      times.push(now);
      dropped = 0;
    }
    write(line);
    times.push(now);
  };
}
