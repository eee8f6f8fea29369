// Site content: the settings (identity, seo, favicon: named fields for what a portal shows, and
// any other field as a name and a value) and the navigation as forms, and the pages
// (every locale's title, description and body) with a preview; each refusal shown next to the
// field it names.
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { text, when } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Badge } from '../ui/badge.js';
import { confirmFirst } from '../ui/confirm.js';
import { DataTable } from '../ui/data-table.js';
import { Field, fieldErrors, invalidIf } from '../ui/fields.js';
import { act, flash } from '../ui/flash.js';
import { useLoad } from '../ui/use-load.js';

const SETTINGS = {
  identity: 'The site’s name and look.',
  seo: 'What search engines and link previews are told.',
  favicon: 'The icon browsers show for the site.',
};

/**
 * The fields each setting has for what a portal built on the service shows (the settings are open
 * objects: any other field is kept and edited below them as a name and a value). [name, label,
 * placeholder, kind]: url (an http(s) URL or a path on this site), colour (#rgb or #rrggbb), long.
 */
const NAMED = {
  identity: [
    ['name', 'Site name', 'Harbour Homes'],
    ['tagline', 'Tagline', 'Homes by the water'],
    ['logoUrl', 'Logo URL', 'https://homes.example/logo.svg', 'url'],
    ['primaryColor', 'Main colour', '#1f5fbf', 'colour'],
    ['accentColor', 'Accent colour', '#d38b00', 'colour'],
  ],
  seo: [
    ['title', 'Search title', 'Harbour Homes: homes for sale and rent'],
    ['description', 'Search description', 'Every home for sale and rent on the harbour, updated as agents list them.', 'long'],
  ],
  favicon: [['url', 'Icon URL', '/favicon.ico', 'url']],
};
const COLOUR = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
const SITE_URL = /^(https?:\/\/[^\s/]+|\/(?!\/))\S*$/i;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

/** What is wrong with a named field's value, or null. */
function namedProblem(kind, value) {
  if (!value) return null;
  if (kind === 'colour' && !COLOUR.test(value)) return 'A colour as #rgb or #rrggbb, e.g. #1f5fbf.';
  if (kind === 'url' && !SITE_URL.test(value)) return 'An http(s) URL or a path on this site (starting with /).';
  return null;
}

/** What is wrong with a setting's fields, by named field or row index; empty when nothing is. */
function settingProblems(named, fields, rows) {
  const found = {};
  for (const [key, , , kind] of named) {
    const problem = namedProblem(kind, fields[key].trim());
    if (problem) found[key] = problem;
  }
  const seen = new Set(named.filter(([key]) => fields[key].trim()).map(([key]) => key));
  rows.forEach((r, i) => {
    if (!r.k.trim() && !r.v.trim()) return;
    if (!r.k.trim()) found[i] = 'Give the field a name.';
    else if (seen.has(r.k.trim())) found[i] = `${r.k.trim()} is named twice.`;
    seen.add(r.k.trim());
  });
  return found;
}

/** The setting's value as saved: the named fields with text, then each named row (a raw row's JSON read back). */
function settingValue(named, fields, rows) {
  const object = {};
  for (const [key] of named) if (fields[key].trim()) object[key] = fields[key].trim();
  for (const r of rows) {
    if (!r.k.trim()) continue;
    let v = r.v;
    if (r.raw) {
      try {
        v = JSON.parse(r.v);
      } catch {
        v = r.v;
      }
    }
    object[r.k.trim()] = v;
  }
  return object;
}

