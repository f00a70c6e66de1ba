// File: kube/kubeconfig.h
//
// kubeconfig files as kubectl and client-go read them
// (https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/;
// the fields: client-go tools/clientcmd/api/v1/types.go):
//   current-context
//   clusters[]  {name, cluster: {server, certificate-authority(-data),
//                insecure-skip-tls-verify, tls-server-name}}
//   users[]     {name, user: {token, tokenFile, client-certificate(-data),
//                client-key(-data), username, password}}
//   contexts[]  {name, context: {cluster, user, namespace}}
// Several files (a $KUBECONFIG list) merge as kubectl merges them: the first
// file that sets a value wins, `current-context` included, and a cluster,
// user or context named in two files is the first file's entry, whole.
// Relative file paths resolve against the folder of the file that names them;
// `*-data` fields are base64 PEM and win over the file fields.
//
// A user with an `exec` credential plugin gets its credential from it, as
// kubectl does (exec_credential.h: apiVersion, command, args, env,
// installHint). A user with a legacy `auth-provider` is refused
// (kUnimplemented, naming the user entry and what to give instead), never
// silently ignored.
//
// Errors:
//   kNotFound            a file given explicitly does not exist; a context,
//                        cluster or user a context names is not in the files
//                        (the message lists the names there are)
//   kInvalidArgument     a file that is not a kubeconfig (YAML, shapes), bad
//                        base64 in a *-data field; naming the file and field
//   kFailedPrecondition  no context chosen (no current-context and no
//                        --kube-context); a cluster without a server
//   kInvalidArgument     also: an exec entry without a command, or with an
//                        apiVersion other than client.authentication.k8s.io/v1
//                        or v1beta1
//   kUnimplemented       auth-provider users
// Thread safety: pure functions (they read the named files).
#ifndef CARBONROUTE_KUBE_KUBECONFIG_H_
#define CARBONROUTE_KUBE_KUBECONFIG_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/exec_credential.h"
#include "kube/kube_connection.h"

namespace carbonroute::kube {

struct KubeconfigCluster {
  std::string server, certificate_authority, certificate_authority_data, tls_server_name;
  bool insecure_skip_tls_verify = false;
};

struct KubeconfigUser {
  std::string token, token_file, client_certificate, client_certificate_data, client_key,
      client_key_data, username, password;
  std::optional<ExecConfig> exec;  // the user runs an exec plugin
  std::string auth_provider;       // set: the user names a legacy auth provider (refused)
};

struct KubeconfigContext {
  std::string cluster, user, namespace_name;
};

// One or more files merged. Each entry remembers the file it came from (for
// relative paths and messages).
struct Kubeconfig {
  std::string current_context;
  template <typename T>
  struct Entry {
    T value;
    std::string file;
  };
  std::map<std::string, Entry<KubeconfigCluster>> clusters;
  std::map<std::string, Entry<KubeconfigUser>> users;
  std::map<std::string, Entry<KubeconfigContext>> contexts;
  std::vector<std::string> files;  // the files read, in order
};

// Parses one file's text (`file` names it in errors and anchors its relative paths).
absl::StatusOr<Kubeconfig> ParseKubeconfig(const std::string& text, const std::string& file);

// Reads and merges `files` in order. `skip_missing`: as for a $KUBECONFIG
// list, files that do not exist are skipped (kNotFound if none exists);
// otherwise a missing file is kNotFound.
absl::StatusOr<Kubeconfig> LoadKubeconfig(const std::vector<std::string>& files, bool skip_missing);

// The connection of `context` ("" = the current context).
absl::StatusOr<KubeConnection> ConnectionFromKubeconfig(const Kubeconfig& config,
                                                        const std::string& context);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_KUBECONFIG_H_
