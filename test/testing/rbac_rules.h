// File: test/testing/rbac_rules.h
//
// What a manifest's RBAC rules allow, and what a fake API server was asked,
// both as "group resource verb" strings (kube::RuleFor names a request's),
// so a test can check that every request a binary made is one the shipped
// RBAC allows. Namespaces are not compared. Header-only, for tests.
#ifndef CARBONROUTE_TEST_TESTING_RBAC_RULES_H_
#define CARBONROUTE_TEST_TESTING_RBAC_RULES_H_

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "kube/kube_client.h"

namespace carbonroute::testing {

// Every "group resource verb" the rules of the documents in `file` allow.
inline std::set<std::string> AllowedByRbac(const std::string& file) {
  std::set<std::string> allowed;
  for (const YAML::Node& document : YAML::LoadAllFromFile(file)) {
    for (const YAML::Node& rule : document["rules"]) {
      for (const YAML::Node& group : rule["apiGroups"]) {
        for (const YAML::Node& resource : rule["resources"]) {
          for (const YAML::Node& verb : rule["verbs"]) {
            allowed.insert(absl::StrCat(group.as<std::string>(), " ", resource.as<std::string>(),
                                        " ", verb.as<std::string>()));
          }
        }
      }
    }
  }
  return allowed;
}

// The "group resource verb" a request needs.
inline std::string RbacNeededFor(const std::string& method, const std::string& target) {
  const kube::RbacRule rule = kube::RuleFor(method, target);
  return absl::StrCat(rule.api_group, " ", rule.resource, " ", rule.verb);
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_RBAC_RULES_H_
