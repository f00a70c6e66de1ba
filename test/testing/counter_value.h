// File: test/testing/counter_value.h
//
// Reads a counter's value straight from a prometheus-cpp registry: the sum of
// the series of `name` whose labels include every one of `labels` (an empty
// map matches every series), NaN when none matches (a series never created
// is not a 0). For tests of the controllers' and the ledger's counters.
#ifndef CARBONROUTE_TEST_TESTING_COUNTER_VALUE_H_
#define CARBONROUTE_TEST_TESTING_COUNTER_VALUE_H_

#include <prometheus/registry.h>

#include <limits>
#include <map>
#include <string>

namespace carbonroute::testing {

inline double CounterValue(prometheus::Registry& registry, const std::string& name,
                           const std::map<std::string, std::string>& labels) {
  double sum = 0;
  bool found = false;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::size_t matched = 0;
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        auto it = labels.find(label.name);
        if (it != labels.end() && it->second == label.value) ++matched;
      }
      if (matched != labels.size()) continue;
      sum += metric.counter.value;
      found = true;
    }
  }
  return found ? sum : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_COUNTER_VALUE_H_