/** A setting: its named fields, then any other field as a row (name, value), plus a new one. */
function SettingForm({ name, value, onSaved }) {
  const named = NAMED[name];
  const namedKeys = new Set(named.map(([key]) => key));
  const isText = (v) => typeof v === 'string';
  const [fields, setFields] = useState(() => Object.fromEntries(named.map(([key]) => [key, isText(value?.[key]) ? value[key] : ''])));
  // A named field holding something other than text (a map by locale, say) stays a raw row, kept as it is.
  /** @typedef {{ k: string, v: string, raw?: boolean }} Row a key, its value as text, raw: the text is JSON */
  const [rows, setRows] = useState(
    () =>
      /** @type {Row[]} */ ([
        ...Object.entries(value ?? {})
          .filter(([k, v]) => !namedKeys.has(k) || !isText(v))
          .map(([k, v]) => ({ k, v: isText(v) ? v : JSON.stringify(v), raw: !isText(v) })),
        { k: '', v: '' },
      ]),
  );
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const edit = (i, part) => (e) => setRows(rows.map((r, j) => (j === i ? { ...r, [part]: e.currentTarget.value } : r)));
  const save = async (event) => {
    event.preventDefault();
    const found = settingProblems(named, fields, rows);
    setErrors(found);
    if (Object.keys(found).length) return flash('error', `${name} not saved: see the fields marked.`);
    try {
      await api('PUT', '/v1/admin/site/settings', { key: name, value: settingValue(named, fields, rows) });
      flash('info', `${name} saved.`);
      onSaved();
    } catch (err) {
      flash('error', err.message);
      setErrors(fieldErrors(err.message, [...namedKeys], 'body.value'));
    }
  };
  const input = (key, label, placeholder, kind) => {
    const id = `${name}-${key}`;
    const attrs = {
      name: id,
      value: fields[key],
      placeholder,
      onInput: (e) => setFields({ ...fields, [key]: e.currentTarget.value }),
      ...invalidIf(errors[key], id),
    };
    return html`<${Field} label=${label} name=${id} error=${errors[key]}>
      ${
        kind === 'long'
          ? html`<textarea rows="2" ...${attrs}></textarea>`
          : kind === 'colour'
            ? html`<span class="colour-field"><input ...${attrs} size="9" /><span class="swatch" aria-hidden="true" style=${COLOUR.test(fields[key].trim()) ? `background:${fields[key].trim()}` : ''}></span></span>`
            : html`<input ...${attrs} />`
      }
    <//>`;
  };
  return html`<form class="panel setting" onSubmit=${save} aria-label=${`Setting ${name}`} noValidate>
    <strong>${name}</strong> <span class="muted">${SETTINGS[name]}</span>
    <div class="named-fields">${named.map(([key, label, placeholder, kind]) => input(key, label, placeholder, kind))}</div>
    <details open=${rows.length > 1}>
      <summary>Other fields (${rows.length - 1})</summary>
      ${rows.map(
        (r, i) => html`<div class="row-fields">
          <${Field} label=${`${name} field name`} name=${`${name}-k${i}`} error=${errors[i]}><input value=${r.k} placeholder="name" onInput=${edit(i, 'k')} ...${invalidIf(errors[i], `${name}-k${i}`)} /><//>
          <${Field} label=${`${name} value`} name=${`${name}-v${i}`}><input value=${r.v} placeholder="value" onInput=${edit(i, 'v')} /><//>
        </div>`,
      )}
      <p><button type="button" onClick=${() => setRows([...rows, { k: '', v: '' }])}>Add a field</button></p>
    </details>
    <p><button class="primary" type="submit">Save ${name}</button></p>
  </form>`;
}

