#!/usr/bin/env python3
"""Writes deploy/grafana/carbonroute.json, carbonroute's Grafana dashboard.

The dashboard is built here, panel by panel, so that a change reads as a few
lines of Python rather than hundreds of lines of JSON. `scripts/check-dashboard`
fails when the committed JSON differs from what this prints, and checks the
JSON against Grafana's own dashboard schema (the `Dashboard` type of the npm
package @grafana/schema). The classic dashboard JSON model is documented at
https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/

Usage: deploy/grafana/generate.py > deploy/grafana/carbonroute.json
Standard library only.
"""
import json
import sys

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
LOCATION = 'location=~"$location"'
NODE = 'source=~"$node"'
GRAMS = "gCO2eq/kWh"

panels = []
next_id = 1
y = 0


def row(title):
    """Starts a new row of panels below the previous one."""
    global next_id, y
    panels.append({"type": "row", "title": title, "id": next_id, "collapsed": False,
                   "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
    next_id += 1
    y += 1


def target(expr, legend="", instant=False, table=False, ref="A"):
    t = {"datasource": DATASOURCE, "expr": expr, "refId": ref, "legendFormat": legend or "__auto",
         "range": not instant, "instant": instant}
    if table:
        t["format"] = "table"
    return t


def panel(kind, title, description, targets, x, w, h=8, unit=None, options=None,
          defaults=None, overrides=None, transformations=None, advance=True):
    """Adds a panel at column x, w columns wide, on the current line."""
    global next_id, y
    field_defaults = dict(defaults or {})
    if unit:
        field_defaults["unit"] = unit
    p = {"type": kind, "title": title, "description": description, "id": next_id,
         "datasource": DATASOURCE, "gridPos": {"h": h, "w": w, "x": x, "y": y},
         "targets": targets,
         "fieldConfig": {"defaults": field_defaults, "overrides": overrides or []},
         "options": options or {}}
    if transformations:
        p["transformations"] = transformations
    panels.append(p)
    next_id += 1
    if advance:
        y += h


def timeseries(title, description, targets, x, w, unit=None, stacked=False, advance=True,
               defaults=None):
    d = {"custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10 if stacked else 0,
                    "stacking": {"mode": "normal" if stacked else "none", "group": "A"}}}
    d.update(defaults or {})
    panel("timeseries", title, description, targets, x, w, unit=unit, defaults=d,
          options={"legend": {"displayMode": "table", "placement": "right", "showLegend": True,
                              "calcs": ["lastNotNull"]},
                   "tooltip": {"mode": "multi", "sort": "desc"}},
          advance=advance)


def green_to_red(steps):
    """Thresholds from green (clean, near) through yellow to red."""
    colours = ["green", "yellow", "orange", "red"]
    return {"mode": "absolute", "steps": [{"color": "green", "value": None}] +
            [{"color": c, "value": v} for c, v in zip(colours[1:], steps)]}


# --- Carbon intensity ------------------------------------------------------
row("Carbon intensity")
panel("bargauge", "Carbon intensity now",
      "The reading valid now per grid location (carbonroute_carbon_intensity_grams_per_kilowatt_hour), "
      "gCO2eq/kWh: marginal (MOER, WattTime) or average (Electricity Maps, UK, replay).",
      [target(f"sort(carbonroute_carbon_intensity_grams_per_kilowatt_hour{{{LOCATION}}})",
              "{{location}} · {{provider}} · {{emissions_type}}", instant=True)],
      x=0, w=8, h=10, unit=GRAMS,
      defaults={"min": 0, "color": {"mode": "thresholds"}, "thresholds": green_to_red([100, 300, 500])},
      options={"orientation": "horizontal", "displayMode": "gradient", "showUnfilled": True,
               "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}},
      advance=False)
timeseries("Carbon intensity over time",
           "Each location's reading over time, gCO2eq/kWh. A gap is a time with no valid reading "
           "(never a zero).",
           [target(f"carbonroute_carbon_intensity_grams_per_kilowatt_hour{{{LOCATION}}}",
                   "{{location}} · {{provider}}")],
           x=8, w=16, unit=GRAMS, advance=False)
y += 10
panel("table", "Ranking: cleanest locations now",
      "Locations ordered by the reading valid now, lowest first; one row per location and "
      "emissions type, averaged over the collectors that poll it.",
      [target(f"sort(avg by (location, emissions_type) "
              f"(carbonroute_carbon_intensity_grams_per_kilowatt_hour{{{LOCATION}}}))",
              instant=True, table=True)],
      x=0, w=8, h=9, unit=GRAMS,
      defaults={"color": {"mode": "thresholds"}, "thresholds": green_to_red([100, 300, 500]),
                "custom": {"cellOptions": {"type": "color-background"}}},
      transformations=[{"id": "organize", "options": {
          "excludeByName": {"Time": True},
          "renameByName": {"Value": "gCO2eq/kWh"}}},
          {"id": "sortBy", "options": {"sort": [{"field": "gCO2eq/kWh"}]}}],
      advance=False)
timeseries("Forecast means",
           "Mean forecast intensity over the next 1 h, 4 h and 24 h "
           "(carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour), for providers with a forecast.",
           [target(f"carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour{{{LOCATION}}}",
                   "{{location}} next {{window}}")],
           x=8, w=8, unit=GRAMS, advance=False)
timeseries("Relative signal (percentile)",
           "WattTime's signal index where no absolute value is licensed: 0 (cleanest) to 100.",
           [target(f"carbonroute_carbon_intensity_percentile{{{LOCATION}}}", "{{location}}")],
           x=16, w=8, unit="percent", advance=False)
y += 9

# --- Latency -----------------------------------------------------------------
row("Latency (RTT matrix)")
panel("table", "RTT matrix (ms)",
      "Round-trip time from each source node (rows) to each peer (columns), milliseconds: measured "
      "where probes answer, else declared from the static matrix. Grouped into a matrix by Grafana's "
      "\"Grouping to matrix\" transformation.",
      [target(f"max by (source, target) (carbonroute_rtt_seconds{{{NODE}}}) * 1000",
              instant=True, table=True)],
      x=0, w=12, h=10, unit="ms",
      defaults={"decimals": 1, "color": {"mode": "thresholds"},
                "thresholds": green_to_red([10, 50, 150]),
                "custom": {"cellOptions": {"type": "color-background"}, "align": "center"}},
      transformations=[{"id": "groupingToMatrix", "options": {
          "columnField": "target", "rowField": "source", "valueField": "Value"}}],
      advance=False)
timeseries("Probe loss ratio",
           "Share of the recent probes from a node to a peer that got no reply within rtt.probe.timeout.",
           [target(f"carbonroute_probe_loss_ratio{{{NODE}}}", "{{source}} → {{target}}")],
           x=12, w=12, unit="percentunit", advance=False,
           defaults={"min": 0, "max": 1})
y += 10
timeseries("Probe RTT, 99th percentile",
           "From the per-pair histogram carbonroute_probe_rtt_seconds over the rate interval "
           "(exported while a collector has at most rtt.probe.histogram_max_peers peers, 100 by default).",
           [target(f"histogram_quantile(0.99, sum by (source, target, le) "
                   f"(rate(carbonroute_probe_rtt_seconds_bucket{{{NODE}}}[$__rate_interval])))",
                   "{{source}} → {{target}}")],
           x=0, w=12, unit="s", advance=False)
timeseries("Zone RTT (median per zone pair)",
           "carbonroute_zone_rtt_seconds: each collector's median RTT to the fresh peers of a zone.",
           [target("carbonroute_zone_rtt_seconds", "{{source_zone}} → {{target_zone}}")],
           x=12, w=12, unit="s", advance=False)
y += 8

# --- Collector health ----------------------------------------------------------
row("Collector health")
timeseries("Reading age",
           "Seconds since each exported reading was fetched from its provider; it grows while a "
           "failing provider's last value is kept (until validity + poll.grace).",
           [target(f"carbonroute_carbon_intensity_age_seconds{{{LOCATION}}}",
                   "{{location}} · {{provider}}")],
           x=0, w=8, unit="s", advance=False)
timeseries("Provider request outcomes",
           "Calls to each provider per second, by outcome (ok, timeout, rate_limited, "
           "unauthenticated, ...). Few calls are normal: cached readings are served until valid_to.",
           [target("sum by (provider, outcome) "
                   "(rate(carbonroute_provider_requests_total[$__rate_interval]))",
                   "{{provider}} {{outcome}}")],
           x=8, w=8, unit="reqps", stacked=True, advance=False)
timeseries("Provider series by state",
           "Each provider's series (one per location) by what pauses them: ok, backoff, "
           "rate_limited, configuration_error.",
           [target("sum by (provider, state) (carbonroute_provider_series)",
                   "{{provider}} {{state}}")],
           x=16, w=8, stacked=True, advance=False)
y += 8
timeseries("Cache hit ratio",
           "Share of lookups answered from the SQLite cache, sparing a provider call.",
           # `or vector(0)`: no hit yet is a ratio of 0, not an empty panel.
           [target("(sum(rate(carbonroute_cache_lookups_total{outcome=\"hit\"}[$__rate_interval])) "
                   "or vector(0)) / sum(rate(carbonroute_cache_lookups_total[$__rate_interval]))",
                   "hit ratio")],
           x=0, w=8, unit="percentunit", advance=False, defaults={"min": 0, "max": 1})
timeseries("Time since the last poll",
           "Seconds since each collector last completed a poll (alert CarbonroutePollLoopStuck at 15 min).",
           [target("time() - carbonroute_last_poll_timestamp_seconds", "{{instance}}")],
           x=8, w=8, unit="s", advance=False)
timeseries("Nodes per grid location",
           "How many nodes draw power from each grid location (carbonroute_node_info).",
           [target("count by (location) (carbonroute_node_info)", "{{location}}")],
           x=16, w=8, stacked=True, advance=False)
y += 8

# --- Carbon role -------------------------------------------------------------
row("Carbon role (providers polled once per cluster)")
timeseries("Grid locations polled",
           "Grid locations each collector's providers poll (with locations: nodes, the cluster's "
           "Nodes' locations), and Nodes left out for want of a provider code (a warning names "
           "each). Two carbon-role replicas show the same numbers.",
           [target("carbonroute_provider_locations", "{{provider}} · {{instance}}"),
            target("carbonroute_provider_unmapped_nodes", "unmapped Nodes · {{provider}}",
                   ref="B")],
           x=0, w=8, advance=False)
timeseries("Upstream calls per provider",
           "Calls sent to each provider per second, all collectors together: flat in the number of "
           "Nodes when only the carbon role polls. Calls the client-side limiter held back to stay "
           "within the account's published limits show in Provider request outcomes (held_back).",
           [target("sum by (provider) (rate(carbonroute_provider_requests_total"
                   "{outcome!=\"held_back\"}[$__rate_interval]))", "{{provider}}")],
           x=8, w=8, unit="reqps", advance=False)
timeseries("Monthly budget left",
           "Share of each collector's monthly call budget (monthly_budget / account_shared_by) left "
           "this month; calls are spread over the month, and polls thin out as it nears the pace "
           "(alert CarbonrouteProviderBudgetNearlySpent below 10 %).",
           [target("carbonroute_provider_budget_remaining_calls / carbonroute_provider_budget_calls",
                   "{{provider}} · {{instance}}")],
           x=16, w=8, unit="percentunit", advance=False, defaults={"min": 0, "max": 1})
y += 8

# --- Scheduler ---------------------------------------------------------------
row("Scheduler (scheduler-lite)")
timeseries("Scheduler decisions by location",
           "Extender /prioritize answers per second, by the grid location of the top-scored node.",
           [target("sum by (location) (rate(carbonroute_scheduler_decisions_total[$__rate_interval]))",
                   "{{location}}")],
           x=0, w=8, unit="reqps", stacked=True, advance=False)
timeseries("Extender latency",
           "Server-side time to answer kube-scheduler, 50th and 99th percentiles, per verb.",
           [target("histogram_quantile(0.5, sum by (verb, le) (rate("
                   "carbonroute_scheduler_extender_request_duration_seconds_bucket[$__rate_interval])))",
                   "{{verb}} p50"),
            target("histogram_quantile(0.99, sum by (verb, le) (rate("
                   "carbonroute_scheduler_extender_request_duration_seconds_bucket[$__rate_interval])))",
                   "{{verb}} p99", ref="B")],
           x=8, w=8, unit="s", advance=False)
timeseries("Extender requests by status",
           "Requests per second by verb and HTTP status.",
           [target("sum by (verb, code) "
                   "(rate(carbonroute_scheduler_extender_requests_total[$__rate_interval]))",
                   "{{verb}} {{code}}")],
           x=16, w=8, unit="reqps", stacked=True, advance=False)
y += 8
timeseries("Scheduler model age",
           "Seconds since scheduler-lite last rebuilt its model (every --refresh); alert at 5 min.",
           [target("carbonroute_scheduler_model_age_seconds", "{{instance}}")],
           x=0, w=12, unit="s", advance=False)
timeseries("Grid locations with carbon in the model",
           "Locations scheduler-lite has a carbon reading for. 0 while nodes are known: no carbon "
           "source answers (the carbon role is down), carbon scores are equal and latency decides.",
           [target("carbonroute_scheduler_model_carbon_locations", "{{instance}}")],
           x=12, w=12)

# --- Waiting (scheduler-lite hold) ----------------------------------------------
row("Waiting (scheduler-lite hold)")
timeseries("Held Jobs and Pods",
           "Work that opted in (label carbonroute.io/defer) and waits for its cleanest window, by "
           "kind; past its latest start (should be 0: the CarbonrouteHoldPastDeadline alert) dashed.",
           [target("sum by (kind) (carbonroute_hold_objects)", "held {{kind}}"),
            target("sum by (kind) (carbonroute_hold_past_deadline_objects)", "past deadline {{kind}}",
                   ref="B")],
           x=0, w=6, advance=False)
timeseries("Releases by reason",
           "Releases per hour: window (the cleanest window came), deadline (its latest start), "
           "no_forecast and invalid (released at once: fail open).",
           [target("sum by (reason) (rate(carbonroute_hold_releases_total[$__rate_interval])) * 3600",
                   "{{reason}}")],
           x=6, w=6, stacked=True, advance=False)
timeseries("Hold delay",
           "Time from creation to release, 50th and 90th percentiles.",
           [target("histogram_quantile(0.5, sum by (le) "
                   "(rate(carbonroute_hold_delay_seconds_bucket[$__rate_interval])))", "p50"),
            target("histogram_quantile(0.9, sum by (le) "
                   "(rate(carbonroute_hold_delay_seconds_bucket[$__rate_interval])))", "p90",
                   ref="B")],
           x=12, w=6, unit="s", advance=False)
timeseries("Intensity avoided per release",
           "The forecast intensity of a run started at creation minus that at release, mean over "
           "every release so far (gCO2eq/kWh): what waiting saved per kWh.",
           [target("sum(carbonroute_hold_intensity_avoided_grams_per_kwh_sum) / "
                   "sum(carbonroute_hold_intensity_avoided_grams_per_kwh_count)", "avoided")],
           x=18, w=6)

# --- Placing across clusters (scheduler-lite karmada --controller) ---------------
row("Placing across clusters (Karmada)")
timeseries("Active clusters",
           "The member clusters each Karmada policy places on over time (1 while chosen), from "
           "the Lease holder: a step is a move.",
           [target("max by (namespace, policy, cluster) (carbonroute_karmada_cluster_active) == 1",
                   "{{namespace}}/{{policy}} · {{cluster}}")],
           x=0, w=8, stacked=True, advance=False)
timeseries("Moves",
           "Writes of a new clusterNames set per policy, per hour (carbonToleranceGramsPerKwh "
           "and minStay keep this low).",
           [target("sum by (namespace, policy) "
                   "(rate(carbonroute_karmada_moves_total[$__rate_interval])) * 3600",
                   "{{namespace}}/{{policy}}")],
           x=8, w=8, advance=False)
timeseries("Member clusters' intensity",
           "The intensity each policy's choice was made on, gCO2eq/kWh; a cluster without a "
           "reading has no line (the policy then keeps its placement: DataMissing).",
           [target("max by (cluster, location) "
                   "(carbonroute_karmada_cluster_carbon_intensity_grams_per_kilowatt_hour)",
                   "{{cluster}} ({{location}})")],
           x=16, w=8)

# --- Steering requests (scheduler-lite route --controller, docs/routing.md) -----
row("Steering requests (route)")
timeseries("Weights per origin",
           "The share of each origin locality's requests written toward each locality, over "
           "time (carbonroute_routing_weight_ratio): a step is a change of weights "
           "(carbonToleranceGramsPerKwh and minStay keep them rare).",
           [target("max by (namespace, policy, target, from, to) "
                   "(carbonroute_routing_weight_ratio)",
                   "{{target}} · {{from}} → {{to}}")],
           x=0, w=10, unit="percentunit", stacked=True, advance=False)
timeseries("Expected intensity of a request",
           "Per origin, the intensity a request meets under the weights written (weighted) and "
           "under the mesh's default, all local (local), gCO2eq/kWh: the gap is what steering "
           "saves per kWh.",
           [target("max by (namespace, policy, from, basis) "
                   "(carbonroute_routing_expected_intensity_grams_per_kilowatt_hour)",
                   "{{from}} ({{basis}})")],
           x=10, w=8, unit=GRAMS, advance=False)
timeseries("Reconciles per hour",
           "Target reconciles per hour by result (written, unchanged, data_missing, "
           "failover_configured, outlier_detection_missing, ...).",
           [target("sum by (result) (rate(carbonroute_routing_writes_total[$__rate_interval])) "
                   "* 3600",
                   "{{result}}")],
           x=18, w=6)

# --- Re-placing running Pods (scheduler-lite rebalance --controller, docs/rebalance.md) ---
row("Re-placing running Pods (rebalance)")
timeseries("Candidates",
           "Per policy, its Pods a cleaner Node within their limits has beaten by more than the "
           "tolerance for longer than minStay and whose move pays (carbonroute_rebalance_candidates): "
           "they are moved as maxMovesPerPeriod and the disruption budgets allow.",
           [target("max by (namespace, policy) (carbonroute_rebalance_candidates)",
                   "{{namespace}}/{{policy}}")],
           x=0, w=8, advance=False)
timeseries("Evictions per hour",
           "Eviction attempts per hour by result: evicted, blocked_by_pdb (a PodDisruptionBudget's "
           "429: tried again at the next resync), throttled, failed, would_evict (--dry-run).",
           [target("sum by (result) (rate(carbonroute_rebalance_evictions_total[$__rate_interval])) "
                   "* 3600",
                   "{{result}}")],
           x=8, w=8, advance=False)
timeseries("Grams gained by moves",
           "Per policy, gCO2eq its moves gained since the controller started, signed: the stays "
           "where they run against where they were, minus the restarts "
           "(carbonroute_rebalance_gained_grams; the ledger's controller=\"rebalance\" series hold "
           "the same per namespace). Below zero: moves that have not paid back yet.",
           [target("max by (namespace, policy) (carbonroute_rebalance_gained_grams)",
                   "{{namespace}}/{{policy}}")],
           x=16, w=8, unit="g")

# --- What carbonroute saved (the savings ledger, docs/savings.md) -------------
LEDGER = 'emissions_type=~"$signal"'
row("What carbonroute saved")
timeseries("Saving per namespace",
           "Grams CO2eq saved in the last hour by carbonroute's decisions, per namespace and mode "
           "(namespace:carbonroute_ledger_saving_grams:increase1h): the stated counterfactual's "
           "grams minus those where the work ran. Below zero: a loss (a latency limit can make the "
           "chosen place dirtier). Shadow: what it would have saved under --dry-run.",
           [target(f"sum by (namespace, mode) "
                   f"(namespace:carbonroute_ledger_saving_grams:increase1h{{{LEDGER}}})",
                   "{{namespace}} ({{mode}})")],
           x=0, w=12, unit="g", advance=False)
panel("stat", "Saved over the range",
      "Counterfactual minus chosen grams CO2eq over the dashboard's range, per mode; "
      "scheduler-lite report gives the same per namespace with the energy and the latency price.",
      [target(f"sum by (mode) (increase(carbonroute_ledger_emissions_grams_total"
              f"{{basis=\"counterfactual\",{LEDGER}}}[$__range])) - sum by (mode) (increase("
              f"carbonroute_ledger_emissions_grams_total{{basis=\"chosen\",{LEDGER}}}[$__range]))",
              "{{mode}}", instant=True)],
      x=12, w=6, unit="g",
      options={"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
               "colorMode": "value", "graphMode": "none"})
timeseries("Intervals left out",
           "Intervals booked on neither basis per hour, by reason (unknown_intensity, "
           "unknown_energy, gap, duplicated, ...): never counted as 0.",
           [target("sum by (controller, reason) "
                   "(rate(carbonroute_ledger_intervals_skipped_total[$__rate_interval])) * 3600",
                   "{{controller}} {{reason}}")],
           x=18, w=6)

# --- Emissions per workload -------------------------------------------------
# deploy/prometheus/carbonroute-emissions.yaml: Kepler's or DCGM's joules at the
# intensity of the Node's grid location, minute by minute.
EMISSIONS = 'emissions_type=~"$signal"'
row("Emissions per workload (Kepler, DCGM)")
timeseries("Emissions by namespace",
           "Grams CO2eq per second per namespace (namespace:carbonroute_emissions_grams_per_second:"
           "rate1m): each workload's energy (Kepler, DCGM) times the intensity of the grid location "
           "of the Node it ran on, at the time. Kepler's GPU and DCGM measure the same GPUs: read "
           "one meter's gpu component.",
           [target(f"sum by (namespace, meter, component) "
                   f"(namespace:carbonroute_emissions_grams_per_second:rate1m{{{EMISSIONS}}})",
                   "{{namespace}} · {{meter}} {{component}}")],
           x=0, w=12, unit="g/s", stacked=True, advance=False)
panel("bargauge", "Top 10 pods by emissions (last hour)",
      "The ten pods that emitted most in the last hour, grams CO2eq (their cumulative series' "
      "increase; a pod that moved between Nodes is priced at each Node's location).",
      [target(f"topk(10, sum by (namespace, pod) (increase("
              f"namespace_pod_container:carbonroute_emissions_grams:cumulative{{{EMISSIONS}}}[1h])))",
              "{{namespace}}/{{pod}}", instant=True)],
      x=12, w=12, unit="g",
      defaults={"min": 0, "color": {"mode": "continuous-GrYlRd"}},
      options={"orientation": "horizontal", "displayMode": "gradient", "showUnfilled": True,
               "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}})


def query_variable(name, label, query):
    return {"name": name, "label": label, "type": "query", "datasource": DATASOURCE,
            "query": {"query": query, "refId": name},
            "refresh": 2, "multi": True, "includeAll": True, "allValue": ".*",
            "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
            "sort": 1, "options": [], "hide": 0}


dashboard = {
    "uid": "carbonroute",
    "title": "carbonroute",
    "description": "Grid carbon intensity, the RTT matrix, collector health and scheduler-lite "
                   "decisions (https://github.com/carbonroute; README \"Grafana and alerts\").",
    "tags": ["carbonroute", "carbon", "latency"],
    "timezone": "browser",
    "editable": True,
    "graphTooltip": 1,
    "refresh": "1m",
    "schemaVersion": 39,
    "version": 1,
    "time": {"from": "now-24h", "to": "now"},
    "timepicker": {},
    "fiscalYearStartMonth": 0,
    "liveNow": False,
    "links": [],
    "annotations": {"list": [{
        "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
        "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
        "name": "Annotations & Alerts", "type": "dashboard"}]},
    "templating": {"list": [
        {"name": "datasource", "label": "Data source", "type": "datasource",
         "query": "prometheus", "refresh": 1, "regex": "", "hide": 0, "options": [],
         "current": {"selected": False, "text": "Prometheus", "value": "prometheus"}},
        query_variable("location", "Grid location",
                       "label_values(carbonroute_carbon_intensity_grams_per_kilowatt_hour, location)"),
        query_variable("node", "Node", "label_values(carbonroute_node_info, node)"),
        {"name": "signal", "label": "Emissions signal", "type": "custom",
         "query": "average,marginal", "multi": False, "includeAll": False, "hide": 0,
         "current": {"selected": True, "text": "average", "value": "average"},
         "options": [{"selected": True, "text": "average", "value": "average"},
                     {"selected": False, "text": "marginal", "value": "marginal"}]},
    ]},
    "panels": panels,
}

json.dump(dashboard, sys.stdout, indent=2, ensure_ascii=False)
sys.stdout.write("\n")
