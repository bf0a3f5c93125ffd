export { freePort } from '../../twin/net.js';
