// Routes of this resource, one file each.
import join from './join.js';
import status from './status.js';
import leave from './leave.js';

export default [join, status, leave];
