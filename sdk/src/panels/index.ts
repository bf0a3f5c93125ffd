// Registers <manette-login>, <manette-matchmaking> and <manette-boutique> (once, and only in a browser).
import { ManetteLogin } from './login.js';
import { ManetteMatchmaking } from './matchmaking.js';
import { ManetteBoutique } from './boutique.js';

export { ManetteLogin, ManetteMatchmaking, ManetteBoutique };
export { DEFAULT_TEXTS } from './texts.js';

if (typeof customElements !== 'undefined') {
  if (!customElements.get('manette-login')) customElements.define('manette-login', ManetteLogin);
  if (!customElements.get('manette-matchmaking')) customElements.define('manette-matchmaking', ManetteMatchmaking);
  if (!customElements.get('manette-boutique')) customElements.define('manette-boutique', ManetteBoutique);
}

declare global {
  interface HTMLElementTagNameMap {
    'manette-login': ManetteLogin;
    'manette-matchmaking': ManetteMatchmaking;
    'manette-boutique': ManetteBoutique;
  }
}
