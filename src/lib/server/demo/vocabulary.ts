// Names for the scaled generator: source systems with their tables, the entity each family is
// keyed on, attribute columns by type, and reference seeds. Real-sounding names make a 3000-model
// canvas and its search behave like a real project's.

export interface SourceSystem {
	name: string;
	domain: string;
	/** The entity every table of the system carries a key to (`<entity>_id`). */
	entity: string;
	tables: string[];
}

export const SOURCE_SYSTEMS: SourceSystem[] = [
	{ name: 'stripe', domain: 'billing', entity: 'customer', tables: ['customers', 'charges', 'invoices', 'invoice_line_items', 'subscriptions', 'refunds', 'payouts', 'balance_transactions', 'disputes', 'plans', 'prices', 'coupons'] },
	{ name: 'hubspot', domain: 'marketing', entity: 'contact', tables: ['contacts', 'companies', 'deals', 'deal_stages', 'engagements', 'owners', 'email_events', 'form_submissions'] },
	{ name: 'salesforce', domain: 'sales', entity: 'account', tables: ['accounts', 'opportunities', 'leads', 'contacts', 'users', 'campaigns', 'tasks', 'opportunity_line_items'] },
	{ name: 'shopify', domain: 'commerce', entity: 'customer', tables: ['customers', 'orders', 'order_lines', 'products', 'product_variants', 'refunds', 'transactions', 'fulfillments', 'inventory_levels', 'locations'] },
	{ name: 'zendesk', domain: 'support', entity: 'requester', tables: ['tickets', 'ticket_comments', 'users', 'organizations', 'groups', 'satisfaction_ratings', 'ticket_fields'] },
	{ name: 'segment', domain: 'product', entity: 'user', tables: ['tracks', 'pages', 'identifies', 'screens', 'users'] },
	{ name: 'netsuite', domain: 'finance', entity: 'subsidiary', tables: ['transactions', 'transaction_lines', 'accounts', 'vendors', 'subsidiaries', 'currencies', 'departments', 'items'] },
	{ name: 'workday', domain: 'people', entity: 'worker', tables: ['workers', 'positions', 'organizations', 'job_profiles', 'compensation_plans', 'time_off_requests'] },
	{ name: 'jira', domain: 'engineering', entity: 'project', tables: ['issues', 'projects', 'sprints', 'users', 'comments', 'worklogs', 'issue_links'] },
	{ name: 'google_ads', domain: 'marketing', entity: 'campaign', tables: ['campaigns', 'ad_groups', 'ads', 'keywords', 'campaign_stats', 'ad_stats'] },
	{ name: 'facebook_ads', domain: 'marketing', entity: 'campaign', tables: ['campaigns', 'ad_sets', 'ads', 'creatives', 'ad_insights'] },
	{ name: 'app_db', domain: 'product', entity: 'account', tables: ['accounts', 'users', 'workspaces', 'memberships', 'invites', 'api_keys', 'feature_flags', 'audit_events'] },
	{ name: 'intercom', domain: 'support', entity: 'contact', tables: ['conversations', 'conversation_parts', 'contacts', 'admins', 'companies', 'tags'] },
	{ name: 'braze', domain: 'lifecycle', entity: 'user', tables: ['campaigns', 'canvases', 'messages', 'users', 'message_events'] },
	{ name: 'greenhouse', domain: 'recruiting', entity: 'candidate', tables: ['applications', 'candidates', 'jobs', 'offers', 'interviews', 'scorecards'] },
	{ name: 'quickbooks', domain: 'finance', entity: 'customer', tables: ['invoices', 'bills', 'payments', 'customers', 'vendors', 'accounts', 'journal_entries'] },
	{ name: 'snowplow', domain: 'product', entity: 'user', tables: ['events', 'sessions', 'page_views'] },
	{ name: 'github', domain: 'engineering', entity: 'repository', tables: ['repositories', 'pull_requests', 'issues', 'commits', 'reviews', 'users'] },
	{ name: 'mixpanel', domain: 'product', entity: 'user', tables: ['events', 'people', 'cohorts'] },
	{ name: 'adp', domain: 'people', entity: 'employee', tables: ['employees', 'payroll_runs', 'pay_statements', 'departments'] }
];

