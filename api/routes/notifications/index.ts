import abonner from './abonner.js';
import desabonner from './desabonner.js';
import preferences from './preferences.js';
import preferencesModifier from './preferences-modifier.js';
import presence from './presence.js';

export default [abonner, desabonner, preferences, preferencesModifier, presence];
