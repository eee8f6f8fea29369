import { useCallback, useEffect, useState } from 'preact/hooks';
import { flash } from './flash.js';

/**
 * Loads what a view shows and loads it again when `deps` change; a failure shows the server's
 * error text. Returns { data, loading, reload }.
 */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, loading: true });
  const reload = useCallback(async () => {
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      setState({ data, loading: false });
      return data;
    } catch (err) {
      flash('error', err.message);
      setState((s) => ({ ...s, loading: false }));
      return undefined;
    }
  }, deps);
  useEffect(() => {
    reload();
  }, [reload]);
  return { ...state, reload };
}
