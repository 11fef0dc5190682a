/**
 * The regulatory texts the significant-event catalogue cites (docs/significant-events.md), each by a
 * short key. A kind of the catalogue names the keys of the texts that ask for it; the generated
 * document prints the citation. The wording names the provision only: the texts themselves are the
 * regulators'.
 */
export const REGULATIONS = {
  'AGCO-4.02.7': "AGCO Registrar's Standards, Standard 4.02, requirement 7 (tracking of events, significant events included)",
  'AGCO-4.02.8': "AGCO Registrar's Standards, Standard 4.02, requirement 8 (tracking of game enabling, disabling and configuration changes)",
  'IGS-5.8.2': 'interactive-gaming technical standard, section 5.8.2 (significant events)',
  'IGS-5.8.3': 'interactive-gaming technical standard, section 5.8.3 (significant events)',
  'UKGC-RTS-17A': 'UKGC Remote gambling and software technical standards, RTS 17A (live dealer operations fair and independently auditable)',
  'MS-8-4.5': '13 Miss. Code R. 8-4.5 (clock synchronisation)',
  'COMAR-36.05.02.17.F': 'COMAR 36.05.02.17.F (chi-squared test of outcomes at 95 % confidence)',
} as const;

/** A key of {@link REGULATIONS}. */
export type RegulationRef = keyof typeof REGULATIONS;
