{{/* carbonroute's image, repository:tag (tag: the chart's appVersion unless set). */}}
{{- define "carbonroute.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The collector role's Service, the one URL controllers and hold read carbon from. */}}
{{- define "carbonroute.carbonUrl" -}}
http://carbonroute-carbon.{{ .Release.Namespace }}.svc:9464
{{- end }}

{{/* The labels every object carries: app.kubernetes.io/part-of, what the Operator objects and
     `kubectl get all -l` select by. Helm's own labels are left out: the kustomize base is this
     chart rendered, and says nothing of Helm. */}}
{{- define "carbonroute.labels" -}}
app.kubernetes.io/part-of: carbonroute
{{- end }}

{{/* A Pod's spec fields for Pod Security "restricted": non-root with an explicit user (an image
     may default to root), RuntimeDefault seccomp; the PriorityClass; pull secrets. */}}
{{- define "carbonroute.podSecurity" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: {{ .Values.runAsUser }}
  runAsGroup: {{ .Values.runAsGroup }}
  fsGroup: {{ .Values.runAsGroup }}  # emptyDir state volumes writable by that group
  seccompProfile: {type: RuntimeDefault}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{ toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A container's security context for Pod Security "restricted", root filesystem read-only. */}}
{{- define "carbonroute.containerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities: {drop: [ALL]}
{{- end }}

{{/* carbonroute's image and pull policy for a container. */}}
{{- define "carbonroute.imageLines" -}}
image: {{ include "carbonroute.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
{{- end }}

{{/* Preferred anti-affinity of a component's replicas across Nodes; the argument: (list $ app). */}}
{{- define "carbonroute.spreadReplicas" -}}
affinity:
  podAntiAffinity:  # the replicas on different Nodes, so one Node's loss leaves one
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          labelSelector:
            matchLabels: {app: {{ . }}}
          topologyKey: kubernetes.io/hostname
{{- end }}

{{/* The kube-scheduler image's tag: the value, else the cluster's own version (v1.36.3 of
     "v1.36.3-eks-1a2b3c"), so the second scheduler keeps within the cluster's minor. */}}
{{- define "carbonroute.kubeSchedulerTag" -}}
{{- .Values.scheduler.kubeScheduler.tag | default (regexFind "^v[0-9]+\\.[0-9]+\\.[0-9]+" .Capabilities.KubeVersion.Version) }}
{{- end }}

{{/* The providers' Secret: the existing one, else the one this chart makes from the values. */}}
{{- define "carbonroute.credentialsSecret" -}}
{{- .Values.carbon.credentials.existingSecret | default "carbonroute-credentials" }}
{{- end }}
