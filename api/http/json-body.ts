// The request body of what games send: `Content-Type: application/json` (charset UTF-8 or
// none), a Content-Length within the limit, no Content-Encoding. Read and parsed here as
// express.json() would (strict: an object or an array; an empty body is {}; a leading BOM
// dropped; the same errors), without its per-request media-type parsing, charset decoder
// stream and option objects: a tenth of a worker's CPU on a small request (bench/facade.ts,
// docs/performance.md "Façade bench"). Every other request goes to express.json() as before.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** express.json()'s errors, as api/http/errors.ts maps them. */
function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

export function jsonBody(limitBytes: number, general: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    const lengthText = req.headers['content-length'];
    const length = lengthText === undefined ? NaN : Number(lengthText);
    const encoding = req.headers['content-encoding'];
    if (type === undefined || !PLAIN_JSON.test(type) || !Number.isSafeInteger(length) || length > limitBytes
        || req.headers['transfer-encoding'] !== undefined || (encoding !== undefined && encoding.toLowerCase() !== 'identity')
        || req.readableEnded) {
      return general(req, res, next);
    }
    const chunks: Buffer[] = [];
    const done = (err?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      next(err);
    };
    const onData = (chunk: Buffer) => { chunks.push(chunk); };
    const onEnd = () => {
      let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        req.body = parseStrict(text);
      } catch (err) {
        return done(bodyError(400, 'entity.parse.failed', (err as Error).message));
      }
      done();
    };
    const onError = (err: Error) => done(bodyError(400, 'request.aborted', err.message));
    const onAborted = () => done(bodyError(400, 'request.aborted', 'request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  };
}

/** body-parser's strict JSON: {} for nothing, else an object or an array. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end'} in JSON`);
  return JSON.parse(text);
}
