import realtimeConfig from './realtime-config.js';

export default [realtimeConfig];
