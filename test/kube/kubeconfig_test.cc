#include "kube/kubeconfig.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/kube_connection.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::kube {
namespace {

using ::carbonroute::testing::IsOk;
using ::carbonroute::testing::ScopedTempDir;
using ::carbonroute::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// A kubeconfig as `kind` and `kubeadm` write one, with two contexts.
constexpr char kTwoContexts[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority: certs/ca.crt
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    insecure-skip-tls-verify: true
    tls-server-name: kubernetes.default.svc
users:
- name: dev-user
  user:
    client-certificate: certs/client.crt
    client-key: /abs/client.key
- name: prod-user
  user:
    token: literal-token
    tokenFile: ignored-because-token-wins
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team-a}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
)";

// `path` as the kubeconfig loader writes a resolved path (lexically normal).
std::string Normal(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

// The environment of a workstation: only what `vars` set.
KubeEnvironment Environment(const std::map<std::string, std::string>& vars,
                            const std::string& service_account_dir = "/nonexistent") {
  auto shared = std::make_shared<std::map<std::string, std::string>>(vars);
  return {.getenv = [shared](const char* name) -> const char* {
            const auto it = shared->find(name);
            return it == shared->end() ? nullptr : it->second.c_str();
          },
          .service_account_dir = service_account_dir};
}

class KubeconfigTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_.File(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  ScopedTempDir dir_;
};

TEST_F(KubeconfigTest, TheCurrentContextWithPathsRelativeToTheFile) {
  const std::string file = Write("conf/config", kTwoContexts);
  absl::StatusOr<Kubeconfig> config = LoadKubeconfig({file}, false);
  ASSERT_THAT(config, IsOk());
  absl::StatusOr<KubeConnection> connection = ConnectionFromKubeconfig(*config, "");
  ASSERT_THAT(connection, IsOk());
  EXPECT_EQ(connection->server, "https://dev.example:6443");
  EXPECT_EQ(connection->ca_file, Normal(dir_.File("conf/certs/ca.crt")));
  EXPECT_EQ(connection->client_cert_file, Normal(dir_.File("conf/certs/client.crt")));
  EXPECT_EQ(connection->client_key_file, "/abs/client.key");
  EXPECT_EQ(connection->namespace_name, "team-a");
  EXPECT_FALSE(connection->insecure_skip_tls_verify);
  EXPECT_EQ(connection->Describe(),
            absl::StrCat("https://dev.example:6443 (kubeconfig ", file, ", context dev)"));
}

TEST_F(KubeconfigTest, AnotherContextByName) {
  absl::StatusOr<Kubeconfig> config = LoadKubeconfig({Write("config", kTwoContexts)}, false);
  ASSERT_THAT(config, IsOk());
  absl::StatusOr<KubeConnection> connection = ConnectionFromKubeconfig(*config, "prod");
  ASSERT_THAT(connection, IsOk());
  EXPECT_EQ(connection->server, "https://prod.example:6443");
  EXPECT_EQ(connection->token, "literal-token");  // client-go: token wins over tokenFile
  EXPECT_EQ(connection->token_file, "");
  EXPECT_TRUE(connection->insecure_skip_tls_verify);
  EXPECT_EQ(connection->tls_server_name, "kubernetes.default.svc");
  EXPECT_THAT(
      ConnectionFromKubeconfig(*config, "staging"),
      StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("context \"staging\" not found"),
                                                  HasSubstr("(contexts: dev, prod)"))));
}

