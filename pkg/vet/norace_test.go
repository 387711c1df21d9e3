//go:build !race

package vet

// raceEnabled says the tests were built with -race.
const raceEnabled = false
