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

{{- /* A Secret of the operator's own whose key is not DATABASE_URL (CloudNativePG's <cluster>-app: uri). */}}
{{- define "bf.postgresSecretKey" -}}
{{- if .Values.postgres.existingSecret -}}{{ default "DATABASE_URL" .Values.postgres.existingSecretKey }}{{- else -}}DATABASE_URL{{- end -}}
{{- end -}}

{{- /* DATABASE_URL for the api and jobs: from one key of that Secret, else the whole Secret (envFrom). */}}
{{- define "bf.postgresEnv" -}}
{{- if ne (include "bf.postgresSecretKey" .) "DATABASE_URL" }}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.postgres.existingSecret }}, key: {{ include "bf.postgresSecretKey" . }} } }
{{- end }}
{{- end -}}

{{- define "bf.postgresEnvFrom" -}}
{{- if eq (include "bf.postgresSecretKey" .) "DATABASE_URL" }}
- secretRef: { name: {{ include "bf.postgresSecret" . }} }
{{- end }}
{{- end -}}

{{- /* Copies of each work stream NATS keeps: nats.streamReplicas, else the in-cluster NATS's servers (at most 3), else 1. */ -}}
{{- define "bf.natsStreamReplicas" -}}
{{- if .Values.nats.streamReplicas -}}
{{- .Values.nats.streamReplicas -}}
{{- else if eq (include "bf.internalNats" .) "true" -}}
{{- min 3 (int .Values.nats.internal.replicas) -}}
{{- else -}}
1
{{- end -}}
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

{{- /* S3 credentials given inline (a fallback for tests): they go in the <fullname>-artifacts Secret. */}}
{{- define "bf.artifactsS3Inline" -}}
{{- $s3 := .Values.artifacts.s3 -}}
{{- if and (eq .Values.artifacts.store "s3") (not $s3.existingSecret) (or $s3.accessKeyId $s3.secretAccessKey) -}}
true
{{- end -}}
{{- end -}}

{{- /* The chart's own <fullname>-artifacts Secret: the generated URL secret and/or inline S3 credentials. */}}
{{- define "bf.artifactsSecretRendered" -}}
{{- if or (not .Values.artifacts.urlSecret.existingSecret) (eq (include "bf.artifactsS3Inline" .) "true") -}}
true
{{- end -}}
{{- end -}}

{{- /* Values the api cannot work with, refused with what to set instead. */}}
{{- define "bf.artifactsCheck" -}}
{{- $a := .Values.artifacts -}}
{{- if and (eq $a.store "files") (gt (int .Values.api.replicas) 1) -}}
{{- fail (printf "artifacts.store=files keeps the files given by link in each api pod's /tmp, so with api.replicas=%d a link made by one pod is not found by the others: set artifacts.store=s3 (with artifacts.s3.bucket), or api.replicas=1" (int .Values.api.replicas)) -}}
{{- end -}}
{{- if and (eq $a.store "s3") (not $a.s3.bucket) -}}
{{- fail "artifacts.store=s3 needs artifacts.s3.bucket" -}}
{{- end -}}
{{- if and (eq (include "bf.artifactsS3Inline" .) "true") (not (and $a.s3.accessKeyId $a.s3.secretAccessKey)) -}}
{{- fail "artifacts.s3.accessKeyId and artifacts.s3.secretAccessKey go together (or use artifacts.s3.existingSecret)" -}}
{{- end -}}
{{- range $k := list "ARTIFACTS_STORE" "ARTIFACT_TTL_MS" "ARTIFACT_URL_SECRET" "S3_BUCKET" "S3_ENDPOINT" "S3_REGION" "S3_PREFIX" "S3_FORCE_PATH_STYLE" "S3_ACCESS_KEY_ID" "S3_SECRET_ACCESS_KEY" -}}
{{- if hasKey $.Values.config $k -}}
{{- fail (printf "config.%s: set it through artifacts.* instead (secrets belong in a Secret: artifacts.urlSecret.existingSecret, artifacts.s3.existingSecret)" $k) -}}
{{- end -}}
{{- end -}}
{{- range $k, $v := .Values.config -}}
{{- if or (eq $k "X402_FACILITATOR_PRIVATE_KEY") (hasSuffix "_API_KEY" $k) (hasSuffix "_PASSWORD" $k) -}}
{{- fail (printf "config.%s is a secret: put it in a Secret of your own and name it in configSecret.existingSecret (config ends up in the Deployment in clear)" $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret with EGRESS_PROXIES (the egress pools, credentials in their URLs); empty when there are none. */}}
{{- define "bf.egressSecret" -}}
{{- if .Values.egress.existingSecret -}}
{{ .Values.egress.existingSecret }}
{{- else if .Values.egress.pools -}}
{{ include "bf.fullname" . }}-egress
{{- end -}}
{{- end -}}
