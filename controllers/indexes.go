package controllers

import "github.com/toolgate/toolgate/internal/gateconfig"

// The field indexes the reconcilers list through. Package gateconfig owns
// and registers them, because the gates' configuration builder reads
// through the same ones; these names keep the reconcilers' queries short.
const (
	// pinServerIndex indexes ToolPins by the MCPServer they belong to.
	pinServerIndex = gateconfig.PinServerIndex
	// serverReferenceIndex indexes MCPServers by the Secrets and
	// ConfigMaps they read.
	serverReferenceIndex = gateconfig.ServerReferenceIndex
)
