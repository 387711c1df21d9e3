package argcheck

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func newCountingServer(t *testing.T, hits chan<- struct{}) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- struct{}{}
		w.Write([]byte(`{"type":"string"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
