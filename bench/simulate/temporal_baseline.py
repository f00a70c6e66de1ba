#!/usr/bin/python3
"""The temporal oracle the way the study computes it (Sukprasert et al.,
EuroSys 2024): for every arrival hour, the window [t, t + slack + length)
cut at the year's end is sorted (numpy) and the `length` smallest hours
taken (interruptible), or every `length`-hour block summed and the smallest
taken (not interruptible). Written for bench/simulate/temporal_run, to set
beside simulator/temporal_shift.h's O(H log H) oracle.

Prints one line per (zone, length, slack, interruptible): the mean over
arrivals of each job's oracle mean intensity, gCO2eq/kWh, as
bench/temporal_benchmark --zones prints it.
"""
import argparse

import numpy as np
import pandas as pd


def oracle_mean(x, length, slack, interruptible):
    n = len(x)
    block = np.convolve(x, np.ones(length), mode="valid")  # block[s] = sum x[s:s+length]
    total = 0.0
    for t in range(n - length + 1):
        end = min(t + slack + length, n)
        if interruptible:
            total += np.sort(x[t:end])[:length].sum()
        else:
            total += block[t:end - length + 1].min()
    return total / length / (n - length + 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", required=True)
    parser.add_argument("--zones", required=True)
    parser.add_argument("--job-lengths", default="1,6,12,24,48,96,168")
    parser.add_argument("--slacks", default="24,168,480,720,8760")
    args = parser.parse_args()
    trace = pd.read_csv(args.trace, index_col="datetime")
    for zone in args.zones.split(","):
        x = trace[zone].to_numpy(dtype=float)
        for length in map(int, args.job_lengths.split(",")):
            for slack in map(int, args.slacks.split(",")):
                for interruptible in (False, True):
                    mean = oracle_mean(x, length, slack, interruptible)
                    print(f"{zone},{length},{slack},{int(interruptible)},{mean:.6f}")


if __name__ == "__main__":
    main()
