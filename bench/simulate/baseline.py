#!/usr/bin/python3
"""A plain Python implementation of `scheduler-lite simulate`'s static and
oracle policies, written for the benchmark (bench/simulate/run): pandas and
numpy for the data, scipy's linprog (HiGHS) for the per-period minimum-carbon
assignment. Same model as the README's "How much would it save?": sites are
grid zones with regions, RTT between sites the smallest between their regions
(5 ms to itself), capacity 100 units, load round(100 * (1 - idle/100)).

Prints the same CSV rows as `scheduler-lite simulate --format csv` for the
local, static and oracle policies (share column left empty).
"""
import argparse
import sys

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.sparse import lil_matrix


def sites(trace, zones_csv, matrix_csv):
    zones = pd.read_csv(zones_csv)
    zones = zones[zones["zone"].isin(trace.columns)]
    site_names = sorted(zones["zone"].unique())
    site_of = dict(zip(zones["gcp_region"], zones["zone"]))
    matrix = pd.read_csv(matrix_csv)
    matrix["from"] = matrix["sending_region"].map(site_of)
    matrix["to"] = matrix["receiving_region"].map(site_of)
    matrix = matrix.dropna()
    matrix = matrix[matrix["from"] != matrix["to"]]
    rtt = matrix.groupby(["from", "to"])["milliseconds"].min()
    n = len(site_names)
    index = {s: i for i, s in enumerate(site_names)}
    ms = np.full((n, n), np.nan)
    for (a, b), value in rtt.items():
        ms[index[a], index[b]] = value
    np.fill_diagonal(ms, 5.0)
    return site_names, ms


def static_plan(mean, allowed, load):
    n = len(mean)
    order = sorted(range(n), key=lambda s: (mean[s], s))
    plan = np.zeros((n, n))
    np.fill_diagonal(plan, load)
    free = 100 - load.copy()
    for o in order:
        for t in order:
            if t == o or plan[o, o] == 0:
                break
            if allowed[o, t]:
                moved = min(free[t], plan[o, o])
                plan[o, o] -= moved
                plan[o, t] += moved
                free[t] -= moved
                free[o] += moved
    return plan


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", required=True)
    parser.add_argument("--region-zones", required=True)
    parser.add_argument("--rtt-matrix", required=True)
    parser.add_argument("--max-rtt-ms", default="5,50,100,150,200,250,300")
    parser.add_argument("--idle-capacity", default="0,50,99")
    args = parser.parse_args()

    trace = pd.read_csv(args.trace, index_col="datetime")
    names, ms = sites(trace, args.region_zones, args.rtt_matrix)
    values = trace[names].to_numpy()  # hours × sites
    hours, n = values.shape
    mean = values.mean(axis=0)
    print("policy,max_rtt_ms,idle_capacity_percent,mean_grams_per_kwh,saving_percent,oracle_saving_share")
    for idle in [int(x) for x in args.idle_capacity.split(",")]:
        load = np.full(n, float(round(100 * (100 - idle) / 100)))
        for limit in [float(x) for x in args.max_rtt_ms.split(",")]:
            allowed = np.nan_to_num(ms, nan=np.inf) <= limit
            np.fill_diagonal(allowed, True)
            pairs = np.argwhere(allowed)  # variables x[o, s]
            a_eq = lil_matrix((n, len(pairs)))
            a_ub = lil_matrix((n, len(pairs)))
            for k, (o, s) in enumerate(pairs):
                a_eq[o, k] = 1
                a_ub[s, k] = 1
            a_eq, a_ub = a_eq.tocsr(), a_ub.tocsr()
            caps = np.full(n, 100.0)
            local = (values * load).sum() / (hours * load.sum())
            plan = static_plan(mean, allowed, load)
            static = (values @ plan.sum(axis=0)).sum() / (hours * load.sum())
            oracle_cost = 0.0
            for h in range(hours):
                result = linprog(values[h, pairs[:, 1]], A_ub=a_ub, b_ub=caps, A_eq=a_eq, b_eq=load,
                                 bounds=(0, None), method="highs")
                if result.status != 0:
                    sys.exit(f"linprog failed at hour {h}: {result.message}")
                oracle_cost += result.fun
            oracle = oracle_cost / (hours * load.sum())
            for policy, value in (("local", local), ("static", static), ("oracle", oracle)):
                print(f"{policy},{limit:g},{idle},{value:.3f},{100 * (local - value) / local:.3f},")


if __name__ == "__main__":
    main()
