// Package risk judges MCP tools: it infers SEP-2793's risk vocabulary
// (category, riskLevel, blastRadius, reversibility, sideEffects,
// approvalRecommendation, minTrustLevel) from a tool's name, title,
// description, schemas and annotations, and scores each tool on the ordered
// ladder L0–L5 of the client-side gating control, with floor rules that
// short-circuit to L5 on known-dangerous signals.
//
// The ladder and SEP-2793's riskLevel are computed apart: the level keeps
// the floors that fail closed, riskLevel grades what the tool does as a
// reviewer would, and the level is raised to the band of a high or critical
// riskLevel, never lowered by it.
//
// Every result carries its reasons. Declared metadata (MCP hints, SEP-2793
// fields a server puts in its annotations) can only raise a judgement, never
// lower it below what is inferred, because a malicious server can declare
// anything; disagreements are reported. Missing or vague metadata raises
// risk. docs/risk-model.md is the reference for every rule here.
//
// Assess is a sequence of named stages, each a function with a test of its
// own: readSignals reads the definition once; inferAction decides the
// action and category; blastRadius the reach; effectsOf reversibility and
// side effects; levelOfAction, applyDeclarations, raiseForDoubt,
// raiseForBroadChange, applyFindings and applyPosture climb the ladder and
// apply the floors; approvalAndTrust and gradeRisk give the approval
// recommendation, the minimum trust level and riskLevel. The stages share
// one judgement (level, reasons, floors, disagreements), and their order is
// part of the rules: a raise of one band counts from where the stages
// before left the level.
//
// The package owns judgement only. Parsing and fingerprints belong to
// package tooldef, the poisoning scan to package scan; this package imports
// nothing from Kubernetes so a CI pipeline can vet a catalogue offline.
package risk
