// Google Identity Services, loaded on demand (only by a login panel of a game that has a
// Google client id), then one button per panel; the ID token goes to auth.loginWithGoogle.
export const GOOGLE_SCRIPT_URL = 'https://accounts.google.com/gsi/client';

interface GoogleId {
  initialize(o: { client_id: string; callback: (r: { credential?: string }) => void; ux_mode?: string }): void;
  renderButton(el: HTMLElement, o: Record<string, unknown>): void;
}
type WithGoogle = { google?: { accounts?: { id?: GoogleId } } };

let loading: Promise<GoogleId> | undefined;

function loadScript(): Promise<GoogleId> {
  const existing = (globalThis as WithGoogle).google?.accounts?.id;
  if (existing) return Promise.resolve(existing);
  loading ??= new Promise<GoogleId>((resolve, reject) => {
    const s = document.createElement('script');
    s.src = GOOGLE_SCRIPT_URL;
    s.async = true;
    s.onload = () => {
      const id = (globalThis as WithGoogle).google?.accounts?.id;
      if (id) resolve(id); else reject(new Error('Google Identity Services did not load'));
    };
    s.onerror = () => reject(new Error('Google Identity Services did not load'));
    document.head.append(s);
  });
  loading.catch(() => { loading = undefined; });
  return loading;
}

// GIS keeps one callback per page: it goes to the panel whose button was used last
// (a pointer or key press inside it), else the last one rendered.
let target: ((idToken: string) => void) | undefined;
let initializedFor: string | undefined;

/** Renders Google's button in `el`; `onToken` gets the ID token after the player chose an account. */
export async function renderGoogleButton(el: HTMLElement, clientId: string, lang: string, onToken: (idToken: string) => void): Promise<void> {
  const id = await loadScript();
  if (initializedFor !== clientId) {
    id.initialize({ client_id: clientId, callback: (r) => { if (r.credential) target?.(r.credential); } });
    initializedFor = clientId;
  }
  target = onToken;
  const claim = () => { target = onToken; };
  el.addEventListener('pointerdown', claim, true);
  el.addEventListener('focusin', claim);
  el.replaceChildren();
  id.renderButton(el, {
    type: 'standard', theme: 'outline', size: 'large', text: 'continue_with', shape: 'rectangular',
    locale: lang, width: Math.max(200, Math.min(400, Math.floor(el.clientWidth || 280))),
  });
}
