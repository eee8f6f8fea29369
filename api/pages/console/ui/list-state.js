import { useEffect, useRef, useState } from 'preact/hooks';
import { flash } from './flash.js';

/**
 * @template F
 * @typedef {{ filters: F, sort: string | undefined, offset: number }} ListState
 */

/**
 * A paged, sorted, filtered list: `fetchPage(params)` loads one page for { ...filters, sort,
 * limit, offset }. A new filter, sort or page is shown only once its page has arrived, so the
 * headers, chips and pager always describe the rows on screen (a failed load keeps what was shown
 * and says why). Returns the state shown, its page (`data`), `loading`, and the ways to change it.
 *
 * @template {Record<string, string>} F the filters
 * @template T a page
 * @param {(params: F & { sort?: string, limit: number, offset: number }) => Promise<T>} fetchPage
 * @param {{ filters?: F, sort?: string, limit?: number }} [options]
 */
export function useList(fetchPage, { filters = /** @type {F} */ ({}), sort, limit = 50 } = {}) {
  const [shown, setShown] = useState(/** @type {{ state: ListState<F>, data: T | null }} */ ({ state: { filters, sort, offset: 0 }, data: null }));
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  /** @param {ListState<F>} state */
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
    /** @param {Partial<F>} next */
    apply: (next) => load({ ...s, filters: { ...s.filters, ...next }, offset: 0 }),
    /** @param {string} next */
    sortBy: (next) => load({ ...s, sort: next, offset: 0 }),
    /** @param {number} offset */
    page: (offset) => load({ ...s, offset }),
    reload: () => load(s),
  };
}
