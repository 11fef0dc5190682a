import type { Dashboard } from '@grafana/schema';
import dashboard from '../../docker/grafana/ledger-dashboard.json';

/**
 * The ledger's Grafana dashboard (docker/grafana/ledger-dashboard.json) typed as Grafana's
 * `Dashboard` from `@grafana/schema`: `npm run typecheck` fails when the file leaves the schema
 * (docs/architecture.md §8).
 */
export const typedDashboard: Dashboard = dashboard;
