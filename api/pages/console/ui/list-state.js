import { useEffect, useRef, useState } from 'preact/hooks';
import { flash } from './flash.js';

/**
 * A paged, sorted, filtered list: `fetchPage(params)` loads one page for { ...filters, sort,
 * limit, offset }. A new filter, sort or page is shown only once its page has arrived, so the
 * headers, chips and pager always describe the rows on screen (a failed load keeps what was shown
 * and says why). Returns the state shown, its page (`data`), `loading`, and the ways to change it.
 */
export function useList(fetchPage, { filters = {}, sort, limit = 50 } = {}) {
  const [shown, setShown] = useState({ state: { filters, sort, offset: 0 }, data: null });
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const load = async (state) => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const data = await fetchPage({ ...state.filters, ...(state.sort ? { sort: state.sort } : {}), limit, offset: state.offset });
      if (mine === latest.current) setShown({ state, data });
    } catch (err) {
      flash('error', err.message);
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  };
  useEffect(() => {
    load(shown.state);
  }, []);
  const s = shown.state;
  return {
    ...s,
    data: shown.data,
    loading,
    limit,
    apply: (next) => load({ ...s, filters: { ...s.filters, ...next }, offset: 0 }),
    sortBy: (next) => load({ ...s, sort: next, offset: 0 }),
    page: (offset) => load({ ...s, offset }),
    reload: () => load(s),
  };
}
