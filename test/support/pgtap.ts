// The pgTAP installer and runner live with the CLI (`manette test` uses them).
export { installPgTap, runTapFile, type TapResult } from '../../twin/postgres/pgtap.js';
