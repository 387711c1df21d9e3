// Package fleet measures the operator serving configuration to a fleet of
// gates: 2,000 configuration streams (20 namespaces of 100 pods by
// default), held by the real gate client code in the test process, against
// the operator binary running as its own process with a real API server.
// The pods are created through the operator's injection webhook, as a
// cluster creates them, and each gate holds a token bound to its pod,
// minted with a TokenRequest as the kubelet would project it.
//
// It measures how long a ToolPolicy edit and a ToolPin change take to
// reach every gate, the operator's memory per stream, how long the fleet
// takes to be served again after the operator is killed and restarted, and
// how many TokenReviews and pod reads the API server answered for it. It
// runs only when TOOLGATE_FLEET is set (make bench-fleet): it takes both
// cores for several minutes.
package fleet
