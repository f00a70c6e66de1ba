#!/usr/bin/env python3
"""Splits `helm template` output into the kustomize manifests (scripts/render-manifests).

Usage: split_rendered.py RENDERED OUT_DIR
       split_rendered.py --kinds KIND,... RENDERED OUT_FILE   (only those kinds' documents, one file)
Each document goes to the file its template maps to (ROUTES: the template's name, and for the
Prometheus Operator's template the document's kind); within a file the documents are ordered by
KIND_ORDER (Helm prints them in its install order), keeping Helm's order among one kind. The
`# Source:` line Helm adds is dropped, so each file reads as written by hand."""
import pathlib
import re
import sys

ROUTES = {
    "templates/priority-class.yaml": "kubernetes/priority-class.yaml",
    "templates/collector-daemonset.yaml": "kubernetes/collector-daemonset.yaml",
    "templates/collector-carbon-role.yaml": "kubernetes/collector-carbon-role.yaml",
    "templates/scheduler.yaml": "kubernetes/scheduler.yaml",
    "templates/extender.yaml": "kubernetes/extender.yaml",
    "templates/hold.yaml": "kubernetes/hold.yaml",
    "templates/routing-controller.yaml": "kubernetes/routing/controller.yaml",
    "crds/crd-carbonroutingpolicies.yaml": "kubernetes/routing/crd-carbonroutingpolicies.yaml",
    "templates/rebalance-controller.yaml": "kubernetes/rebalance/controller.yaml",
    "crds/crd-carbonrebalancepolicies.yaml": "kubernetes/rebalance/crd-carbonrebalancepolicies.yaml",
    "templates/karmada-controller.yaml": "karmada/host/controller.yaml",
    ("templates/prometheus-operator.yaml", "ServiceMonitor"): "prometheus-operator/service-monitor.yaml",
    ("templates/prometheus-operator.yaml", "PodMonitor"): "prometheus-operator/pod-monitor.yaml",
    ("templates/prometheus-operator.yaml", "PrometheusRule"): "prometheus-operator/prometheus-rules.yaml",
}
KIND_ORDER = ["ConfigMap", "Secret", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
              "RoleBinding", "PriorityClass", "CustomResourceDefinition", "DaemonSet", "Deployment",
              "PodDisruptionBudget", "Service", "NetworkPolicy", "ServiceMonitor", "PodMonitor",
              "PrometheusRule"]
HEADER = ("# Rendered from deploy/helm/carbonroute by scripts/render-manifests: edit the chart, then\n"
          "# run it (scripts/test fails when the two differ).\n")


def helm_documents(rendered: str):
    """(index, template, kind, body) of each document Helm printed."""
    for index, document in enumerate(re.split(r"^---\n", rendered, flags=re.M)):
        match = re.match(r"# Source: carbonroute/(\S+)\n", document)
        if not match:
            if document.strip():
                sys.exit(f"split_rendered: a document without its # Source: line:\n{document[:200]}")
            continue
        body = document[match.end():].rstrip("\n") + "\n"
        yield index, match.group(1), re.search(r"^kind: (\w+)$", body, flags=re.M).group(1), body


def main() -> None:
    if sys.argv[1] == "--kinds":
        kinds = sys.argv[2].split(",")
        rendered, out = pathlib.Path(sys.argv[3]).read_text(), pathlib.Path(sys.argv[4])
        kept = [body for _, _, kind, body in helm_documents(rendered) if kind in kinds]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(out.read_text() + "---\n".join(kept) if out.exists() else "---\n".join(kept))
        return
    rendered, out = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2])
    files: dict[str, list[tuple[int, int, str]]] = {}
    for index, template, kind, body in helm_documents(rendered):
        route = ROUTES.get(template) or ROUTES.get((template, kind))
        if route is None:
            sys.exit(f"split_rendered: no kustomize file for {template} ({kind}): add it to ROUTES")
        files.setdefault(route, []).append((KIND_ORDER.index(kind), index, body))
    for route, documents in files.items():
        path = out / route
        path.parent.mkdir(parents=True, exist_ok=True)
        texts = [body for _, _, body in sorted(documents)]
        header = "" if route.endswith("prometheus-rules.yaml") else HEADER
        path.write_text(header + "---\n".join(texts))


if __name__ == "__main__":
    main()
