// Package secretmask recognises literal secrets by their documented
// formats (AWS access keys; GitHub, Slack, Stripe, OpenAI, Anthropic,
// Google, npm, GitLab, Hugging Face and PyPI tokens; bearer tokens; JWTs;
// private key blocks) and masks them.
//
// It is the part of the poisoning scan (pkg/scan) that text shown to people
// needs on its own: the gate masks the arguments of a call awaiting
// approval with it, and links none of the scan's lexicons, which would cost
// every agent pod's sidecar megabytes of heap.
package secretmask
