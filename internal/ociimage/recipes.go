package ociimage

// ManagerImage is Dockerfile.manager's recipe: the operator at /manager,
// its version stamped where cmd/manager reports it, under the name the
// chart's defaults give it.
func ManagerImage(version string) GoImage {
	return GoImage{
		Package: "./cmd/manager",
		Name:    "manager",
		Ref:     "ghcr.io/toolgate/manager:" + version,
		LDFlags: "-X main.version=" + version,
	}
}

// GateImage is Dockerfile.gate's recipe: the gate at /gate, under the name
// the chart's defaults give it.
func GateImage(version string) GoImage {
	return GoImage{
		Package: "./cmd/gate",
		Name:    "gate",
		Ref:     "ghcr.io/toolgate/gate:" + version,
	}
}
