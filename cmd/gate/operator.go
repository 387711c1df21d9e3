package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Beside the token, in the gate's projected volume, the injector places
// the operator's endpoint and CA (from pod annotations, by the downward
// API). These names match internal/inject's.
const (
	operatorURLFile = "operator-url"
	operatorCAFile  = "ca.crt"
)

// operatorEndpoint says where the gate takes its configuration from: the
// operator URL and CA file that lie beside its token. The token is bound
// to the pod and is what the operator hands upstream credentials for; a
// gate that presented it wherever its command line said would give it to
// anyone who could start the binary with other flags (an exec into the
// gate's container, say). So the endpoint comes from the volume the
// kubelet writes and the guard policy keeps unchanged, and the flags,
// when given, may only repeat it: a gate told otherwise refuses to start.
func operatorEndpoint(tokenFile, urlFlag, caFlag string) (url, caFile string, err error) {
	dir := filepath.Dir(tokenFile)
	urlPath := filepath.Join(dir, operatorURLFile)
	b, err := os.ReadFile(urlPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("--token-file %s: no %s beside it; the gate presents its token only to the operator its pod names there", tokenFile, urlPath)
		}
		return "", "", fmt.Errorf("reading %s: %w", urlPath, err)
	}
	url = strings.TrimSpace(string(b))
	if url == "" {
		return "", "", fmt.Errorf("%s is empty", urlPath)
	}
	if urlFlag != "" && urlFlag != url {
		return "", "", fmt.Errorf("--operator-url %q is not the operator the pod names (%s in %s): the gate presents its token to no other", urlFlag, url, urlPath)
	}
	caFile = filepath.Join(dir, operatorCAFile)
	if caFlag != "" && filepath.Clean(caFlag) != caFile {
		want, err := os.ReadFile(caFile)
		if err != nil {
			return "", "", fmt.Errorf("reading %s: %w", caFile, err)
		}
		got, err := os.ReadFile(caFlag)
		if err != nil {
			return "", "", fmt.Errorf("--operator-ca-file: %w", err)
		}
		if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
			return "", "", fmt.Errorf("--operator-ca-file %s is not the CA the pod names (%s): the gate trusts no other", caFlag, caFile)
		}
	}
	return url, caFile, nil
}
