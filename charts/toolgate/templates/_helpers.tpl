{{/* The chart's name, or nameOverride. */}}
{{- define "toolgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: fullnameOverride, or the release name
when it contains the chart's name, or <release>-<chart>. Kept short enough
that "<fullname>-webhook-cert" and friends stay under 63 characters.
*/}}
{{- define "toolgate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "toolgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object. app.kubernetes.io/component names the part of the
architecture an object belongs to, so it is not here: the CRDs, the roles
people are bound to and the admission policy belong to no one component.
*/}}
{{- define "toolgate.labels" -}}
helm.sh/chart: {{ include "toolgate.chart" . }}
app.kubernetes.io/name: {{ include "toolgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: toolgate
{{- end }}

{{/* Labels of the operator's own objects: its workload, Services, identity, rights, webhooks and certificate. */}}
{{- define "toolgate.operatorLabels" -}}
{{ include "toolgate.labels" . }}
app.kubernetes.io/component: operator
{{- end }}

{{/* Labels of what the chart renders for monitoring: rules, dashboards, the gates' PodMonitor. */}}
{{- define "toolgate.monitoringLabels" -}}
{{ include "toolgate.labels" . }}
app.kubernetes.io/component: monitoring
{{- end }}

{{/* The labels that select the operator's pods. */}}
{{- define "toolgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "toolgate.serviceAccountName" -}}
{{- default (printf "%s-operator" (include "toolgate.fullname" .)) .Values.serviceAccount.name }}
{{- end }}

{{/*
The operator's replicas: the deprecated replicas when it is set, which
overrides replicaCount for one release, or replicaCount.
*/}}
{{- define "toolgate.replicas" -}}
{{- if kindIs "invalid" .Values.replicas }}{{ int .Values.replicaCount }}{{ else }}{{ int .Values.replicas }}{{ end }}
{{- end }}

{{/* The Service of the webhooks and the gate server; the certificate is for it. */}}
{{- define "toolgate.serviceName" -}}
{{- printf "%s-operator" (include "toolgate.fullname" .) }}
{{- end }}

{{/* The Secret holding tls.crt, tls.key and ca.crt, in both certificate modes. */}}
{{- define "toolgate.certSecret" -}}
{{- printf "%s-webhook-cert" (include "toolgate.fullname" .) }}
{{- end }}

{{- define "toolgate.mutatingWebhook" -}}
{{- printf "%s-mutating" (include "toolgate.fullname" .) }}
{{- end }}
{{- define "toolgate.validatingWebhook" -}}
{{- printf "%s-validating" (include "toolgate.fullname" .) }}
{{- end }}
{{- define "toolgate.injectionWebhook" -}}
{{- printf "%s-injection" (include "toolgate.fullname" .) }}
{{- end }}
{{- define "toolgate.gateAccessWebhook" -}}
{{- printf "%s-gate-access" (include "toolgate.fullname" .) }}
{{- end }}
{{- define "toolgate.trustConfigMap" -}}
{{- printf "%s-inject-trust" (include "toolgate.fullname" .) }}
{{- end }}

{{/* Whether the operator rotates its own certificate: cert-manager turns it off. */}}
{{- define "toolgate.certRotation" -}}
{{- if and .Values.certificates.rotation (not .Values.certManager.enabled) (not .Values.externalOperator.enabled) }}true{{ end }}
{{- end }}

{{/*
A webhook's clientConfig: the chart's Service, or, with externalOperator,
the process's URL and the CA the user gave.
*/}}
{{- define "toolgate.clientConfig" -}}
{{- if .root.Values.externalOperator.enabled }}
{{- dict "url" (printf "%s%s" (trimSuffix "/" .root.Values.externalOperator.webhookURL) .path) "caBundle" .root.Values.externalOperator.caBundle | toYaml }}
{{- else }}
{{- dict "service" (dict "name" (include "toolgate.serviceName" .root) "namespace" .root.Release.Namespace "port" (int .root.Values.service.webhookPort) "path" .path) | toYaml }}
{{- end }}
{{- end }}

{{/* The annotation cert-manager's cainjector reads, in cert-manager mode. */}}
{{- define "toolgate.caInjection" -}}
{{- if .Values.certManager.enabled }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "toolgate.fullname" . }}-serving
{{- end }}
{{- end }}

{{- define "toolgate.image" -}}
{{- printf "%s:%s" .repository (default .appVersion .tag) }}
{{- end }}

{{/*
The objects of a multi-document YAML file under files/, as a list under
"items" (a template can only return a string).
*/}}
{{- define "toolgate.fileObjects" -}}
{{- $items := list }}
{{- range $doc := regexSplit "(?m)^---\\s*$" (.root.Files.Get .path) -1 }}
{{- $o := fromYaml $doc }}
{{- if $o.kind }}
{{- $items = append $items $o }}
{{- end }}
{{- end }}
{{- dict "items" $items | toYaml }}
{{- end }}

{{/* The rules of the ClusterRole in a file of files/rbac, by its name. */}}
{{- define "toolgate.rules" -}}
{{- $objs := (fromYaml (include "toolgate.fileObjects" (dict "root" .root "path" .path))).items }}
{{- $found := false }}
{{- range $objs }}
{{- if eq .metadata.name $.name }}
{{- $found = true }}
{{- toYaml .rules }}
{{- end }}
{{- end }}
{{- if not $found }}
{{- fail (printf "no ClusterRole %s in %s" .name .path) }}
{{- end }}
{{- end }}

{{/*
A webhook configuration under files/webhook that selects the opted-in
namespaces (the injector's, the gate-access guard's), as YAML: each webhook
pointed at the chart's Service with injection.timeoutSeconds, its
namespaceSelector never selecting the system namespaces, the release
namespace or injection.excludedNamespaces.
*/}}
{{- define "toolgate.injectionWebhookConfiguration" -}}
{{- $root := .root }}
{{- $o := fromYaml ($root.Files.Get .path) }}
{{- $excluded := concat (list "kube-system" "kube-public" "kube-node-lease" $root.Release.Namespace) $root.Values.injection.excludedNamespaces | uniq }}
{{- range $wh := $o.webhooks }}
{{- $_ := set $wh "clientConfig" (fromYaml (include "toolgate.clientConfig" (dict "root" $root "path" $wh.clientConfig.service.path))) }}
{{- $_ = set $wh "timeoutSeconds" (int $root.Values.injection.timeoutSeconds) }}
{{- $exprs := list }}
{{- range $e := $wh.namespaceSelector.matchExpressions }}
{{- if and (eq $e.key "kubernetes.io/metadata.name") (eq $e.operator "NotIn") }}
{{- $e = merge (dict "values" $excluded) $e }}
{{- end }}
{{- $exprs = append $exprs $e }}
{{- end }}
{{- $_ = set $wh.namespaceSelector "matchExpressions" $exprs }}
{{- end }}
{{- toYaml $o }}
{{- end }}