TEST_F(KubeconfigTest, DataFieldsAreBase64PemAndWinOverFiles) {
  const std::string text = absl::StrCat(R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443", certificate-authority: ca.crt,
            certificate-authority-data: )",
                                        absl::Base64Escape("CA PEM"), R"(}}]
users: [{name: u, user: {client-certificate-data: )",
                                        absl::Base64Escape("CERT PEM"), R"(, client-key-data: )",
                                        absl::Base64Escape("KEY PEM"),
                                        R"(, username: admin, password: s3cret}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  absl::StatusOr<Kubeconfig> config = ParseKubeconfig(text, "/x/config");
  ASSERT_THAT(config, IsOk());
  absl::StatusOr<KubeConnection> connection = ConnectionFromKubeconfig(*config, "");
  ASSERT_THAT(connection, IsOk());
  EXPECT_EQ(connection->ca_pem, "CA PEM");
  EXPECT_EQ(connection->ca_file, "");
  EXPECT_EQ(connection->client_cert_pem, "CERT PEM");
  EXPECT_EQ(connection->client_key_pem, "KEY PEM");
  EXPECT_EQ(connection->username, "admin");
  EXPECT_EQ(connection->password, "s3cret");
  EXPECT_THAT(connection->Describe(), ::testing::Not(HasSubstr("s3cret")));

  absl::StatusOr<Kubeconfig> bad = ParseKubeconfig(
      "current-context: c\nclusters: [{name: k, cluster: {server: https://k, "
      "certificate-authority-data: '%%%'}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
      "/x/config");
  ASSERT_THAT(bad, IsOk());
  EXPECT_THAT(ConnectionFromKubeconfig(*bad, ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "kubeconfig /x/config: cluster \"k\" certificate-authority-data: not "
                       "base64"));
}

TEST_F(KubeconfigTest, AnExecPluginIsReadAsKubectlReadsIt) {
  absl::StatusOr<Kubeconfig> config = ParseKubeconfig(R"(current-context: gke
clusters: [{name: gke, cluster: {server: "https://34.1.2.3"}}]
users:
- name: gke-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: bin/plugin
      args: [--region, eu]
      env: [{name: PROFILE, value: prod}]
      installHint: install it with your cloud's CLI
contexts: [{name: gke, context: {cluster: gke, user: gke-user}}]
)",
                                                      "/home/me/.kube/config");
  ASSERT_THAT(config, IsOk());
  const KubeconfigUser& user = config->users.at("gke-user").value;
  ASSERT_TRUE(user.exec.has_value());
  EXPECT_EQ(user.exec->command, "/home/me/.kube/bin/plugin");  // relative to the kubeconfig
  EXPECT_EQ(user.exec->args, (std::vector<std::string>{"--region", "eu"}));
  ASSERT_EQ(user.exec->env.size(), 1u);
  EXPECT_EQ(user.exec->env[0].second, "prod");
  EXPECT_EQ(user.exec->install_hint, "install it with your cloud's CLI");
  absl::StatusOr<KubeConnection> connection = ConnectionFromKubeconfig(*config, "");
  ASSERT_THAT(connection, IsOk());
  EXPECT_NE(connection->exec, nullptr);
  // An apiVersion kubectl no longer runs plugins with is named.
  EXPECT_THAT(ParseKubeconfig("users: [{name: u, user: {exec: {apiVersion: "
                              "client.authentication.k8s.io/v1alpha1, command: x}}}]\n",
                              "/c"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("users[0].user.exec.apiVersion: "
                                 "\"client.authentication.k8s.io/v1alpha1\" is not")));
}

TEST_F(KubeconfigTest, MistakesAreNamed) {
  EXPECT_THAT(
      ParseKubeconfig("clusters: {a: 1}\n", "/c"),
      StatusIs(absl::StatusCode::kInvalidArgument, "kubeconfig /c: clusters: expected a list"));
  EXPECT_THAT(ParseKubeconfig("clusters: [{name: a, cluster: {server: [1]}}]\n", "/c"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "kubeconfig /c: clusters[0].cluster.server: expected a string"));
  EXPECT_THAT(
      ParseKubeconfig("clusters: [{name: a, cluster: {insecure-skip-tls-verify: yes}}]\n", "/c"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("insecure-skip-tls-verify: expected true or false")));
  EXPECT_THAT(ParseKubeconfig("a: [", "/c"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("kubeconfig /c: not YAML")));
  absl::StatusOr<Kubeconfig> no_current =
      ParseKubeconfig("contexts: [{name: x, context: {cluster: nope}}]\n", "/c");
  ASSERT_THAT(no_current, IsOk());
  EXPECT_THAT(ConnectionFromKubeconfig(*no_current, ""),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no current-context is set; give --kube-context (contexts: x)")));
  EXPECT_THAT(ConnectionFromKubeconfig(*no_current, "x"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("names cluster \"nope\", which is not there")));
  EXPECT_THAT(LoadKubeconfig({dir_.File("missing")}, false),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing: no such file")));
}

// kubectl's rules for a $KUBECONFIG list: the first file that sets a value
// wins, current-context included; a user named twice is the first file's, whole.
TEST_F(KubeconfigTest, KubeconfigListMergesFirstWins) {
  const std::string first = Write("first", R"(current-context: a
clusters: [{name: c1, cluster: {server: "https://first:6443"}}]
users: [{name: u, user: {token: first-token}}]
contexts: [{name: a, context: {cluster: c1, user: u}}]
)");
  const std::string second = Write("second", R"(current-context: b
clusters:
- {name: c1, cluster: {server: "https://second:6443"}}
- {name: c2, cluster: {server: "https://only-second:6443"}}
users: [{name: u, user: {username: second-user, password: p}}]
contexts: [{name: b, context: {cluster: c2, user: u}}]
)");
  const KubeEnvironment env =
      Environment({{"KUBECONFIG", absl::StrCat(dir_.File("absent"), "::", first, ":", second)},
                   {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},  // KUBECONFIG wins over in-cluster
                   {"KUBERNETES_SERVICE_PORT", "443"}});
  absl::StatusOr<KubeConnection> a = ResolveKubeConnection({}, env);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->server, "https://first:6443");
  EXPECT_EQ(a->token, "first-token");
  absl::StatusOr<KubeConnection> b = ResolveKubeConnection({.context = "b"}, env);
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(b->server, "https://only-second:6443");
  EXPECT_EQ(b->token, "first-token");  // user "u" is the first file's entry, whole
  EXPECT_EQ(b->username, "");
}

TEST_F(KubeconfigTest, TheOrderFlagsKubeconfigInClusterHome) {
  const std::string home = dir_.File("home");
  Write("home/.kube/config", R"(current-context: h
clusters: [{name: h, cluster: {server: "https://home:6443"}}]
contexts: [{name: h, context: {cluster: h}}]
)");
  const std::string flagged = Write("flagged", R"(current-context: f
clusters: [{name: f, cluster: {server: "https://flagged:6443"}}]
contexts: [{name: f, context: {cluster: f}}]
)");
  const std::string sa = dir_.File("sa");
  Write("sa/token", "pod-token\n");
  Write("sa/ca.crt", "CA");
  Write("sa/namespace", "carbonroute\n");
  const KubeEnvironment in_pod = Environment(
      {{"HOME", home}, {"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
      sa);
  // 1. --kube-api-url alone.
  absl::StatusOr<KubeConnection> url =
      ResolveKubeConnection({.api_url = "http://127.0.0.1:8001/", .kubeconfig = flagged}, in_pod);
  ASSERT_THAT(url, IsOk());
  EXPECT_EQ(url->Describe(), "http://127.0.0.1:8001 (--kube-api-url)");
  EXPECT_EQ(url->token_file, "");
  // 2. --kubeconfig over the Pod.
  absl::StatusOr<KubeConnection> file = ResolveKubeConnection({.kubeconfig = flagged}, in_pod);
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->server, "https://flagged:6443");
  // 4. In a Pod: the service account (an IPv6 service address in brackets).
  absl::StatusOr<KubeConnection> pod = ResolveKubeConnection({}, in_pod);
  ASSERT_THAT(pod, IsOk());
  EXPECT_EQ(pod->Describe(), "https://[fd00::1]:443 (in-cluster)");
  EXPECT_EQ(pod->token_file, sa + "/token");
  EXPECT_EQ(pod->ca_file, sa + "/ca.crt");
  EXPECT_EQ(pod->namespace_name, "carbonroute");
  EXPECT_TRUE(InPod(in_pod));
  // Half a Pod's environment is not a Pod: neither for the resolution nor for InPod
  // (scheduler-lite serve asks it whether to watch the Nodes).
  const KubeEnvironment host_only =
      Environment({{"HOME", home}, {"KUBERNETES_SERVICE_HOST", "fd00::1"}}, sa);
  EXPECT_FALSE(InPod(host_only));
  absl::StatusOr<KubeConnection> half = ResolveKubeConnection({}, host_only);
  ASSERT_THAT(half, IsOk());
  EXPECT_EQ(half->server, "https://home:6443");
  // 5. Outside a Pod: ~/.kube/config.
  absl::StatusOr<KubeConnection> workstation =
      ResolveKubeConnection({}, Environment({{"HOME", home}}));
  ASSERT_THAT(workstation, IsOk());
  EXPECT_EQ(workstation->server, "https://home:6443");
  // Nothing: one message naming every place looked at.
  EXPECT_THAT(
      ResolveKubeConnection({}, Environment({{"HOME", dir_.File("empty")}})),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr("no Kubernetes API to talk to"), HasSubstr("$KUBECONFIG is not set"),
                     HasSubstr("not in a Pod"), HasSubstr(dir_.File("empty/.kube/config")),
                     HasSubstr("give --kubeconfig FILE or --kube-api-url URL"))));
}

TEST_F(KubeconfigTest, FlagFilesOverrideAndAnUnreadableCaIsNamedAtStart) {
  const std::string file = Write("config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443", certificate-authority: missing-ca.crt}}]
users: [{name: u, user: {token: from-file}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  EXPECT_THAT(
      ResolveKubeConnection({.kubeconfig = file}, Environment({})),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr("cannot read the API server's CA file"),
                     HasSubstr(Normal(dir_.File("missing-ca.crt"))), HasSubstr("context c"))));
  const std::string ca = Write("ca.pem", "CA");
  const std::string token = Write("token", "flag-token");
  absl::StatusOr<KubeConnection> overridden = ResolveKubeConnection(
      {.token_file = token, .ca_file = ca, .kubeconfig = file}, Environment({}));
  ASSERT_THAT(overridden, IsOk());
  EXPECT_EQ(overridden->ca_file, ca);
  EXPECT_EQ(overridden->token, "");
  EXPECT_EQ(overridden->token_file, token);
}

}  // namespace
}  // namespace carbonroute::kube
