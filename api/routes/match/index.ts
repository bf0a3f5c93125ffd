// Routes of this resource, one file each.
import action from './action.js';
import state from './state.js';

export default [action, state];