export const REGION_SUFFIXES = ['eu', 'us', 'apac', 'latam', 'uk', 'de', 'fr', 'jp', 'au', 'ca'];

export const ATTRIBUTES: { name: string; type: string }[] = [
	{ name: 'name', type: 'VARCHAR' },
	{ name: 'status', type: 'VARCHAR' },
	{ name: 'created_at', type: 'TIMESTAMP' },
	{ name: 'amount_cents', type: 'BIGINT' },
	{ name: 'email', type: 'VARCHAR' },
	{ name: 'updated_at', type: 'TIMESTAMP' },
	{ name: 'currency', type: 'VARCHAR' },
	{ name: 'quantity', type: 'INTEGER' },
	{ name: 'is_active', type: 'BOOLEAN' },
	{ name: 'type', type: 'VARCHAR' },
	{ name: 'country_code', type: 'VARCHAR' },
	{ name: 'unit_price', type: 'DECIMAL(18,2)' },
	{ name: 'closed_at', type: 'TIMESTAMP' },
	{ name: 'description', type: 'VARCHAR' },
	{ name: 'discount', type: 'DECIMAL(18,2)' },
	{ name: 'is_test', type: 'BOOLEAN' },
	{ name: 'channel', type: 'VARCHAR' },
	{ name: 'started_at', type: 'TIMESTAMP' },
	{ name: 'tax_amount', type: 'DECIMAL(18,2)' },
	{ name: 'category', type: 'VARCHAR' },
	{ name: 'ended_at', type: 'TIMESTAMP' },
	{ name: 'balance', type: 'DECIMAL(18,2)' },
	{ name: 'source', type: 'VARCHAR' },
	{ name: 'due_date', type: 'DATE' },
	{ name: 'score', type: 'DOUBLE' },
	{ name: 'reason', type: 'VARCHAR' },
	{ name: 'is_primary', type: 'BOOLEAN' },
	{ name: 'fee_cents', type: 'BIGINT' },
	{ name: 'region', type: 'VARCHAR' },
	{ name: 'paid_at', type: 'TIMESTAMP' },
	{ name: 'duration_seconds', type: 'INTEGER' },
	{ name: 'title', type: 'VARCHAR' },
	{ name: 'priority', type: 'VARCHAR' },
	{ name: 'seats', type: 'INTEGER' },
	{ name: 'canceled_at', type: 'TIMESTAMP' },
	{ name: 'stage', type: 'VARCHAR' },
	{ name: 'probability', type: 'DOUBLE' },
	{ name: 'is_archived', type: 'BOOLEAN' },
	{ name: 'period_start', type: 'DATE' },
	{ name: 'locale', type: 'VARCHAR' },
	{ name: 'mrr', type: 'DECIMAL(18,2)' },
	{ name: 'resolved_at', type: 'TIMESTAMP' },
	{ name: 'plan_name', type: 'VARCHAR' },
	{ name: 'rating', type: 'INTEGER' },
	{ name: 'period_end', type: 'DATE' },
	{ name: 'industry', type: 'VARCHAR' },
	{ name: 'cost', type: 'DECIMAL(18,2)' },
	{ name: 'timezone', type: 'VARCHAR' },
	{ name: 'tier', type: 'VARCHAR' },
	{ name: 'is_paid', type: 'BOOLEAN' },
	{ name: 'label', type: 'VARCHAR' },
	{ name: 'external_ref', type: 'VARCHAR' },
	{ name: 'phone', type: 'VARCHAR' },
	{ name: 'domain', type: 'VARCHAR' },
	{ name: 'deleted_at', type: 'TIMESTAMP' }
];

export interface ReferenceSeed {
	name: string;
	columns: { name: string; type: string }[];
}

