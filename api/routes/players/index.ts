import register from './register.js';
import login from './login.js';
import google from './google.js';
import loginJeton from './login-jeton.js';
import loginSteam from './login-steam.js';
import loginDiscord from './login-discord.js';
import logout from './logout.js';
import me from './me.js';
import avatar from './avatar.js';
import invite from './invite.js';
import lier from './lier.js';
import motDePasseOubli from './mot-de-passe-oubli.js';
import motDePasseReinitialiser from './mot-de-passe-reinitialiser.js';
import exportData from './export.js';
import supprimer from './supprimer.js';

export default [register, login, google, loginJeton, loginSteam, loginDiscord, logout, me, avatar, invite, lier, motDePasseOubli, motDePasseReinitialiser, exportData, supprimer];
