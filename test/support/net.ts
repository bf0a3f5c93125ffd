export { freePort } from '../../api/local/net.js';
