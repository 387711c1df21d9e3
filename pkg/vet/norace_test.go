//go:build !race

package vet

// raceDetector says the tests run under the race detector.
const raceDetector = false
