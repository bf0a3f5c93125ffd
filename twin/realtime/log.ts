// The stand-in's log function: `npm start` hands it its logger, tests a collector.
export type Log = (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;
