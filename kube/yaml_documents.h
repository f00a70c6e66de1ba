// File: kube/yaml_documents.h
//
// API objects as people keep them in files: every document of a YAML (or
// JSON) text, as minified JSON text the JSON readers of the project take
// (kube/json_view.h, nlohmann::json). Plain scalars are typed by YAML 1.2's
// core schema (null, true/false, integers, decimals; a quoted scalar stays a
// string); empty documents are skipped. Bytes that are not UTF-8 become U+FFFD.
//
// Errors: kInvalidArgument "<what>: not YAML: ..." for a text YAML cannot read.
// Thread safety: pure function.
#ifndef CARBONROUTE_KUBE_YAML_DOCUMENTS_H_
#define CARBONROUTE_KUBE_YAML_DOCUMENTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::kube {

absl::StatusOr<std::vector<std::string>> YamlDocumentsAsJson(absl::string_view text,
                                                             absl::string_view what);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_YAML_DOCUMENTS_H_