export const REFERENCE_SEEDS: ReferenceSeed[] = [
	{ name: 'country_codes', columns: [{ name: 'country_code', type: 'VARCHAR' }, { name: 'country_name', type: 'VARCHAR' }, { name: 'region', type: 'VARCHAR' }, { name: 'is_eu', type: 'BOOLEAN' }] },
	{ name: 'currency_rates', columns: [{ name: 'currency', type: 'VARCHAR' }, { name: 'rate_to_usd', type: 'DOUBLE' }, { name: 'valid_from', type: 'DATE' }, { name: 'valid_to', type: 'DATE' }] },
	{ name: 'plan_tiers', columns: [{ name: 'plan_name', type: 'VARCHAR' }, { name: 'tier', type: 'VARCHAR' }, { name: 'monthly_price', type: 'DECIMAL(18,2)' }, { name: 'seats_included', type: 'INTEGER' }] },
	{ name: 'sales_regions', columns: [{ name: 'region', type: 'VARCHAR' }, { name: 'region_name', type: 'VARCHAR' }, { name: 'sales_director', type: 'VARCHAR' }] },
	{ name: 'fiscal_calendar', columns: [{ name: 'calendar_date', type: 'DATE' }, { name: 'fiscal_year', type: 'INTEGER' }, { name: 'fiscal_quarter', type: 'INTEGER' }, { name: 'is_holiday', type: 'BOOLEAN' }] },
	{ name: 'channel_mapping', columns: [{ name: 'source', type: 'VARCHAR' }, { name: 'channel', type: 'VARCHAR' }, { name: 'is_paid', type: 'BOOLEAN' }] },
	{ name: 'tax_rates', columns: [{ name: 'country_code', type: 'VARCHAR' }, { name: 'tax_rate', type: 'DOUBLE' }, { name: 'valid_from', type: 'DATE' }] },
	{ name: 'status_mapping', columns: [{ name: 'status', type: 'VARCHAR' }, { name: 'status_group', type: 'VARCHAR' }, { name: 'is_terminal', type: 'BOOLEAN' }] },
	{ name: 'product_categories', columns: [{ name: 'category', type: 'VARCHAR' }, { name: 'category_group', type: 'VARCHAR' }, { name: 'margin_target', type: 'DOUBLE' }] },
	{ name: 'timezone_offsets', columns: [{ name: 'timezone', type: 'VARCHAR' }, { name: 'utc_offset_hours', type: 'INTEGER' }] },
	{ name: 'industry_codes', columns: [{ name: 'industry', type: 'VARCHAR' }, { name: 'naics_code', type: 'VARCHAR' }, { name: 'sector', type: 'VARCHAR' }] },
	{ name: 'employee_levels', columns: [{ name: 'level', type: 'VARCHAR' }, { name: 'band', type: 'VARCHAR' }, { name: 'is_manager', type: 'BOOLEAN' }] }
];

export const INTERMEDIATE_VERBS = ['joined', 'enriched', 'deduplicated', 'filtered', 'pivoted', 'unioned', 'mapped', 'scored', 'windowed', 'flagged'];
export const AGG_VERBS = ['aggregated', 'rolled_up', 'summarized', 'by_day', 'by_month'];
export const MART_PREFIXES = ['fct', 'dim', 'rpt', 'agg', 'mart'];
export const SCHEDULE_TAGS = ['daily', 'daily', 'daily', 'hourly', 'weekly'];
export const TEAMS = ['analytics-engineering', 'finance-analytics', 'growth', 'data-platform', 'revops', 'product-analytics', 'people-analytics', 'support-ops'];

const RESERVED = new Set(['order', 'group', 'user', 'table', 'select', 'from', 'where', 'case', 'end', 'limit', 'offset', 'desc', 'asc', 'default', 'check', 'column', 'primary', 'references', 'window', 'all', 'any', 'cast', 'source', 'final', 'renamed', 'people', 'events']);

export function singular(word: string): string {
	if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
	if (word.endsWith('sses')) return word.slice(0, -2);
	if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
	return word;
}

/** A CTE alias that is a valid, non-reserved identifier. */
export function safeAlias(word: string): string {
	const w = word.replace(/[^a-z0-9_]/g, '_').replace(/^([0-9])/, '_$1');
	return RESERVED.has(w) ? `${w}_rows` : w;
}
