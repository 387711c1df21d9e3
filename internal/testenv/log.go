package testenv

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// LogEnv is the environment variable that turns a test manager's log up to
// debug: the Events it records, the V(1) lines, and the expected errors
// Logger otherwise leaves out.
const LogEnv = "TOOLGATE_TEST_LOG"

// Logger returns the logger a test package's manager logs through
// (ctrl.SetLogger(testenv.Logger())): controller-runtime's development
// logger on standard error, as before, but made for reading a failing
// test's output.
//
//   - No stack traces below panic. A reconciler error's stack is always the
//     same three frames of controller-runtime's worker loop; in a package of
//     dozens of tests those traces buried the line that said which test
//     failed and why.
//   - Info, not debug: the Events and V(1) lines show with
//     TOOLGATE_TEST_LOG=debug.
//   - An error that is part of the normal course of a test run is logged at
//     V(1), not as an error: an optimistic-lock conflict (the write is
//     retried from the queue, and the test asserts on the outcome) and a
//     context cancelled when the manager stops at the end of the package.
//     Every other error is logged as before.
func Logger() logr.Logger {
	return LoggerTo(os.Stderr)
}

// LoggerTo is Logger writing to w: for a component a test starts with a
// logger of its own (the gate server), writing to the test's log, so that
// only a failing test's lines are printed.
func LoggerTo(w io.Writer) logr.Logger {
	return newLogger(w, os.Getenv(LogEnv) == "debug")
}

func newLogger(w io.Writer, debug bool) logr.Logger {
	level := zapcore.InfoLevel
	if debug {
		level = zapcore.DebugLevel
	}
	inner := zap.New(zap.UseDevMode(true), zap.WriteTo(w), zap.Level(level),
		zap.StacktraceLevel(zapcore.PanicLevel))
	// One frame deeper, for the sink below, so that the caller logged is
	// the one that called the logger.
	return logr.New(expectedErrorsQuiet{sink: inner.WithCallDepth(1).GetSink()})
}

// ExpectedError reports whether err is one that a test run meets in its
// normal course, which a retry or the end of the run takes care of: an
// optimistic-lock conflict, or a cancelled context.
func ExpectedError(err error) bool {
	return apierrors.IsConflict(err) || errors.Is(err, context.Canceled)
}

// expectedErrorsQuiet is a logr sink that logs ExpectedError errors at V(1)
// and passes everything else on unchanged.
type expectedErrorsQuiet struct {
	sink logr.LogSink
}

var _ logr.CallDepthLogSink = expectedErrorsQuiet{}

// Init does nothing: the sink it wraps was initialised by the logger it
// came from, and newLogger set its call depth.
func (s expectedErrorsQuiet) Init(logr.RuntimeInfo) {}

func (s expectedErrorsQuiet) Enabled(level int) bool { return s.sink.Enabled(level) }

func (s expectedErrorsQuiet) Info(level int, msg string, keysAndValues ...any) {
	s.sink.Info(level, msg, keysAndValues...)
}

func (s expectedErrorsQuiet) Error(err error, msg string, keysAndValues ...any) {
	if !ExpectedError(err) {
		s.sink.Error(err, msg, keysAndValues...)
		return
	}
	if s.sink.Enabled(1) {
		s.sink.Info(1, msg, append(keysAndValues, "error", err.Error(), "expected", true)...)
	}
}

func (s expectedErrorsQuiet) WithValues(keysAndValues ...any) logr.LogSink {
	return expectedErrorsQuiet{sink: s.sink.WithValues(keysAndValues...)}
}

func (s expectedErrorsQuiet) WithName(name string) logr.LogSink {
	return expectedErrorsQuiet{sink: s.sink.WithName(name)}
}

func (s expectedErrorsQuiet) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.sink.(logr.CallDepthLogSink); ok {
		return expectedErrorsQuiet{sink: cd.WithCallDepth(depth)}
	}
	return s
}
