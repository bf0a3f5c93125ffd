// Where the console is: #/<jeu>/<page>/<rest...>, so every view has a URL (reload, back,
// a link in a message). The hash is the only state the address bar holds.
import { useEffect, useState } from 'preact/hooks';

export interface Route { jeu: string; page: string; rest: string[]; query: URLSearchParams }

export function parseRoute(hash = location.hash): Route {
  const [pathPart = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = pathPart.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  return { jeu: parts[0] ?? '', page: parts[1] ?? 'overview', rest: parts.slice(2), query: new URLSearchParams(query) };
}

export function href(jeu: string, page: string, ...rest: (string | number)[]): string {
  return `#/${[jeu, page, ...rest].map((p) => encodeURIComponent(String(p))).join('/')}`;
}

export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}

export function useRoute(): Route {
  const [route, set] = useState(parseRoute());
  useEffect(() => {
    const on = () => set(parseRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
