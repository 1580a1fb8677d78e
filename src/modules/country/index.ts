// The country module's public surface: the country list for address forms.
export { countryRoutes, type CountryDeps } from './country.routes.js';
