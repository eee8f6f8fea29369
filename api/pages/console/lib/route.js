// The console's address: #/view?param=value (#/listings/OFF1/ABC for one listing).
import { useEffect, useState } from 'preact/hooks';

export const parseHash = (hash = location.hash) => {
  const [path, search] = hash.replace(/^#\/?/, '').split('?');
  const [view, ...rest] = path.split('/');
  return { view: view || 'dashboard', rest: rest.map(decodeURIComponent), params: new URLSearchParams(search ?? ''), hash };
};

export function useRoute() {
  const [route, setRoute] = useState(parseHash());
  useEffect(() => {
    const changed = () => setRoute(parseHash());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
