{{- define "klens.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "klens.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "klens.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "klens.configSecret" -}}
{{- if .Values.config.existingSecret -}}
{{- .Values.config.existingSecret -}}
{{- else -}}
{{- printf "%s-config" (include "klens.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- /* "true" when each browser must stay on one pod: stickySessions.enabled, or auto and more than one replica. */ -}}
{{- define "klens.sticky" -}}
{{- $mode := toString .Values.stickySessions.enabled -}}
{{- if or (eq $mode "true") (and (eq $mode "auto") (gt (int .Values.replicaCount) 1)) -}}
true
{{- end -}}
{{- end -}}