/** The navigation: a row per link; the server's refusal of links[i].field goes next to that field. */
function NavigationForm({ links, onSaved }) {
  const blank = { kind: 'builtin', ref: '', label: '', visible: true, newTab: false };
  const [rows, setRows] = useState(() => links.map((l) => ({ ...l, label: text(l.label) })));
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const edit =
    (i, part, read = (e) => e.currentTarget.value) =>
    (e) =>
      setRows(rows.map((r, j) => (j === i ? { ...r, [part]: read(e) } : r)));
  const save = async (event) => {
    event.preventDefault();
    const body = {
      links: rows.map((r) => ({
        kind: r.kind,
        ref: r.ref.trim(),
        label: r.label.trim() ? { 'en-AU': r.label.trim() } : null,
        visible: r.visible,
        newTab: r.newTab,
      })),
    };
    try {
      await api('PUT', '/v1/admin/site/nav', body);
      setErrors({});
      flash('info', 'Navigation saved.');
      onSaved();
    } catch (err) {
      const found = {};
      const rest = [];
      for (const part of err.message.split('; ')) {
        const m = part.match(/^body\.links\[(\d+)\]\.(\w+)\S*\s+(.*)$/);
        if (m) found[`${m[1]}.${m[2]}`] = m[3];
        else rest.push(part);
      }
      setErrors(found);
      flash('error', rest.length ? rest.join('; ') : 'Some links need a change: see the fields marked.');
    }
  };
  return html`<form class="panel" onSubmit=${save} aria-label="Navigation">
    <p class="muted">Links in the site’s menu, in order. builtin: listings, agents or offices; page: a page slug; custom: a URL. No links restores the default.</p>
    ${rows.map(
      (r, i) => html`<div class="row-fields" data-nav=${i}>
        <label>Kind <select value=${r.kind} onChange=${edit(i, 'kind')}>${['builtin', 'page', 'custom'].map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
        <${Field} label=${`Link ${i + 1} target`} name=${`nav-ref-${i}`} error=${errors[`${i}.ref`] ?? errors[`${i}.kind`]}><input value=${r.ref} onInput=${edit(i, 'ref')} ...${invalidIf(errors[`${i}.ref`], `nav-ref-${i}`)} /><//>
        <${Field} label=${`Link ${i + 1} label`} name=${`nav-label-${i}`} error=${errors[`${i}.label`]}><input value=${r.label} onInput=${edit(i, 'label')} /><//>
        <label class="check"><input type="checkbox" checked=${r.visible} onChange=${edit(i, 'visible', (e) => e.currentTarget.checked)} /> visible</label>
        <label class="check"><input type="checkbox" checked=${r.newTab} onChange=${edit(i, 'newTab', (e) => e.currentTarget.checked)} /> new tab</label>
        <button type="button" class="danger" onClick=${() => setRows(rows.filter((_, j) => j !== i))}>Remove</button>
      </div>`,
    )}
    <p><button type="button" onClick=${() => setRows([...rows, blank])}>Add a link</button> <button class="primary" type="submit">Save navigation</button></p>
  </form>`;
}

/** A page's slug, and its title, description and body in every locale; a preview of one locale. */
function PageForm({ editing, onSaved, onCancel }) {
  const locales0 = editing ? Object.keys(editing.title) : ['en-AU'];
  const [slug, setSlug] = useState(editing?.slug ?? '');
  const [texts, setTexts] = useState(() =>
    Object.fromEntries(
      locales0.map((l) => [l, { title: editing?.title?.[l] ?? '', body: editing?.body?.[l] ?? '', description: editing?.description?.[l] ?? '' }]),
    ),
  );
  const [newLocale, setNewLocale] = useState('');
  const [preview, setPreview] = useState(locales0[0]);
  const [errors, setErrors] = useState(/** @type {import('../ui/fields.js').FieldErrors} */ ({}));
  const locales = Object.keys(texts);
  const edit = (locale, part) => (e) => setTexts({ ...texts, [locale]: { ...texts[locale], [part]: e.currentTarget.value } });
  const addLocale = () => {
    const l = newLocale.trim();
    if (!LOCALE.test(l)) return setErrors({ ...errors, locale: 'A locale is a language tag such as en-AU or fr.' });
    if (texts[l]) return setErrors({ ...errors, locale: `${l} is already there.` });
    setTexts({ ...texts, [l]: { title: '', body: '', description: '' } });
    setNewLocale('');
    setErrors({ ...errors, locale: undefined });
  };
  const byLocale = (part) => Object.fromEntries(locales.map((l) => [l, texts[l][part]]));
  const submit = async (event) => {
    event.preventDefault();
    const description = Object.fromEntries(locales.filter((l) => texts[l].description.trim()).map((l) => [l, texts[l].description]));
    const page = { slug: slug.trim(), title: byLocale('title'), body: byLocale('body'), description: Object.keys(description).length ? description : null };
    try {
      if (editing) await api('PUT', `/v1/admin/site/pages/id/${editing.id}`, page);
      else await api('POST', '/v1/admin/site/pages', page);
      setErrors({});
      flash('info', editing ? `${page.slug} saved.` : `Draft ${page.slug} created.`);
      onSaved();
    } catch (err) {
      flash('error', err.message);
      setErrors(fieldErrors(err.message, ['slug', 'title', 'body', 'description']));
    }
  };
  const shown = texts[preview] ?? texts[locales[0]];
  return html`<h2>${editing ? `Edit page ${editing.slug}` : 'New page'}</h2>
    <div class="panel page-editor">
      <form onSubmit=${submit}>
        <${Field} label="Slug" name="slug" error=${errors.slug} hint="Lower-case letters and digits in words joined by hyphens.">
          <input name="slug" required placeholder="about-us" value=${slug} onInput=${(e) => setSlug(e.currentTarget.value)} ...${invalidIf(errors.slug, 'slug')} />
        <//>
        ${locales.map(
          (l) => html`<fieldset class="locale"><legend>${l}</legend>
            <${Field} label=${locales.length === 1 ? 'Title' : `Title (${l})`} name=${`title-${l}`} error=${errors.title}><input required value=${texts[l].title} onInput=${edit(l, 'title')} /><//>
            <${Field} label=${locales.length === 1 ? 'Description' : `Description (${l})`} name=${`description-${l}`} error=${errors.description}><input value=${texts[l].description} onInput=${edit(l, 'description')} /><//>
            <${Field} label=${locales.length === 1 ? 'Body' : `Body (${l})`} name=${`body-${l}`} error=${errors.body}><textarea rows="5" value=${texts[l].body} onInput=${edit(l, 'body')}></textarea><//>
            ${locales.length > 1 ? html`<button type="button" class="danger" onClick=${() => setTexts(Object.fromEntries(Object.entries(texts).filter(([k]) => k !== l)))}>Remove ${l}</button>` : null}
          </fieldset>`,
        )}
        <div class="inline">
          <${Field} label="Add a locale" name="locale" error=${errors.locale}><input value=${newLocale} placeholder="fr" onInput=${(e) => setNewLocale(e.currentTarget.value)} /><//>
          <button type="button" onClick=${addLocale}>Add locale</button>
        </div>
        <p><button class="primary" type="submit">${editing ? 'Save changes' : 'Create draft'}</button> ${editing ? html`<button type="button" onClick=${onCancel}>Cancel</button>` : null}</p>
      </form>
      <aside class="preview" aria-label="Preview">
        <div class="preview-head"><strong>Preview</strong> ${locales.length > 1 ? html`<select aria-label="Preview locale" value=${preview} onChange=${(e) => setPreview(e.currentTarget.value)}>${locales.map((l) => html`<option value=${l}>${l}</option>`)}</select>` : null}</div>
        <h3>${shown?.title || html`<span class="muted">(no title)</span>`}</h3>
        ${shown?.description ? html`<p class="muted">${shown.description}</p>` : null}
        <div class="prose">${shown?.body || html`<span class="muted">(no body)</span>`}</div>
      </aside>
    </div>`;
}

export function Site() {
  const { data, reload } = useLoad(() => Promise.all([fetch('/v1/site').then((r) => r.json()), api('GET', '/v1/admin/site/pages')]), []);
  const [editing, setEditing] = useState(null);
  if (!data) return html`<p class="muted">Loading…</p>`;
  const [site, { pages }] = data;
  const publish = async (p) => {
    if (
      await act(
        () => api('PUT', `/v1/admin/site/pages/id/${p.id}`, { published: !p.published }),
        `${p.slug} ${p.published ? 'is a draft again' : 'published'}.`,
      )
    )
      reload();
  };
  const remove = async (p) => {
    if (!(await confirmFirst(`Delete the page ${p.slug}?`, { action: 'Delete' }))) return;
    if (await act(() => api('DELETE', `/v1/admin/site/pages/id/${p.id}`), `${p.slug} deleted.`)) reload();
  };
  const columns = [
    { label: 'Slug', cell: (p) => html`<code>${p.slug}</code>` },
    { label: 'Title', cell: (p) => text(p.title) },
    { label: 'Locales', cell: (p) => Object.keys(p.title).join(', ') },
    { label: 'State', cell: (p) => html`<${Badge} status=${p.published ? 'published' : 'draft'} />` },
    { label: 'Changed', cell: (p) => when(p.updatedAt) },
    {
      label: '',
      className: 'actions',
      cell: (p) =>
        html`<button onClick=${() => setEditing(p)}>Edit</button><button onClick=${() => publish(p)}>${p.published ? 'Unpublish' : 'Publish'}</button><button class="danger" onClick=${() => remove(p)}>Delete</button>`,
    },
  ];
  const version = JSON.stringify(site.settings) + JSON.stringify(site.navigation);
  return html`<h2>Settings</h2>
    ${Object.keys(SETTINGS).map((name) => html`<${SettingForm} key=${`${name}${JSON.stringify(site.settings?.[name])}`} name=${name} value=${site.settings?.[name]} onSaved=${reload} />`)}
    <h2>Navigation</h2>
    <${NavigationForm} key=${version} links=${site.navigation ?? []} onSaved=${reload} />
    <h2>Pages</h2>
    <${DataTable} label="Pages" columns=${columns} rows=${pages} rowAttrs=${(p) => ({ 'data-page': p.slug })} empty="No pages yet." />
    <${PageForm} key=${editing?.id ?? 'new'} editing=${editing} onCancel=${() => setEditing(null)} onSaved=${() => {
      setEditing(null);
      return reload();
    }} />`;
}
