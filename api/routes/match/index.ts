// Routes of this resource, one file each.
import action from './action.js';
import state from './state.js';
import history from './history.js';
import live from './live.js';

export default [action, state, history, live];
