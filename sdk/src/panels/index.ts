// Registers <manette-login> and <manette-matchmaking> (once, and only in a browser).
import { ManetteLogin } from './login.js';
import { ManetteMatchmaking } from './matchmaking.js';

export { ManetteLogin, ManetteMatchmaking };
export { DEFAULT_TEXTS } from './texts.js';

if (typeof customElements !== 'undefined') {
  if (!customElements.get('manette-login')) customElements.define('manette-login', ManetteLogin);
  if (!customElements.get('manette-matchmaking')) customElements.define('manette-matchmaking', ManetteMatchmaking);
}

declare global {
  interface HTMLElementTagNameMap {
    'manette-login': ManetteLogin;
    'manette-matchmaking': ManetteMatchmaking;
  }
}
