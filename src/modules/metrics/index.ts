// The metrics module's public surface: GET /metrics (Prometheus text) and where it is served.
export { metricsRoutes, type MetricsDeps } from './metrics.routes.js';
export { metricsPlacement, readMetricsConfig, type MetricsConfig } from './metrics.config.js';
