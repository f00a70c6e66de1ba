// Every metric an alert, a recording rule or a dashboard panel reads is produced
// by a component that a shipped monitor scrapes, both ways a cluster is
// monitored: the Prometheus Operator's objects (deploy/prometheus-operator/:
// a PodMonitor selects the component's Pods, or a ServiceMonitor a Service
// that selects them) and the prometheus.io/scrape annotations on its Pod
// template (deploy/kubernetes/, deploy/kubernetes/routing/, deploy/kubernetes/rebalance/, deploy/karmada/host/). A rule or panel about a
// component nothing scrapes can never fire or draw.
// Which component produces a metric is the table below, by name; a carbonroute
// metric it does not know fails the check, so the table follows the contract
// (contract/metric_names.h). Metrics of other exporters (Kepler, DCGM) and the
// rules' own outputs are not carbonroute's to scrape.
// Usage: node check-scrape-coverage.mjs DEPLOY_DIR   (run by scripts/check-manifests)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const deploy = process.argv[2];
// name → the app label of the Pods that export it.
const producers = [
  [/^carbonroute_scheduler_/, 'carbonroute-extender'],
  [/^carbonroute_hold_/, 'carbonroute-hold'],
  [/^(carbonroute_karmada_|carbon_aware_karmada_operator_)/, 'carbonroute-karmada'],
  [/^carbonroute_routing_/, 'carbonroute-route'],
  [/^carbonroute_rebalance_/, 'carbonroute-rebalance'],
  // The savings ledger: every controller that books in it (the Karmada controller and hold;
  // the check needs one scraped producer).
  [/^carbonroute_ledger_/, 'carbonroute-karmada'],
  [/^carbonroute_(carbon_intensity_|provider_|cache_|last_poll_|keda_)/, 'carbonroute-carbon'],
  [/^carbonroute_(node_info|rtt_|zone_rtt_|probe_)/, 'carbonroute-collector'],
];
const ours = /^(carbonroute_|carbon_aware_karmada_operator_)/;

// The metrics read, and the recording rules' outputs (not scraped: computed).
const read = new Map();  // metric → where it is read
const recorded = new Set();
const identifiers = (expr) => String(expr).match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
for (const file of readdirSync(join(deploy, 'prometheus')).filter((f) => f.endsWith('.yaml') && !f.endsWith('_test.yaml'))) {
  for (const group of parse(readFileSync(join(deploy, 'prometheus', file), 'utf8')).groups ?? []) {
    for (const rule of group.rules ?? []) {
      if (rule.record) recorded.add(rule.record);
      for (const name of identifiers(rule.expr)) {
        if (!read.has(name)) read.set(name, `${file}: ${rule.alert ?? rule.record}`);
      }
    }
  }
}
const dashboard = JSON.parse(readFileSync(join(deploy, 'grafana', 'carbonroute.json'), 'utf8'));
const panels = (list) => list.flatMap((p) => [p, ...panels(p.panels ?? [])]);
for (const panel of panels(dashboard.panels ?? [])) {
  for (const target of panel.targets ?? []) {
    for (const name of identifiers(target.expr)) {
      if (!read.has(name)) read.set(name, `the dashboard's panel "${panel.title}"`);
    }
  }
}

// What the shipped objects scrape: app labels, per way of monitoring.
const objects = [];
for (const dir of ['kubernetes', 'kubernetes/routing', 'kubernetes/rebalance', 'karmada/host', 'prometheus-operator']) {
  for (const file of readdirSync(join(deploy, dir)).filter((f) => f.endsWith('.yaml'))) {
    for (const document of parseAllDocuments(readFileSync(join(deploy, dir, file), 'utf8'))) {
      const object = document.toJS();
      if (object) objects.push(object);
    }
  }
}
const byOperator = new Set();
const byAnnotation = new Set();
for (const object of objects) {
  if (object.kind === 'PodMonitor') byOperator.add(object.spec?.selector?.matchLabels?.app);
  if (object.kind === 'ServiceMonitor') {
    const wanted = object.spec?.selector?.matchLabels ?? {};
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const labels = service.metadata?.labels ?? {};
      if (Object.entries(wanted).every(([k, v]) => labels[k] === v)) byOperator.add(service.spec?.selector?.app);
    }
  }
  if (['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind)) {
    const template = object.spec?.template?.metadata ?? {};
    if (template.annotations?.['prometheus.io/scrape'] === 'true') byAnnotation.add(template.labels?.app);
  }
}

let failures = 0;
for (const [name, where] of [...read].sort()) {
  if (!ours.test(name) || recorded.has(name)) continue;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const producer = producers.find(([pattern]) => pattern.test(base))?.[1];
  if (!producer) {
    console.error(`check-scrape-coverage: ${name} (read by ${where}) has no producer in the table`);
    failures++;
    continue;
  }
  for (const [way, scraped] of [['PodMonitor or ServiceMonitor', byOperator],
                                ['prometheus.io/scrape annotation', byAnnotation]]) {
    if (!scraped.has(producer)) {
      console.error(`check-scrape-coverage: ${name} (read by ${where}) comes from ${producer}, ` +
                    `which no ${way} scrapes`);
      failures++;
    }
  }
}
console.log(`check-scrape-coverage: ${read.size} names read by rules and panels; ` +
            `${[...byOperator].sort().join(', ')} monitored; ${failures} problems`);
process.exit(failures === 0 ? 0 : 1);
