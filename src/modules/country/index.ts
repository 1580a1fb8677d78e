// The country module's public surface: the country list for address forms.
export { countryRoutes, type CountryDeps } from './country.routes.js';
export { allCountries, knownCountries } from './country.repository.js';
export type { CountryNameTable, CountryTable, CountryTables } from './country.tables.js';
