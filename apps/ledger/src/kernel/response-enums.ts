/** The enumerations the response schemas document (docs/openapi.json). */
export const ROLES = ['table-device', 'betting-platform', 'pit-manager', 'auditor'] as const;
export const EVENT_ROLES = [...ROLES, 'system'] as const;
export const VARIANTS = ['classic', 'tiger', 'fabulous4'] as const;
export const SHOE_STATUSES = ['OPEN', 'COMMENCING', 'READY', 'IN_ROUND', 'CLOSED', 'VOIDED'] as const;
export const ROUND_STATUSES = ['OPEN', 'RESULTED', 'CORRECTED', 'VOIDED'] as const;
export const WINNERS = ['PLAYER', 'BANKER', 'TIE'] as const;
export const POSITIONS = ['P1', 'B1', 'P2', 'B2', 'P3', 'B3'] as const;
export const SETTLEMENT_STATUSES = ['OPEN', 'SETTLED', 'RESETTLED', 'REFUNDED'] as const;
export const BET_RESULTS = ['WIN', 'LOSE', 'PUSH'] as const;
export const DECISION_STATUSES = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'EXPIRED'] as const;
export const DECISION_KINDS = ['VOID_ROUND', 'CORRECT_RESULT', 'VOID_SHOE', 'CORRECT_COMMENCEMENT'] as const;
