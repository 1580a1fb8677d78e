// The app-config module's public surface: what a front-end reads about its store at start-up.
export { appConfigRoutes } from './app-config.routes.js';
