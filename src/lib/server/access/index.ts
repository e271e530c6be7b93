// THE one place where access is decided (DESIGN.md §6), one small file per concern. Two
// independent questions, always asked together by a gate:
//   1. may the OWNER do this?   canReadPath / canWritePath (membership, folders, groups, admin)
//   2. does the TOKEN allow it? scopeAllows / requireScope (narrowing only; never grants)
// A token acts as its owner narrowed by its scopes, so a gate is the conjunction of both;
// mayReadPath / mayWritePath spell that conjunction for the common script-path case.
// Callers import from here; the files behind it are access/'s own layout.
export type { Principal } from './principal';
export { requireAuth, workspacePrincipal, NO_SUCH_WORKSPACE, buildPrincipal, visibleWorkspaces, viewTokenOf } from './identity';
export { granteesOf, canReadPath, canWritePath, canReadFolder, canWriteFolder, mayReadPath, mayWritePath, readablePathFilter, readableFolderPrefix } from './folders';
export { parseScope, patternMatches, scopeAllows, requireScope, scopePathFilter, filterAllows, scopesCovered, authScopeAllows, actionOfMethod } from './scopes';
export type { PathPattern, ParsedScope, ScopePathFilter } from './scopes';
export { requireAdmin, adminAllows, requireAdminAccess, requireWorkspaceCreate, requireFork, requireInstanceStats, mayListTokens, requireTokenList, requireTokenMint, requireTokenRevoke, requireMintWithin, mayManageAccounts } from './admin';
export type { AdminResource } from './admin';
export { ASK_FOR_SHARE_LINK, jobReadDecision, requireJobRead, jobListAccess, jobScopeAllows, JobNotFoundError, jobAccess, requireShareMint, mayMintShare, runPageRights, mayRun, requireScriptWrite, requireScriptDelete, mayDelete, requireRunAccess, requireCancelAccess } from './jobs';
export type { JobReadDecision, JobAccess, JobListAccess } from './jobs';
export { shapePathFilter, authoredPathFilter, assetPathGate, authoredShownOf, readableLineageOwners, readableVersion, pinnedAuthoredShown } from './hidden-nodes';
export { columnLineageAccess, principalWithLineageStamp, lineageStampOf, pinnedAccessOf, pinnedAccess } from './lineage-gates';
export type { PinnedAccess } from './lineage-gates';
export { pageAuth, pageGrant, layoutPageGrant, pagePrincipal, runPageAccess, runPageGrant, layoutAccess, requireLevelsOfRun } from './pages';
export { NO_EXPORTABLE_VERSION, exportableVersion, openLineageSender, unmappedNamespace } from './openlineage';
export { mayRunAgainstWarehouse } from './warehouses';
export { NO_SUCH_DIFF_REF, diffRefAccess } from './diff';
export type { DiffRefGrant } from './diff';
export { Grant, RunGrant, assetReadGrant, grantOf, runGrant, runGrantOf, shareGrant, workspaceGrant } from './grant';
