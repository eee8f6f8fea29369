import ct from 'countries-and-timezones';
import countryToCurrency from 'country-to-currency';
import currencyCodes from 'currency-codes';
// The library without its Node entry, which registers all 80-odd languages' country names
// (9 MB of RSS and 40 ms in every process and reading thread); only English names are read.
import countries from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };

countries.registerLocale(en);

/**
 * ISO-3166 alpha-2 for what feeds put in a country field: alpha-2 ("AU"), alpha-3 ("AUS"),
 * or an English name in any case ("Australia", "AUSTRALIA"). null when it is none of these.
 */
export function toCountryCode(raw: string): string | null {
  const value = raw.trim();
  if (/^[A-Za-z]{2}$/.test(value)) return countries.isValid(value.toUpperCase()) ? value.toUpperCase() : null;
  if (/^[A-Za-z]{3}$/.test(value)) return countries.alpha3ToAlpha2(value.toUpperCase()) ?? null;
  return countries.getAlpha2Code(value, 'en') ?? null;
}

export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
}

/** True for a current ISO-4217 code (upper case). */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencyCodes.code(code) !== undefined;
}

export function currencyOfCountry(country: string): string | null {
  return (countryToCurrency as Record<string, string>)[country] ?? null;
}

/** Australian states and territories by their IANA zone (REAXML `state`, any case). */
const AU_STATE_ZONES: Readonly<Record<string, string>> = {
  ACT: 'Australia/Sydney',
  NSW: 'Australia/Sydney',
  NT: 'Australia/Darwin',
  QLD: 'Australia/Brisbane',
  SA: 'Australia/Adelaide',
  TAS: 'Australia/Hobart',
  VIC: 'Australia/Melbourne',
  WA: 'Australia/Perth',
};

/** For countries with several zones: the zone of the largest market (the library lists them alphabetically). */
const MAIN_ZONES: Readonly<Record<string, string>> = {
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
  US: 'America/New_York',
  CA: 'America/Toronto',
  BR: 'America/Sao_Paulo',
  MX: 'America/Mexico_City',
  RU: 'Europe/Moscow',
  ID: 'Asia/Jakarta',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  CL: 'America/Santiago',
  AR: 'America/Argentina/Buenos_Aires',
  CN: 'Asia/Shanghai',
  DE: 'Europe/Berlin',
  GB: 'Europe/London',
  FR: 'Europe/Paris',
};

/** The listing's local zone: AU state, else country, else UTC (docs/architecture.md, The canonical listing). */
export function zoneFor(country: string | null | undefined, region: string | null | undefined): string {
  if (country === 'AU' && region) {
    const state = australianStateCode(region);
    if (state) return AU_STATE_ZONES[state];
  }
  if (!country) return 'UTC';
  return MAIN_ZONES[country] ?? ct.getCountry(country)?.timezones[0] ?? 'UTC';
}

/** The states and territories by name, as real feeds spell them out ("Queensland", "NEW SOUTH WALES"). */
const AU_STATE_NAMES: Readonly<Record<string, string>> = {
  'australian capital territory': 'ACT',
  'new south wales': 'NSW',
  'northern territory': 'NT',
  queensland: 'QLD',
  'south australia': 'SA',
  tasmania: 'TAS',
  victoria: 'VIC',
  'western australia': 'WA',
};

/**
 * An Australian state or territory as its abbreviation (QLD, NSW…), from the abbreviation or the
 * name spelt out, in any case and spacing; null when the region is neither.
 */
export function australianStateCode(region: string): string | null {
  const value = region.trim().replace(/\s+/g, ' ');
  const upper = value.toUpperCase();
  return upper in AU_STATE_ZONES ? upper : (AU_STATE_NAMES[value.toLowerCase()] ?? null);
}

/**
 * The locale a feed's text is keyed under when the feed does not say: the country's most likely
 * language by the Unicode CLDR likely-subtags data (en-AU, en-US, en-NZ, fr-FR, de-CH…), from the
 * runtime's own Intl data.
 */
export function defaultLocaleOf(country: string): string {
  const region = country.toUpperCase();
  let locale = defaultLocales.get(region);
  if (locale === undefined) {
    try {
      locale = `${new Intl.Locale('und', { region }).maximize().language}-${region}`;
    } catch {
      locale = `en-${region}`;
    }
    if (defaultLocales.size >= 1000) defaultLocales.clear();
    defaultLocales.set(region, locale);
  }
  return locale;
}

/** defaultLocaleOf's answers, by region (the Intl lookup is asked once per country). */
const defaultLocales = new Map<string, string>();
