import register from './register.js';
import login from './login.js';
import google from './google.js';
import logout from './logout.js';
import me from './me.js';
import avatar from './avatar.js';
import motDePasseOubli from './mot-de-passe-oubli.js';
import motDePasseReinitialiser from './mot-de-passe-reinitialiser.js';

export default [register, login, google, logout, me, avatar, motDePasseOubli, motDePasseReinitialiser];
