{{- define "bf.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "bf.labels" -}}
app.kubernetes.io/name: browserfleet
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "bf.selector" -}}
app.kubernetes.io/name: browserfleet
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "bf.image" -}}
{{- $img := index .root.Values.images .name -}}
{{- printf "%s:%s" $img.repository (default .root.Chart.AppVersion $img.tag) -}}
{{- end -}}

{{- define "bf.natsSecret" -}}
{{- default (printf "%s-nats" (include "bf.fullname" .)) .Values.nats.existingSecret -}}
{{- end -}}

{{- define "bf.postgresSecret" -}}
{{- default (printf "%s-postgres" (include "bf.fullname" .)) .Values.postgres.existingSecret -}}
{{- end -}}

{{- define "bf.internalNats" -}}
{{- and .Values.nats.internal.enabled (not .Values.nats.url) (not .Values.nats.existingSecret) -}}
{{- end -}}

{{- define "bf.internalPostgres" -}}
{{- and .Values.postgres.internal.enabled (not .Values.postgres.url) (not .Values.postgres.existingSecret) -}}
{{- end -}}

{{- define "bf.podSecurity" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "bf.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{- define "bf.monitoringCrds" -}}
{{- or .Values.monitoring.force (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") -}}
{{- end -}}
