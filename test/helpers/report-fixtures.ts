// The one violation each invalid golden fixture must produce (and nothing else).
export const EXPECTED_VIOLATIONS: Record<string, string> = {
  'invalid-anchor-range.json': 'entries[2].exact_edit.anchor: start_line 52 is after end_line 40',
  'invalid-anchor-required.json':
    'entries[0].exact_edit.expected_sha256: is required for kind "delete-range"',
  'invalid-category-subtype.json': 'entries[7].category.subtype: "superseded" is not a bloat subtype',
  'invalid-duplicate-id.json': 'entries[4].id: duplicate of entries[2].id "c3d4e5f6"',
  'invalid-generative-flags.json': 'entries[7].is_reversible: expected true (generative op), found false',
  'invalid-kind-fields.json': 'entries[2].exact_edit.canonical_ref: is required for kind "dedupe"',
  'invalid-kind-flags.json':
    'entries[0].is_destructive: expected true (KIND_TABLE "delete-range"), found false',
  'invalid-op-type-exact-edit.json': 'entries[1].exact_edit: is required when op_type is "deterministic"',
  'invalid-path-in-shortlist.json': 'entries[2].path: "docs/api.md" is not in shortlist',
  'invalid-safety-tier.json': 'entries[0].safety_tier: expected "confirm" (derived), found "auto"',
  'invalid-totals.json':
    'totals.tokens_saved_per_session: expected 1400 (Σ entries[].token_estimate.weighted_tokens), found 2000',
  'invalid-weighted-tokens.json':
    'entries[7].token_estimate.weighted_tokens: expected 1400 (raw_tokens × injection_frequency), found 700',
};
